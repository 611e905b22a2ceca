package replacement

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"

	"kpatch.dev/kpatch/pkg/fieldtype"
	"kpatch.dev/kpatch/pkg/fileerr"
)

// Replacements is a compiled replacements file: immutable, safe for
// concurrent use.
type Replacements struct {
	name      string
	items     []*replacement
	fieldType fieldtype.Func // nil: fieldtype.WellKnown
}

// Name returns the file name the replacements were parsed from.
func (r *Replacements) Name() string { return r.name }

// Len returns the number of replacements.
func (r *Replacements) Len() int { return len(r.items) }

// replacement is one item of the list.
type replacement struct {
	pos     fileerr.Position
	source  *source // nil when the value is a literal
	literal string
	targets []*target
}

// source is where a replacement reads its value.
type source struct {
	pos     fileerr.Position
	id      ResID
	path    FieldPath
	pathPos fileerr.Position
	given   string // the fieldPath as written, empty when defaulted
	opts    options
}

// options refine how a value is read or written.
type options struct {
	delimiter string
	index     int
	create    bool
	pos       fileerr.Position
}

// target is where a replacement writes its value.
type target struct {
	pos   fileerr.Position
	sel   targetSelector
	paths []targetPath
	opts  options
}

type targetPath struct {
	FieldPath
	pos fileerr.Position
}

// IsReplacementsFile reports whether a YAML file is a replacements file:
// a map with the key replacements. Other YAML patch files are lists.
func IsReplacementsFile(src []byte) bool {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "replacements" {
			return true
		}
	}
	return false
}

// Parse reads and compiles a replacements file: a YAML map whose only key,
// replacements, holds a kustomization's inline replacements list. Every
// problem is a *fileerr.ParseError with its position, all of them in a
// fileerr.List.
func Parse(name string, src []byte) (*Replacements, error) {
	p := &parser{file: name}
	r := &Replacements{name: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		p.errorf(nil, fileerr.ErrSyntax, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, p.errs
	}
	if len(doc.Content) == 0 {
		return r, nil
	}
	list := p.root(doc.Content[0])
	for _, item := range list {
		if rp := p.replacement(item); rp != nil {
			r.items = append(r.items, rp)
		}
	}
	if len(p.errs) > 0 {
		fileerr.SortParseErrors(p.errs)
		return nil, p.errs
	}
	return r, nil
}

// parser collects the errors of one file.
type parser struct {
	file string
	errs fileerr.List
}

func (p *parser) pos(n *yaml.Node) fileerr.Position {
	if n == nil {
		return fileerr.Position{File: p.file, Line: 1, Column: 1}
	}
	return fileerr.Position{File: p.file, Line: n.Line, Column: n.Column}
}

func (p *parser) errorf(n *yaml.Node, sentinel error, format string, args ...any) {
	p.errs = append(p.errs, &fileerr.ParseError{Pos: p.pos(n), Err: sentinel, Msg: fmt.Sprintf(format, args...)})
}

// root checks the top level and returns the items of the list.
func (p *parser) root(n *yaml.Node) []*yaml.Node {
	fields := p.fields(n, "a replacements file", "replacements")
	list := fields["replacements"]
	if list == nil || isNull(list) {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		p.errorf(list, fileerr.ErrSyntax, "replacements is a list, as in a kustomization")
		return nil
	}
	return list.Content
}

// fields checks that n is a map with only the given keys, each once, and
// returns their values.
func (p *parser) fields(n *yaml.Node, what string, keys ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, fileerr.ErrSyntax, "%s is a map with the keys %s", what, strings.Join(keys, ", "))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := canonicalKey(k.Value, keys)
		switch {
		case key == "":
			p.errorf(k, fileerr.ErrSyntax, "unknown field %q in %s; expected %s", k.Value, what, strings.Join(keys, ", "))
		case out[key] != nil:
			p.errorf(k, fileerr.ErrSyntax, "duplicate key %q in %s", k.Value, what)
		default:
			out[key] = v
		}
	}
	return out
}

// canonicalKey returns the key of keys that k names: itself, or one that
// differs only in case, as kustomize's JSON decoding of a kustomization
// accepts; "" for none.
func canonicalKey(k string, keys []string) string {
	if slices.Contains(keys, k) {
		return k
	}
	for _, key := range keys {
		if strings.EqualFold(k, key) {
			return key
		}
	}
	return ""
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// str reads a scalar as text; null is empty.
func (p *parser) str(n *yaml.Node, what string) string {
	if n == nil || isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, fileerr.ErrValue, "%s is a string", what)
		return ""
	}
	return n.Value
}

// replacement reads one item of the list.
func (p *parser) replacement(n *yaml.Node) *replacement {
	f := p.fields(n, "a replacement", "source", "sourceValue", "targets", "path")
	if f["path"] != nil {
		p.errorf(f["path"], fileerr.ErrSyntax, "path: a replacements file holds the replacements themselves; paste the content of %q here", p.str(f["path"], "path"))
		return nil
	}
	rp := &replacement{pos: p.pos(n)}
	hasValue := f["sourceValue"] != nil && !isNull(f["sourceValue"])
	hasSource := f["source"] != nil && !isNull(f["source"])
	targets := f["targets"]
	switch {
	case (!hasValue && !hasSource) || targets == nil || isNull(targets):
		p.errorf(n, fileerr.ErrSyntax, "replacements must specify a source and at least one target")
		return nil
	case hasValue && hasSource:
		p.errorf(f["sourceValue"], fileerr.ErrSyntax, "value and resource selectors are mutually exclusive")
		return nil
	case hasValue:
		rp.literal = p.str(f["sourceValue"], "sourceValue")
	default:
		rp.source = p.source(f["source"])
	}
	if targets.Kind != yaml.SequenceNode {
		p.errorf(targets, fileerr.ErrSyntax, "targets is a list of targets")
		return nil
	}
	for _, t := range targets.Content {
		if tg := p.target(t); tg != nil {
			rp.targets = append(rp.targets, tg)
		}
	}
	return rp
}

var idKeys = []string{"group", "version", "kind", "name", "namespace"}

// source reads a source selector.
func (p *parser) source(n *yaml.Node) *source {
	f := p.fields(n, "a source", append(slices.Clone(idKeys), "fieldPath", "options")...)
	s := &source{pos: p.pos(n), pathPos: p.pos(n)}
	s.id = p.resID(f)
	text := DefaultFieldPath
	if fp := p.str(f["fieldPath"], "fieldPath"); fp != "" {
		text, s.pathPos, s.given = fp, p.pos(f["fieldPath"]), fp
	}
	path, err := ParseSourcePath(text)
	if err != nil {
		p.errorf(f["fieldPath"], fileerr.ErrSyntax, "fieldPath %q: error looking up replacement source: %s", text, err)
	}
	s.path = path
	s.opts = p.options(f["options"], n)
	return s
}

func (p *parser) resID(f map[string]*yaml.Node) ResID {
	return ResID{
		Group:     p.str(f["group"], "group"),
		Version:   p.str(f["version"], "version"),
		Kind:      p.str(f["kind"], "kind"),
		Name:      p.str(f["name"], "name"),
		Namespace: p.str(f["namespace"], "namespace"),
	}
}

// options reads the options of a source or target; without them, the
// owner's position stands for them in errors.
func (p *parser) options(n, owner *yaml.Node) options {
	o := options{pos: p.pos(owner)}
	if n == nil || isNull(n) {
		return o
	}
	o.pos = p.pos(n)
	f := p.fields(n, "options", "delimiter", "index", "create", "encoding")
	o.delimiter = p.str(f["delimiter"], "delimiter")
	if v := f["index"]; v != nil && !isNull(v) {
		i, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			p.errorf(v, fileerr.ErrValue, "index is an integer, got %q", v.Value)
		}
		o.index = i
	}
	if v := f["create"]; v != nil && !isNull(v) {
		if v.Kind != yaml.ScalarNode || v.Decode(&o.create) != nil {
			p.errorf(v, fileerr.ErrValue, "create is true or false, got %q", v.Value)
		}
	}
	p.str(f["encoding"], "encoding") // accepted and, as in kustomize, not used
	return o
}

// target reads one target.
func (p *parser) target(n *yaml.Node) *target {
	f := p.fields(n, "a target", "select", "reject", "fieldPaths", "options")
	t := &target{pos: p.pos(n)}
	if f["select"] == nil || isNull(f["select"]) {
		p.errorf(n, fileerr.ErrSyntax, "target must specify resources to select")
		return nil
	}
	t.sel.sel = p.selector(f["select"], "select")
	if r := f["reject"]; r != nil && !isNull(r) {
		if r.Kind != yaml.SequenceNode {
			p.errorf(r, fileerr.ErrSyntax, "reject is a list of selectors")
		} else {
			for _, s := range r.Content {
				t.sel.rejects = append(t.sel.rejects, p.selector(s, "reject"))
			}
		}
	}
	t.opts = p.options(f["options"], n)
	t.paths = p.targetPaths(f["fieldPaths"], n, t.opts.create)
	return t
}

func (p *parser) targetPaths(n, owner *yaml.Node, create bool) []targetPath {
	if n == nil || isNull(n) {
		fp, _ := ParseTargetPath(DefaultFieldPath)
		return []targetPath{{FieldPath: fp, pos: p.pos(owner)}}
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, fileerr.ErrSyntax, "fieldPaths is a list of field paths")
		return nil
	}
	var out []targetPath
	for _, e := range n.Content {
		text := p.str(e, "a field path")
		fp, err := ParseTargetPath(text)
		tp := targetPath{FieldPath: fp, pos: p.pos(e)}
		if err != nil {
			tp.text = text
			p.errorf(e, fileerr.ErrSyntax, "%s: %s", tp.notFound(create), err)
			continue
		}
		out = append(out, tp)
	}
	return out
}

// selector reads and compiles a select or reject.
func (p *parser) selector(n *yaml.Node, what string) *selector {
	f := p.fields(n, what, append(slices.Clone(idKeys), "labelSelector", "annotationSelector")...)
	s := &selector{id: p.resID(f)}
	for _, c := range []struct {
		key string
		re  **regexp.Regexp
		val string
	}{
		{"group", &s.group, s.id.Group}, {"version", &s.version, s.id.Version}, {"kind", &s.kind, s.id.Kind},
		{"name", &s.name, s.id.Name}, {"namespace", &s.namespace, s.id.Namespace},
	} {
		if c.val == "" {
			continue
		}
		re, err := regexp.Compile("^(?:" + c.val + ")$")
		if err != nil {
			p.errorf(f[c.key], fileerr.ErrValue, "error creating target selector: %s", err)
		}
		*c.re = re
	}
	s.labels = p.labelSelector(f["labelSelector"])
	s.annotations = p.labelSelector(f["annotationSelector"])
	return s
}

func (p *parser) labelSelector(n *yaml.Node) labels.Selector {
	text := p.str(n, "a label selector")
	if text == "" {
		return nil
	}
	sel, err := labels.Parse(text)
	if err != nil {
		p.errorf(n, fileerr.ErrValue, "%s", err)
		return nil
	}
	return sel
}
