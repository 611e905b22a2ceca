package parameters

import (
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/variables"
)

// SchemaKey is the ConfigMap key, and the usual file name, of a
// parameter schema.
const SchemaKey = "parameters.yaml"

// nameRE is a parameter name: a variable name of patch files that is
// also the name part of the annotation key values.kpatch.dev/NAME.
var nameRE = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$`)

// parameterKeys are the keys of a parameter declaration.
var parameterKeys = []string{"name", "type", "required", "default", "description", "enum", "pattern", "minimum", "maximum", "fromObject"}

// Parse compiles a parameter schema:
//
//	parameters:
//	- {name: replicas, type: integer, default: 2, minimum: 1, maximum: 50}
//
// name is the file's name in positions. Every problem is reported, as an
// *Error with its file:line:column, in a fileerr.List; no Schema is
// returned then. An empty document declares no parameter.
func Parse(name string, src []byte) (*Schema, error) {
	b := &schemaBuilder{file: name, schema: &Schema{byName: map[string]*Parameter{}}, declared: map[string]Source{}}
	root, yerr := parseYAML(name, src)
	if yerr != nil {
		b.errs.add(yerr)
		return nil, b.errs.Err()
	}
	if list := b.parametersList(root); list != nil {
		for i, item := range list.Content {
			b.declare(item, i+1)
		}
	}
	b.linkDefaults()
	if len(b.errs.List) > 0 {
		sortBySource(b.errs.List)
		return nil, b.errs.Err()
	}
	return b.schema, nil
}

// schemaBuilder collects a schema and its errors.
type schemaBuilder struct {
	file   string
	schema *Schema
	errs   errorList
	reader valueReader
	// declared holds every name declared, including those whose
	// declaration has errors and is not in the schema.
	declared map[string]Source
}

func (b *schemaBuilder) at(n *yaml.Node) Source {
	return Source{Name: b.file, Line: n.Line, Column: n.Column}
}

func (b *schemaBuilder) fail(n *yaml.Node, param string, sentinel error, format string, args ...any) {
	b.errs.addf(b.at(n), param, sentinel, format, args...)
}

// parametersList returns the list under the document's parameters: key.
func (b *schemaBuilder) parametersList(root *yaml.Node) *yaml.Node {
	if root == nil {
		return nil
	}
	root = deref(root)
	if root.Kind != yaml.MappingNode {
		b.fail(root, "", ErrSyntax, "a parameter schema is a map with the list parameters:")
		return nil
	}
	var list *yaml.Node
	b.fields(root, "", []string{"parameters"}, func(key string, v *yaml.Node) { list = v })
	if list == nil {
		return nil
	}
	list = deref(list)
	if list.ShortTag() == "!!null" {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		b.fail(list, "", ErrSyntax, "parameters is a list of declarations (- name: ..., type: ...)")
		return nil
	}
	return list
}

// fields calls f for every key of the map n, in order, reporting keys
// that are not scalars, not in known, or given twice.
func (b *schemaBuilder) fields(n *yaml.Node, param string, known []string, f func(key string, v *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, kerr := mapKey(k)
		switch {
		case kerr != nil:
			b.errs.add(kerr.at(b.at(kerr.node), param))
		case seen[key]:
			b.fail(k, param, ErrDuplicate, "key %s is given twice", key)
		case !slices.Contains(known, key):
			b.fail(k, param, ErrSyntax, "unknown key %s; expected %s", quoteText(key), strings.Join(known, ", "))
		default:
			seen[key] = true
			f(key, deref(v))
		}
	}
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// declare reads the i-th declaration (counting from 1) into the schema.
func (b *schemaBuilder) declare(item *yaml.Node, i int) {
	item = deref(item)
	if item.Kind != yaml.MappingNode {
		b.fail(item, "", ErrSyntax, "parameter %d: a declaration is a map with name, type and more", i)
		return
	}
	fields := map[string]*yaml.Node{}
	name, nameNode := b.name(item, i)
	b.fields(item, name, parameterKeys, func(key string, v *yaml.Node) { fields[key] = v })
	if name == "" {
		return
	}
	p := &Parameter{name: name, src: b.at(item), index: len(b.schema.params)}
	if prev, dup := b.declared[name]; dup {
		b.fail(nameNode, name, ErrDuplicate, "declared twice; first at line %d", prev.Line)
		return
	}
	b.declared[name] = p.src
	if !b.declareType(p, fields["type"], item) {
		return
	}
	p.required = b.flag(fields["required"], p)
	p.fromObject = b.flag(fields["fromObject"], p)
	if d := fields["description"]; d != nil {
		p.description = b.text(d, p, "description")
	}
	ok := b.declarePattern(p, fields["pattern"])
	ok = b.declareBounds(p, fields["minimum"], fields["maximum"]) && ok
	ok = b.declareEnum(p, fields["enum"]) && ok
	if ok {
		b.declareDefault(p, fields["default"])
	}
	b.schema.params = append(b.schema.params, p)
	b.schema.byName[name] = p
}

// name reads and checks the declaration's name; empty when it has none.
func (b *schemaBuilder) name(item *yaml.Node, i int) (string, *yaml.Node) {
	var n *yaml.Node
	for j := 0; j+1 < len(item.Content); j += 2 {
		if item.Content[j].Value == "name" && item.Content[j].Kind == yaml.ScalarNode {
			n = deref(item.Content[j+1])
			break
		}
	}
	switch {
	case n == nil:
		b.fail(item, "", ErrSyntax, "parameter %d has no name", i)
	case n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str":
		b.fail(n, "", ErrDeclaration, "parameter %d: the name must be text", i)
	case !nameRE.MatchString(n.Value):
		b.fail(n, "", ErrDeclaration, "parameter %d: invalid name %s: a name starts with a letter, holds letters, digits, '-' and '_', ends with a letter or digit, and has at most 63 characters (it is also the annotation key %sNAME)", i, quoteText(n.Value), AnnotationPrefix)
	default:
		return n.Value, n
	}
	return "", nil
}

func (b *schemaBuilder) declareType(p *Parameter, n, item *yaml.Node) bool {
	switch {
	case n == nil:
		b.fail(item, p.name, ErrDeclaration, "type is required; one of %s", typeNames())
	case n.Kind != yaml.ScalarNode || !knownType(n.Value):
		b.fail(n, p.name, ErrDeclaration, "unknown type %s; expected one of %s", quoteText(n.Value), typeNames())
	default:
		p.typ = Type(n.Value)
		return true
	}
	return false
}

// flag reads a boolean key of a declaration; absent is false.
func (b *schemaBuilder) flag(n *yaml.Node, p *Parameter) bool {
	if n == nil {
		return false
	}
	v, ok := b.value(n, p)
	if !ok {
		return false
	}
	f, isBool := v.(bool)
	if !isBool {
		b.fail(n, p.name, ErrType, "expected true or false, got %s", describe(v))
	}
	return f
}

// text reads a key that holds text: any scalar, as written.
func (b *schemaBuilder) text(n *yaml.Node, p *Parameter, key string) string {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		b.fail(n, p.name, ErrType, "%s must be text", key)
		return ""
	}
	return n.Value
}

// value reads a node as a value, reporting a problem at its position.
func (b *schemaBuilder) value(n *yaml.Node, p *Parameter) (any, bool) {
	v, err := b.reader.value(n)
	if err != nil {
		b.errs.add(err.at(b.at(err.node), p.name))
		return nil, false
	}
	return v, true
}

// applies reports a key that does not apply to the parameter's type.
func (b *schemaBuilder) applies(n *yaml.Node, p *Parameter, key string, to ...Type) bool {
	if n == nil || slices.Contains(to, p.typ) {
		return true
	}
	names := make([]string, len(to))
	for i, t := range to {
		names[i] = string(t)
	}
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + list
	}
	b.fail(n, p.name, ErrDeclaration, "%s applies to %s parameters, not to %s", key, list, p.typ.article())
	return false
}

func (b *schemaBuilder) declarePattern(p *Parameter, n *yaml.Node) bool {
	if n == nil {
		return true
	}
	if !b.applies(n, p, "pattern", String) {
		return false
	}
	text := b.text(n, p, "pattern")
	re, err := regexp.Compile(text)
	if err != nil {
		b.fail(n, p.name, ErrDeclaration, "invalid pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return false
	}
	p.pattern = re
	return true
}

func (b *schemaBuilder) declareBounds(p *Parameter, minN, maxN *yaml.Node) bool {
	ok := b.applies(minN, p, "minimum", Integer, Number)
	ok = b.applies(maxN, p, "maximum", Integer, Number) && ok
	if !ok {
		return false
	}
	p.min, ok = b.bound(p, minN, "minimum")
	var okMax bool
	p.max, okMax = b.bound(p, maxN, "maximum")
	if !ok || !okMax {
		return false
	}
	if p.min != nil && p.max != nil && less(p.max, p.min) {
		b.fail(minN, p.name, ErrDeclaration, "minimum %s is more than maximum %s", formatValue(p.min), formatValue(p.max))
		return false
	}
	return true
}

// bound reads a minimum or maximum as a value of the parameter's type.
func (b *schemaBuilder) bound(p *Parameter, n *yaml.Node, key string) (any, bool) {
	if n == nil {
		return nil, true
	}
	v, ok := b.value(n, p)
	if !ok {
		return nil, false
	}
	t, perr := p.typ.accept(v)
	if perr != nil {
		b.fail(n, p.name, ErrType, "%s: %s", key, perr.msg)
		return nil, false
	}
	return t, true
}

func (b *schemaBuilder) declareEnum(p *Parameter, n *yaml.Node) bool {
	if n == nil {
		return true
	}
	if !b.applies(n, p, "enum", String, Integer, Number) {
		return false
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		b.fail(n, p.name, ErrDeclaration, "enum is a non-empty list of the allowed values")
		return false
	}
	ok := true
	for _, e := range n.Content {
		v, vok := b.value(deref(e), p)
		if !vok {
			ok = false
			continue
		}
		t, perr := p.typ.accept(v)
		if perr != nil {
			b.fail(e, p.name, ErrType, "enum value: %s", perr.msg)
			ok = false
			continue
		}
		p.enum = append(p.enum, t)
	}
	return ok
}

// declareDefault reads the default: a value of the parameter's type that
// fits its constraints, or text that uses other parameters.
func (b *schemaBuilder) declareDefault(p *Parameter, n *yaml.Node) {
	if n == nil {
		return
	}
	if p.required {
		b.fail(n, p.name, ErrDeclaration, "a required parameter has no default: drop required or the default")
		return
	}
	v, ok := b.value(n, p)
	if !ok {
		return
	}
	p.hasDefault, p.defSrc, p.def = true, b.at(n), v
	if s, isText := v.(string); isText && strings.Contains(s, "${") {
		parts, literal, perr := parseTemplate(s)
		if perr != nil {
			b.fail(n, p.name, perr.err, "default: %s", perr.msg)
			return
		}
		if parts != nil {
			p.tmpl = parts
			return
		}
		v = literal
	}
	t, perr := p.typ.accept(v)
	if perr == nil {
		perr = p.check(t)
	}
	if perr != nil {
		b.fail(n, p.name, perr.err, "default: %s", perr.msg)
		return
	}
	if _, isText := p.def.(string); !isText {
		p.def = t
	}
	p.defValue, p.defTexts = t, variables.TextsOf(n)
}
