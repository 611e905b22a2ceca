package kpatch

import (
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

	targetPos Position    // where the target is written (file unset)
	src       *treeSource // where the patch's nodes are
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
//   - metadata: {enabled: ..., requires: [...]}   # optional, first
//   - target: deployment.web          # or {group, version, kind, name, namespace}
//     type: field                      # field (default), strategic or merge
//     patch: {...}
//
// Field entries map kpatch paths to values, which may be maps and lists
// here. Every problem is reported with its position, as for Parse.
func ParseYAML(name string, src []byte) (*File, error) {
	p := &yamlParser{file: &File{Name: name}}
	p.file.Metadata.Layer = p.readLayer(src)
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		p.fail(nil, errorf(ErrSyntax, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: ")))
		return nil, p.errs
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		if len(p.errs) > 0 {
			return nil, p.errs
		}
		return p.file, nil // an empty file patches nothing
	}
	if err := checkAliases(&doc); err != nil {
		p.fail(nil, err)
		return nil, p.errs
	}
	root := doc.Content[0]
	if root.Kind != yaml.SequenceNode {
		p.fail(root, errorf(ErrSyntax, "a YAML patch file is a list of entries (- target: ..., patch: ...)"))
		return nil, p.errs
	}
	for i, item := range root.Content {
		if isMetadataEntry(item) {
			p.metadata(item, i)
			continue
		}
		p.entry(item)
	}
	if len(p.errs) > 0 {
		sortErrors(p.errs)
		return nil, p.errs
	}
	return p.file, nil
}

// yamlParser collects the entries and the problems of a YAML patch file.
type yamlParser struct {
	file *File
	errs ErrorList
}

// fail records a problem at its own position if it has one, else at n
// (the file's start when n is nil).
func (p *yamlParser) fail(n *yaml.Node, err *problem) {
	if err.line == 0 {
		line, col := 1, 1
		if n != nil {
			line, col = n.Line, n.Column
		}
		if err.col > 0 {
			col = err.col
		}
		err = err.at(line, col)
	}
	p.errs = append(p.errs, err.parseError(p.file.Name))
}

// entry reads one `- target: ..., type: ..., patch: ...` item.
func (p *yamlParser) entry(item *yaml.Node) {
	if item.Kind != yaml.MappingNode {
		p.fail(item, errorf(ErrSyntax, "an entry is a map with target, type and patch"))
		return
	}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(item.Content); i += 2 {
		switch key := item.Content[i].Value; key {
		case "target", "type", "patch":
			fields[key] = item.Content[i+1]
		default:
			p.fail(item.Content[i], errorf(ErrSyntax, "unknown key %q in an entry; expected target, type and patch", key))
		}
	}
	target, pos, ok := p.target(fields["target"], item)
	if !ok {
		return
	}
	patch := fields["patch"]
	if patch == nil {
		p.fail(item, errorf(ErrSyntax, "the entry has no patch"))
		return
	}
	kind := "field"
	if t := fields["type"]; t != nil {
		kind = t.Value
	}
	switch kind {
	case "strategic", "merge":
		p.mergeEntry(item, target, pos, patch, kind)
	case "field":
		p.fieldEntry(item, target, pos, patch)
	default:
		p.fail(fields["type"], errorf(ErrSyntax, "unknown type %q; expected field, strategic or merge", kind))
	}
}

func (p *yamlParser) mergeEntry(item *yaml.Node, target Target, pos Position, patch *yaml.Node, kind string) {
	if patch.Kind != yaml.MappingNode {
		p.fail(patch, errorf(ErrValue, "a %s patch is a map: part of the object", kind))
		return
	}
	data, src, err := yamlData(patch)
	if err != nil {
		p.fail(patch, err)
		return
	}
	m, ok := data.(map[string]any)
	if !ok {
		p.fail(patch, errorf(ErrValue, "a %s patch is a map: part of the object", kind))
		return
	}
	if treeHasRequired(m) {
		p.fail(patch, errRequiredInTree)
		return
	}
	p.file.Merges = append(p.file.Merges, &MergeEntry{Target: target, Strategic: kind == "strategic", Patch: m,
		Line: item.Line, Col: item.Column, targetPos: pos, src: src})
}

func (p *yamlParser) fieldEntry(item *yaml.Node, target Target, pos Position, patch *yaml.Node) {
	if patch.Kind != yaml.MappingNode {
		p.fail(patch, errorf(ErrValue, "a field patch maps kpatch paths to values"))
		return
	}
	s := &Section{Target: target, Line: item.Line, Col: item.Column, targetPos: pos}
	for i := 0; i+1 < len(patch.Content); i += 2 {
		k, v := patch.Content[i], patch.Content[i+1]
		key, qcol, err := parseKey(k.Value, k.Column)
		if err != nil {
			p.fail(k, err)
			continue
		}
		val, err := yamlValue(v)
		if err != nil {
			p.fail(v, err)
			continue
		}
		if isDeleteKey(key) && !(val.Parts == nil && val.Tree == nil && (val.Scalar == nil || val.Scalar == true)) {
			p.fail(v, errorf(ErrSyntax, "a delete entry takes no value"))
			continue
		}
		if qcol > 0 && val.Required {
			p.fail(k, errIfAbsentRequired(qcol))
			continue
		}
		s.Entries = append(s.Entries, &Entry{Key: key, Value: val, Line: k.Line, Col: k.Column, ValueCol: v.Column, IfAbsent: qcol > 0})
	}
	p.file.Sections = append(p.file.Sections, s)
}

// target reads a target: a kpatch target string, or a map with kind,
// name and optionally group, version and namespace. It returns where the
// kind is written.
func (p *yamlParser) target(n, entry *yaml.Node) (Target, Position, bool) {
	if n == nil {
		p.fail(entry, errorf(ErrSyntax, "the entry has no target"))
		return Target{}, Position{}, false
	}
	if n.Kind == yaml.ScalarNode {
		t, used, err := parseTarget(n.Value, n.Column)
		if err == nil && used != len(n.Value) {
			err = errorAt(n.Column+used, ErrSyntax, "a target is kind.name; a path belongs in the patch")
		}
		if err != nil {
			p.fail(n, err)
			return Target{}, Position{}, false
		}
		return t, Position{Line: n.Line, Column: n.Column + kindOffset(&t)}, true
	}
	var m struct {
		Group, Version, Kind, Name, Namespace string
	}
	if n.Kind != yaml.MappingNode || n.Decode(&m) != nil || m.Kind == "" {
		p.fail(n, errorf(ErrSyntax, "a target is kind.name or a map with kind, name, group, version and namespace"))
		return Target{}, Position{}, false
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
	return t, Position{Line: n.Line, Column: n.Column}, true
}

// kindOffset is how far the kind is from the start of a target's text.
func kindOffset(t *Target) int {
	if t.Namespace == "" {
		return 0
	}
	return len(t.Namespace) + 1
}

// yamlValue turns a YAML node into an entry value: a scalar, a template,
// or a structured tree (whose strings may hold variables).
func yamlValue(n *yaml.Node) (Value, *problem) {
	if v, ok := yamlRequiredValue(n); ok {
		return v, nil
	}
	if n.Kind != yaml.ScalarNode {
		tree, src, err := yamlData(n)
		if err != nil {
			return Value{}, err
		}
		if treeHasRequired(tree) {
			return Value{}, errRequiredInTree
		}
		return Value{Tree: tree, src: src}, nil
	}
	v, err := scalarData(n)
	if err != nil {
		return Value{}, err
	}
	if s, ok := v.(string); ok && strings.Contains(s, "${") {
		quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
		parts, err := parseTemplate(s, n.Column)
		if err != nil {
			return Value{}, err.at(n.Line, err.col)
		}
		if len(parts) == 1 && parts[0].Var != nil && parts[0].Var.CEL != nil {
			// YAML reads `cel: ` in a plain scalar as a map: a quoted
			// value that is exactly one CEL value takes its type
			quoted = false
		}
		if parts != nil {
			return Value{Raw: s, Parts: parts, Quoted: quoted}, nil
		}
		v = literalText(s)
	}
	return Value{Raw: plainText(n), Scalar: v}, nil
}
