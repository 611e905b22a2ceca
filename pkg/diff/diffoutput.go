package diff

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/internal/yamledit"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// objectPatch is the part of a diff that patches one object.
type objectPatch struct {
	target     kpatch.Target // addresses this object alone among the base objects
	apiVersion string
	kind       string
	object     string // "Kind namespace/name", for messages
	changes    []Change
}

// renderKpatch prints the patches as one .kpatch file: per object, its
// sections in the order of the changes, with the format's shorthand.
func renderKpatch(patches []*objectPatch, sh *shorthand) ([]byte, error) {
	f := &kpatch.File{Name: "diff.kpatch"}
	var errs []error
	for _, op := range patches {
		l := &kpatchLowering{object: op.object}
		for i := range op.changes {
			l.lower(&op.changes[i])
		}
		errs = append(errs, l.errs...)
		for _, s := range l.sections {
			short, err := shortSection(op, s, sh)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			f.Sections = append(f.Sections, short)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return []byte(f.String()), nil
}

// shortSection turns a lowered section into a section of the file: the
// header's path, or with an empty header every entry's key, shortened.
func shortSection(op *objectPatch, s *kpatchSection, sh *shorthand) (*kpatch.Section, error) {
	out := &kpatch.Section{Target: op.target, Entries: s.entries}
	var err error
	if len(s.path) > 0 {
		out.Path, err = sh.shorten(op.apiVersion, op.kind, s.path)
		return out, objectError(op, err)
	}
	out.Entries = make([]*kpatch.Entry, len(s.entries))
	for i, e := range s.entries {
		short := *e
		if short.Key, err = sh.shorten(op.apiVersion, op.kind, e.Key); err != nil {
			return nil, objectError(op, err)
		}
		out.Entries[i] = &short
	}
	return out, nil
}

// objectError prefixes an error with the object it is about.
func objectError(op *objectPatch, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op.object, err)
}

// renderYAML prints the patches as a YAML patch file: per object, field
// entries mapping paths (with the format's shorthand) to values, new
// structures and list items whole. A path that comes back (two
// insertions into one list) starts another entry for the object, as a
// YAML map cannot hold a key twice.
func renderYAML(patches []*objectPatch, sh *shorthand) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.SequenceNode}
	for _, op := range patches {
		var patch *yaml.Node
		seen := map[string]bool{}
		for i := range op.changes {
			c := &op.changes[i]
			short, err := sh.shorten(op.apiVersion, op.kind, c.Path)
			if err != nil {
				return nil, objectError(op, err)
			}
			key := short.String()
			if patch == nil || seen[key] {
				patch = &yaml.Node{Kind: yaml.MappingNode}
				root.Content = append(root.Content, yamlEntry(op.target.String(), patch))
				seen = map[string]bool{}
			}
			seen[key] = true
			value, err := yamlValueNode(c)
			if err != nil {
				return nil, err
			}
			patch.Content = append(patch.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, value)
		}
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// yamlEntry is `- target: T` with `patch: {...}`.
func yamlEntry(target string, patch *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "target"}, {Kind: yaml.ScalarNode, Value: target},
		{Kind: yaml.ScalarNode, Value: "patch"}, patch,
	}}
}

// yamlValueNode is the value of a change's entry: nothing for a delete,
// else the value with every literal ${ written $${.
func yamlValueNode(c *Change) (*yaml.Node, error) {
	if c.Kind == DeleteValue {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}, nil
	}
	return yamledit.ValueNode(escapeVariables(c.Value))
}

// escapeVariables returns v with every "${" in its strings written "$${",
// so that a YAML patch file reads them as text, not variables.
func escapeVariables(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "${", "$${")
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = escapeVariables(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = escapeVariables(e)
		}
		return out
	}
	return v
}
