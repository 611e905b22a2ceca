package kpatch

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// MergeEntry is a strategic merge patch or a JSON merge patch (RFC 7386)
// of a YAML patch file. A file applies its merge entries, in order, before
// its field entries.
type MergeEntry struct {
	Target Target
	// Strategic selects a strategic merge patch (built-in kinds); kinds
	// without Go types fall back to a JSON merge patch. A JSON merge
	// patch replaces lists whole.
	Strategic bool
	Patch     map[string]any
	Line, Col int
}

// IsYAMLFile reports whether a file name is a YAML patch file rather than
// a .kpatch file.
func IsYAMLFile(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// ParseAny parses a .kpatch file, or a YAML patch file when the name ends
// in .yaml or .yml.
func ParseAny(name string, src []byte) (*File, error) {
	if IsYAMLFile(name) {
		return ParseYAML(name, src)
	}
	return Parse(name, src)
}

// ParseYAML reads a YAML patch file: a list of entries
//
//   - target: deployment.web          # or {group, version, kind, name, namespace}
//     type: field                      # field (default), strategic or merge
//     patch: {...}
//
// Field entries map kpatch paths to values, which may be maps and lists
// here. Every problem is reported with its position, as for Parse.
func ParseYAML(name string, src []byte) (*File, error) {
	f := &File{Name: name}
	var errs ErrorList
	fail := func(n *yaml.Node, sentinel error, format string, args ...any) {
		line, col := 1, 1
		if n != nil {
			line, col = n.Line, n.Column
		}
		errs = append(errs, &ParseError{Pos: Position{File: name, Line: line, Column: col}, Err: sentinel, Msg: fmt.Sprintf(format, args...)})
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		fail(nil, ErrSyntax, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, errs
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return f, nil // an empty file patches nothing
	}
	root := doc.Content[0]
	if root.Kind != yaml.SequenceNode {
		fail(root, ErrSyntax, "a YAML patch file is a list of entries (- target: ..., patch: ...)")
		return nil, errs
	}
	for _, item := range root.Content {
		if item.Kind != yaml.MappingNode {
			fail(item, ErrSyntax, "an entry is a map with target, type and patch")
			continue
		}
		fields := map[string]*yaml.Node{}
		for i := 0; i+1 < len(item.Content); i += 2 {
			key := item.Content[i].Value
			switch key {
			case "target", "type", "patch":
				fields[key] = item.Content[i+1]
			default:
				fail(item.Content[i], ErrSyntax, "unknown key %q in an entry; expected target, type and patch", key)
			}
		}
		target, ok := yamlTarget(fields["target"], item, fail)
		if !ok {
			continue
		}
		kind := "field"
		if t := fields["type"]; t != nil {
			kind = t.Value
		}
		patch := fields["patch"]
		if patch == nil {
			fail(item, ErrSyntax, "the entry has no patch")
			continue
		}
		switch kind {
		case "strategic", "merge":
			var m map[string]any
			if patch.Kind != yaml.MappingNode || patch.Decode(&m) != nil {
				fail(patch, ErrValue, "a %s patch is a map: part of the object", kind)
				continue
			}
			f.Merges = append(f.Merges, &MergeEntry{Target: target, Strategic: kind == "strategic", Patch: normalizeYAML(m).(map[string]any), Line: item.Line, Col: item.Column})
		case "field":
			if patch.Kind != yaml.MappingNode {
				fail(patch, ErrValue, "a field patch maps kpatch paths to values")
				continue
			}
			s := &Section{Target: target, Line: item.Line, Col: item.Column}
			for i := 0; i+1 < len(patch.Content); i += 2 {
				k, v := patch.Content[i], patch.Content[i+1]
				key, err := parsePath(k.Value, k.Column)
				if err == nil {
					err = checkKey(key)
				}
				if err != nil {
					fail(&yaml.Node{Line: k.Line, Column: err.col}, err.err, "%s", err.msg)
					continue
				}
				val, verr := yamlValue(v)
				if verr != nil {
					fail(v, verr.err, "%s", verr.msg)
					continue
				}
				if isDeleteKey(key) && !(val.Parts == nil && val.Tree == nil && (val.Scalar == nil || val.Scalar == true)) {
					fail(v, ErrSyntax, "a delete entry takes no value")
					continue
				}
				s.Entries = append(s.Entries, &Entry{Key: key, Value: val, Line: k.Line, Col: k.Column, ValueCol: v.Column})
			}
			f.Sections = append(f.Sections, s)
		default:
			fail(fields["type"], ErrSyntax, "unknown type %q; expected field, strategic or merge", kind)
		}
	}
	if len(errs) > 0 {
		sortErrors(errs)
		return nil, errs
	}
	return f, nil
}

// yamlTarget reads a target: a kpatch target string, or a map with kind,
// name and optionally group, version and namespace.
func yamlTarget(n, entry *yaml.Node, fail func(*yaml.Node, error, string, ...any)) (Target, bool) {
	if n == nil {
		fail(entry, ErrSyntax, "the entry has no target")
		return Target{}, false
	}
	if n.Kind == yaml.ScalarNode {
		t, used, err := parseTarget(n.Value, n.Column)
		if err == nil && used != len(n.Value) {
			err = errorAt(n.Column+used, ErrSyntax, "a target is kind.name; a path belongs in the patch")
		}
		if err != nil {
			fail(&yaml.Node{Line: n.Line, Column: err.col}, err.err, "%s", err.msg)
			return Target{}, false
		}
		return t, true
	}
	var m struct {
		Group, Version, Kind, Name, Namespace string
	}
	if n.Kind != yaml.MappingNode || n.Decode(&m) != nil || m.Kind == "" {
		fail(n, ErrSyntax, "a target is kind.name or a map with kind, name, group, version and namespace")
		return Target{}, false
	}
	t := Target{Kind: m.Kind, Group: m.Group, Version: m.Version, Namespace: m.Namespace, Name: m.Name}
	t.HasGroup = m.Group != "" || m.Version != ""
	if t.HasGroup && t.Group == "" {
		t.Group = "core"
	}
	if t.Name == "" {
		t.Name = "*"
	}
	t.NameLiteral = !isGlob(t.Name)
	return t, true
}

// yamlValue turns a YAML node into an entry value: a scalar, a template,
// or a structured tree (whose strings may hold variables).
func yamlValue(n *yaml.Node) (Value, *problem) {
	if n.Kind == yaml.ScalarNode {
		var v any
		if err := n.Decode(&v); err != nil {
			return Value{}, errorAt(n.Column, ErrValue, "invalid value: %v", err)
		}
		v = normalizeYAML(v)
		if s, ok := v.(string); ok && strings.Contains(s, "${") {
			quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
			parts, err := parseTemplate(s, n.Column)
			if err != nil {
				return Value{}, err
			}
			if parts != nil {
				return Value{Raw: s, Parts: parts, Quoted: quoted}, nil
			}
			v = literalText(s)
		}
		raw := ""
		if n.Style == 0 && n.Tag != "!!str" {
			raw = n.Value
		}
		return Value{Raw: raw, Scalar: v}, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return Value{}, errorAt(n.Column, ErrValue, "invalid value: %v", err)
	}
	return Value{Tree: normalizeYAML(v)}, nil
}

// normalizeYAML turns decoded YAML into JSON-shaped data: int64 numbers,
// string keys.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeYAML(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalizeYAML(e)
		}
		return x
	case int:
		return int64(x)
	case uint64:
		return float64(x)
	}
	return v
}
