package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// CRDs are the structural schemas of custom resources, by apiVersion and
// kind, read from CustomResourceDefinitions. Immutable once built.
type CRDs struct {
	roots map[[2]string]*crdNode
	// written are the schemas the engine types writes with, built on
	// first use (a CRD's kinds that no object of the namespace meets
	// cost nothing).
	written map[[2]string]*writtenSchema
}

// writtenSchema is one version's schema as the engine reads it.
type writtenSchema struct {
	once   sync.Once
	kind   string
	props  *apiextensionsv1.JSONSchemaProps
	schema *kpatch.CustomResourceSchema
}

// NewCRDs reads the schemas of the served versions of crds. A version
// without a schema is not checked.
func NewCRDs(crds []*apiextensionsv1.CustomResourceDefinition) *CRDs {
	c := &CRDs{roots: map[[2]string]*crdNode{}, written: map[[2]string]*writtenSchema{}}
	for _, crd := range crds {
		for i := range crd.Spec.Versions {
			v := &crd.Spec.Versions[i]
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			apiVersion := crd.Spec.Group + "/" + v.Name
			key := [2]string{apiVersion, crd.Spec.Names.Kind}
			c.roots[key] = newCRDNode(v.Schema.OpenAPIV3Schema, true)
			c.written[key] = &writtenSchema{kind: crd.Spec.Names.Kind, props: v.Schema.OpenAPIV3Schema}
		}
	}
	return c
}

// Len is the number of kinds and versions the CRDs give a schema.
func (c *CRDs) Len() int { return len(c.roots) }

func (c *CRDs) root(apiVersion, kind string) node {
	if r := c.roots[[2]string{apiVersion, kind}]; r != nil {
		return r
	}
	return nil
}

// Schema returns the schema that types what the files write into a
// custom resource of apiVersion and kind (kpatch.ApplyOptions.Schemas),
// or nil when no CRD gives one.
func (c *CRDs) Schema(apiVersion, kind string) *kpatch.CustomResourceSchema {
	w := c.written[[2]string{apiVersion, kind}]
	if w == nil {
		return nil
	}
	w.once.Do(func() { w.schema = kpatch.NewCustomResourceSchema(w.kind, w.props) })
	return w.schema
}

// crdNode is a node of a structural schema.
type crdNode struct {
	s     *apiextensionsv1.JSONSchemaProps
	kind  shape
	top   bool // a resource's root: its metadata is ObjectMeta
	names []string
	enum  []any
}

// newCRDNode builds the node of s; top is the root of a resource (or an
// embedded one), whose apiVersion, kind and metadata the API server
// knows whatever the schema says.
func newCRDNode(s *apiextensionsv1.JSONSchemaProps, top bool) *crdNode {
	n := &crdNode{s: s, top: top}
	switch {
	case s.XIntOrString:
		n.kind = shapeScalar
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		n.kind = shapeMap
	case s.Type == "object" && (len(s.Properties) > 0 || top || s.XEmbeddedResource):
		n.kind = shapeObject // with preserves, the fields it does not name are free
		names := slices.Collect(maps.Keys(s.Properties))
		if top || s.XEmbeddedResource {
			names = append(names, "apiVersion", "kind", "metadata")
		}
		slices.Sort(names)
		n.names = slices.Compact(names)
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil:
		n.kind = shapeList
	case s.Type == "string" || s.Type == "integer" || s.Type == "number" || s.Type == "boolean":
		n.kind = shapeScalar
	default:
		n.kind = shapeAny
	}
	for _, e := range s.Enum {
		var v any
		if json.Unmarshal(e.Raw, &v) == nil {
			n.enum = append(n.enum, v)
		}
	}
	return n
}

// preserves reports whether an object keeps fields its schema does not
// name.
func preserves(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

func (n *crdNode) shape() shape { return n.kind }

func (n *crdNode) field(name string) (node, bool) {
	if name == "metadata" && (n.top || n.s.XEmbeddedResource) {
		return objectMeta(), true
	}
	if p, ok := n.s.Properties[name]; ok {
		return newCRDNode(&p, p.XEmbeddedResource), true
	}
	if (name == "apiVersion" || name == "kind") && (n.top || n.s.XEmbeddedResource) {
		return &crdNode{s: &apiextensionsv1.JSONSchemaProps{Type: "string"}, kind: shapeScalar}, true
	}
	if preserves(n.s) {
		return freeNode, true // kept as written
	}
	return nil, false
}

// freeNode is a field that holds anything: one that
// x-kubernetes-preserve-unknown-fields keeps.
var freeNode = &crdNode{s: &apiextensionsv1.JSONSchemaProps{}, kind: shapeAny}

// anyResource is the schema of a custom resource whose CRD is not known:
// an object's metadata, the rest free, as the API server holds every
// resource's metadata.
var anyResource = newCRDNode(&apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}, true)

func ptrTo[T any](v T) *T { return &v }

func (n *crdNode) fieldNames() []string { return n.names }

func (n *crdNode) required() []string { return n.s.Required }

func (n *crdNode) elem() node {
	if n.kind == shapeList {
		return newCRDNode(n.s.Items.Schema, n.s.Items.Schema.XEmbeddedResource)
	}
	return newCRDNode(n.s.AdditionalProperties.Schema, false)
}

func (n *crdNode) describe() string {
	switch {
	case n.s.XIntOrString:
		return "an integer or a string"
	case n.kind == shapeObject:
		return "an object"
	case n.kind == shapeMap:
		return "a map"
	case n.kind == shapeList:
		return "a list"
	}
	switch n.s.Type {
	case "string":
		return "a string"
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "boolean":
		return "a boolean"
	}
	return "free-form"
}

// check is the problem of a scalar against the schema's type and enum.
func (n *crdNode) check(v any) string {
	ok := true
	switch {
	case n.s.XIntOrString:
		_, isStr := v.(string)
		ok = isStr || integer(v)
	case n.s.Type == "string":
		_, ok = v.(string)
	case n.s.Type == "boolean":
		_, ok = v.(bool)
	case n.s.Type == "integer":
		ok = integer(v)
	case n.s.Type == "number":
		f, isNum := jsonvalue.Float(v)
		ok = isNum && jsonvalue.IsNumber(v) && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	if !ok {
		return "the field is " + n.describe() + ", not " + describeValue(v)
	}
	if n.enum == nil || slices.ContainsFunc(n.enum, func(e any) bool { return jsonvalue.Equal(e, v) }) {
		return ""
	}
	texts := make([]string, len(n.enum))
	for i, e := range n.enum {
		texts[i], _ = jsonvalue.Text(e)
	}
	text, _ := jsonvalue.Text(v)
	hint := ""
	if _, isStr := v.(string); isStr {
		hint = kpatch.DidYouMean(text, texts)
	}
	return strconv.Quote(text) + " is not one of " + strings.Join(texts, ", ") + hint
}

// duplicate finds two items of a list that the CRD makes a map
// (x-kubernetes-list-type: map) with the same keys, a key an item lacks
// (or null) taking its default, or a set with the same value: the API
// server refuses either. Values are the same when they have the same
// JSON text: 1.0 is written 1, which the API server reads as 1.
func (n *crdNode) duplicate(items []any) string {
	if n.s.XListType == nil || len(items) < 2 {
		return ""
	}
	keys := n.s.XListMapKeys
	switch {
	case *n.s.XListType == "map" && len(keys) > 0:
	case *n.s.XListType == "set":
		keys = nil
	default:
		return ""
	}
	var defaults []any
	if keys != nil && n.s.Items != nil && n.s.Items.Schema != nil {
		defaults = kpatch.ListKeyDefaults(n.s.Items.Schema, keys)
	}
	seen := make(map[string]int, len(items))
	var b strings.Builder
	for i, item := range items {
		b.Reset()
		values := []any{item}
		if keys != nil {
			m, _ := item.(map[string]any)
			values = make([]any, len(keys))
			for j, k := range keys {
				v := m[k]
				if v == nil && defaults != nil {
					v = defaults[j] // absent or null: the API server defaults it
				}
				values[j] = v
			}
		}
		for _, v := range values {
			text, err := json.Marshal(v)
			if err != nil {
				return ""
			}
			b.Write(text)
			b.WriteByte(0)
		}
		if j, ok := seen[b.String()]; ok {
			if keys == nil {
				text, _ := json.Marshal(item)
				return fmt.Sprintf("items [%d] and [%d] are the same (%s); the CRD makes the list a set", j, i, text)
			}
			pairs := make([]string, len(keys))
			for k, key := range keys {
				text, _ := json.Marshal(values[k])
				pairs[k] = key + ": " + string(text)
			}
			return fmt.Sprintf("items [%d] and [%d] have the same keys (%s); the CRD makes the list a map keyed by them", j, i, strings.Join(pairs, ", "))
		}
		seen[b.String()] = i
	}
	return ""
}

var _ uniqueItems = (*crdNode)(nil)

// integer reports whether v is a number whose JSON text is an integer.
func integer(v any) bool {
	if !jsonvalue.IsNumber(v) {
		return false
	}
	text, _ := jsonvalue.Text(v)
	_, err := strconv.ParseInt(text, 10, 64)
	return err == nil
}
