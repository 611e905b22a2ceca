package kpatch

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"kpatch.dev/kpatch/pkg/fieldtype"
)

// CustomResourceSchema is the structural schema of one API version of a
// custom resource, read from its CustomResourceDefinition: what the
// files write into an object of that kind takes its fields' types from
// it, as it takes a built-in kind's from its Go types (see
// ApplyOptions.Schemas). Immutable.
type CustomResourceSchema struct {
	root *typeNode
}

// NewCustomResourceSchema reads the schema of a custom resource of kind
// from its CRD version's OpenAPI v3 schema. Fields the schema leaves
// free (those x-kubernetes-preserve-unknown-fields keeps beside the
// properties it names, an object without properties) take values as
// written.
func NewCustomResourceSchema(kind string, s *apiextensionsv1.JSONSchemaProps) *CustomResourceSchema {
	return &CustomResourceSchema{root: customNode(kind, s, true)}
}

// customNode builds the node of s, named name for messages; top is the
// root of a resource (or an embedded one), whose apiVersion, kind and
// metadata the API server knows whatever the schema says.
func customNode(name string, s *apiextensionsv1.JSONSchemaProps, top bool) *typeNode {
	n := &typeNode{name: name}
	preserves := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	switch {
	case s.XIntOrString:
		n.kind, n.bits = tIntOrString, 64 // the API server takes any int64
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		n.kind, n.elem = tMap, customNode(name+".*", s.AdditionalProperties.Schema, s.AdditionalProperties.Schema.XEmbeddedResource)
	case s.Type == "object" && (len(s.Properties) > 0 || top):
		n.kind, n.fields, n.open = tStruct, make(map[string]*typeNode, len(s.Properties)+3), preserves
		for _, key := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[key]
			n.fields[key] = customNode(name+"."+key, &p, p.XEmbeddedResource)
		}
		if top {
			n.fields["apiVersion"], n.fields["kind"] = stringNode, stringNode
			n.fields["metadata"] = objectMetaNode()
		}
		n.names = slices.Sorted(maps.Keys(n.fields))
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil:
		n.kind, n.elem = tList, customNode(name+"[]", s.Items.Schema, s.Items.Schema.XEmbeddedResource)
		if s.XListType != nil && *s.XListType == "map" && len(s.XListMapKeys) > 0 {
			n.listKeys, n.keyDefaults = slices.Clone(s.XListMapKeys), ListKeyDefaults(s.Items.Schema, s.XListMapKeys)
		}
	case s.Type == "string":
		n.kind = tString
		for _, e := range s.Enum {
			var v string
			if json.Unmarshal(e.Raw, &v) == nil && v != "" {
				n.enum = append(n.enum, v)
			}
		}
		if n.enum != nil {
			slices.Sort(n.enum)
			n.enum = slices.Compact(n.enum)
		}
	case s.Type == "integer":
		n.kind, n.bits = tInt, 64
	case s.Type == "number":
		n.kind = tFloat
	case s.Type == "boolean":
		n.kind = tBool
	default:
		n.kind = tAny
	}
	return n
}

// anyResource is the schema of a custom resource whose CRD kpatch does
// not know: its metadata is an object's metadata, as the API server
// holds every resource's; its other fields take values as written.
var anyResource = sync.OnceValue(func() *typeNode {
	n := &typeNode{kind: tStruct, name: "resource", open: true, fields: map[string]*typeNode{
		"apiVersion": stringNode, "kind": stringNode, "metadata": objectMetaNode(),
	}}
	n.names = slices.Sorted(maps.Keys(n.fields))
	return n
})

// ListKeyDefaults are the defaults that the schema of a list's items
// gives its keys (x-kubernetes-list-map-keys), integers as int64 as
// objects hold them; nil when it gives none.
func ListKeyDefaults(items *apiextensionsv1.JSONSchemaProps, keys []string) []any {
	var out []any
	for i, k := range keys {
		p, ok := items.Properties[k]
		if !ok || p.Default == nil {
			continue
		}
		var v any
		if utiljson.Unmarshal(p.Default.Raw, &v) != nil {
			continue
		}
		if out == nil {
			out = make([]any, len(keys))
		}
		out[i] = v
	}
	return out
}

// objectMetaNode is the type of an object's metadata.
func objectMetaNode() *typeNode {
	schemas.once.Do(loadSchemas)
	return schemas.nodes[reflect.TypeFor[metav1.ObjectMeta]()]
}

// FieldType is the type of the scalar field at path (keys, and list
// items by index), as a replacement types what it writes:
// fieldtype.Unknown where the schema does not say.
func (s *CustomResourceSchema) FieldType(path []string) fieldtype.Type {
	if n := nodeAlong(s.root, path); n != nil {
		return scalarFieldType(n)
	}
	return fieldtype.Unknown
}

// nodeAlong is the type at path (keys, and list items by index) below n,
// or nil where the schema does not say.
func nodeAlong(n *typeNode, path []string) *typeNode {
	for _, part := range path {
		switch n.kind {
		case tStruct:
			n = n.fields[part]
		case tMap, tList:
			n = n.elem
		default:
			n = nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}

// scalarFieldType is the replacement's name for the type of a scalar
// field n; fieldtype.Unknown for any other.
func scalarFieldType(n *typeNode) fieldtype.Type {
	switch n.kind {
	case tString, tBytes:
		return fieldtype.String
	case tInt:
		return fieldtype.Integer
	case tFloat:
		return fieldtype.Number
	case tBool:
		return fieldtype.Boolean
	}
	return fieldtype.Unknown
}

// customLeaf is the type that the steps of a plan resolved without a
// schema reach in the schema below n (a custom resource's), or nil where
// the schema does not say: a free-form field, a field it does not name
// (which the check of the result reports), an image part (its text is
// spliced into the image).
func customLeaf(n *typeNode, steps []step) *typeNode {
	for _, st := range steps {
		if n == nil || n.kind == tAny {
			return nil
		}
		switch x := st.(type) {
		case *fieldStep:
			n = customField(n, x.name)
		case keyStep:
			n = customField(n, x.text)
		case itemsFieldStep:
			n = customField(n, x.name)
		case *indexStep:
			n = customIndex(n, x.text)
		case *selectStep, *allStep, *insertStep:
			n = listItem(n)
		case *allContainersStep:
			n = fieldNode(n, allContainersField)
		case maybeImagePartStep:
			if n.kind == tString {
				return nil // an image part: its text goes into the reference
			}
			n = customField(n, x.name) // image is an object: tag is its field
		default:
			return nil
		}
	}
	return n
}

// customField is the type of the field name of a value of type n: of
// each item's, on a list of objects.
func customField(n *typeNode, name string) *typeNode {
	if n.kind == tList && (n.elem.kind == tStruct || n.elem.kind == tMap) {
		n = n.elem
	}
	switch n.kind {
	case tStruct:
		return n.fields[name]
	case tMap:
		return n.elem
	}
	return nil
}

// customIndex is the type that an index (text) reaches in a value of
// type n: a list's item, or a map's or object's field.
func customIndex(n *typeNode, text string) *typeNode {
	switch n.kind {
	case tStruct:
		return n.fields[text]
	case tMap, tList:
		return n.elem
	}
	return nil
}

// listItem is the type of an item of the list n.
func listItem(n *typeNode) *typeNode {
	if n.kind == tList {
		return n.elem
	}
	return nil
}

// customItemsOfNothing reports, for a plan resolved without a schema on a
// custom resource, whether the steps from the cursor's on, performed on
// the value the cursor meets, which does not exist, go through every
// item of a list before they write anything, as its schema says (a
// field written on a list is written on each of its items): a list that
// does not exist has no items, and the steps write nothing, as
// itemsOfNothing finds for a built-in kind.
func (a *applier) customItemsOfNothing(c cursor) bool {
	base := a.customBase()
	if c.pl.typed || base == nil {
		return false
	}
	return listOfNothing(customLeaf(base, c.pl.steps[:c.i]), c.pl.steps[c.i:])
}

// listOfNothing reports whether steps, performed on a value of type n
// that does not exist, go through every item of a list before they write
// anything (a field of a list is each item's).
func listOfNothing(n *typeNode, steps []step) bool {
	for _, st := range steps {
		if n == nil {
			return false
		}
		switch x := st.(type) {
		case *fieldStep:
			if n.kind == tList {
				return true
			}
			n = customField(n, x.name)
		case *allStep:
			return true
		default:
			return false
		}
	}
	return false
}

// customListKeys is the list an insertion of a plan resolved without a
// schema meets on a custom resource, when its CRD makes it a map
// (listKeys: x-kubernetes-list-map-keys); nil otherwise.
func (a *applier) customListKeys(c cursor) *typeNode {
	base := a.customBase()
	if c.pl.typed || base == nil {
		return nil
	}
	if n := customLeaf(base, c.pl.steps[:c.i]); n != nil && n.kind == tList && n.listKeys != nil {
		return n
	}
	return nil
}

// customBase is the schema the running plan's steps start from: the
// custom resource's, or the item an insertion is building.
func (a *applier) customBase() *typeNode {
	if a.building {
		return a.item
	}
	return a.custom
}
