package kpatch

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes/scheme"
)

// typeKind is the shape of a field, as the Go types of k8s.io/api say.
type typeKind uint8

const (
	tAny typeKind = iota // free-form: RawExtension, JSON, interface{}
	tString
	tBytes // []byte, base64 text in JSON
	tInt
	tFloat
	tBool
	tIntOrString
	tQuantity // resource.Quantity: a string or a number, parsed as a quantity
	tStruct
	tMap
	tList
)

// typeNode describes one field type. Nodes are built once and never
// changed, so compiled patches share them freely.
type typeNode struct {
	kind   typeKind
	name   string // the Go type, for messages
	bits   int    // size of an integer type
	elem   *typeNode
	fields map[string]*typeNode
	// mergeKeys are the patchMergeKey of a struct's list fields that
	// merge by key (containers by name).
	mergeKeys map[string]string
	// enum are the values a string of an enum type can hold, sorted; nil
	// when it takes any string (see enumOf).
	enum []string
	// names are a struct's field names, sorted, for suggestions.
	names []string
	// listKeys are the keys of a custom resource's list that its CRD
	// makes a map (x-kubernetes-list-type: map): what tells its items
	// apart, so that an insertion updates the item with its keys.
	listKeys []string
	// keyDefaults are the defaults the CRD gives listKeys (nil where it
	// gives none): an item without a key has its default.
	keyDefaults []any
	// open marks a custom resource's object that keeps the fields its
	// schema does not name (x-kubernetes-preserve-unknown-fields): those
	// take values as written.
	open bool
}

func (n *typeNode) describe() string {
	switch n.kind {
	case tString:
		return "a string"
	case tBytes:
		return "base64 bytes"
	case tInt:
		return "an integer"
	case tFloat:
		return "a number"
	case tBool:
		return "a boolean"
	case tIntOrString:
		return "an integer or a string"
	case tQuantity:
		return "a quantity"
	case tStruct:
		return "an object (" + n.name + ")"
	case tMap:
		return "a map"
	case tList:
		return "a list"
	}
	return "free-form"
}

// kindSchema is the schema of one built-in kind in one API version.
type kindSchema struct {
	gvk        schema.GroupVersionKind
	apiVersion string
	root       *typeNode
	// specPaths are the places a first segment is looked up in after the
	// top level and metadata, shallowest first: spec, embedded specs, the
	// pod spec.
	specPaths [][]string
	specSteps [][]step // specPaths as the steps of a shorthand's prefix
	// shorthandNames are the first segments a path can start with: the
	// top level's fields, labels and annotations, then the fields of the
	// spec chain, shallowest first (for suggestions).
	shorthandNames []string
	// workload marks a kind of @workload: its spec holds the pod spec at
	// podSpecSteps, and the pod's metadata is at podMetaSteps + metadata.
	workload     bool
	podSpecSteps []step
	podMetaSteps []step
	// superseded marks a version that names a replacement in the scheme
	// (apps/v1beta1 Deployment: apps/v1). Compile checks entries against
	// the versions that are not.
	superseded bool
}

var schemas struct {
	once   sync.Once
	byKind map[string][]*kindSchema  // lower-case kind
	byGVK  map[[2]string]*kindSchema // by apiVersion and kind as written
	nodes  map[reflect.Type]*typeNode
	// podSpec is the type of a pod spec.
	podSpec *typeNode
}

// schemasFor returns the schemas of every API version of a kind, matched
// case-insensitively; none for kinds without Go types.
func schemasFor(kind string) []*kindSchema {
	schemas.once.Do(loadSchemas)
	return schemas.byKind[strings.ToLower(kind)]
}

func loadSchemas() {
	schemas.nodes = map[reflect.Type]*typeNode{}
	schemas.byKind = map[string][]*kindSchema{}
	schemas.byGVK = map[[2]string]*kindSchema{}
	interned := prefixTable{}
	podSpec := nodeOf(reflect.TypeFor[corev1.PodSpec]())
	schemas.podSpec = podSpec
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" || strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") || gvk.Kind == "WatchEvent" || gvk.Kind == "Status" {
			continue
		}
		root := nodeOf(t)
		if root.kind != tStruct || root.fields["metadata"] == nil {
			continue
		}
		ks := &kindSchema{gvk: gvk, apiVersion: gvk.GroupVersion().String(), root: root, superseded: superseded(t)}
		podPath := podSpecPath(root, podSpec)
		ks.specPaths = specPaths(root, podPath)
		ks.shorthandNames = append(slices.Clone(root.names), "annotations", "labels")
		for _, sp := range ks.specPaths {
			ks.specSteps = append(ks.specSteps, interned.prefixSteps(sp))
			ks.shorthandNames = append(ks.shorthandNames, nodeAt(root, sp).names...)
		}
		if len(podPath) > 0 && podPath[0] == "spec" {
			ks.workload = true
			ks.podSpecSteps = interned.prefixSteps(podPath)
			ks.podMetaSteps = interned.prefixSteps(podPath[:len(podPath)-1])
		}
		key := strings.ToLower(gvk.Kind)
		schemas.byKind[key] = append(schemas.byKind[key], ks)
		schemas.byGVK[[2]string{ks.apiVersion, gvk.Kind}] = ks
	}
	for _, list := range schemas.byKind {
		markPrereleaseBesideGA(list)
		slices.SortFunc(list, compareSchemas)
	}
}

// superseded reports whether the Go type of a kind names a replacement
// that the scheme knows, as deprecated beta versions do.
func superseded(t reflect.Type) bool {
	r, ok := reflect.New(t).Interface().(interface {
		APILifecycleReplacement() schema.GroupVersionKind
	})
	return ok && !r.APILifecycleReplacement().Empty() && scheme.Scheme.Recognizes(r.APILifecycleReplacement())
}

// prerelease reports whether an API version is alpha or beta, by the
// Kubernetes naming of versions (v1beta1, v2alpha1).
func prerelease(gvk schema.GroupVersionKind) bool {
	return strings.Contains(gvk.Version, "alpha") || strings.Contains(gvk.Version, "beta")
}

// markPrereleaseBesideGA marks as superseded the alpha and beta versions
// of a kind whose group has a GA version of it (events.k8s.io/v1beta1
// Event beside events.k8s.io/v1).
func markPrereleaseBesideGA(list []*kindSchema) {
	ga := map[string]bool{}
	for _, ks := range list {
		if !prerelease(ks.gvk) {
			ga[ks.gvk.Group] = true
		}
	}
	for _, ks := range list {
		if ga[ks.gvk.Group] && prerelease(ks.gvk) {
			ks.superseded = true
		}
	}
}

// compareSchemas orders the versions of a kind: current before
// superseded, the core group first, then by group, newest version first.
func compareSchemas(a, b *kindSchema) int {
	switch {
	case a.superseded != b.superseded:
		if a.superseded {
			return 1
		}
		return -1
	case a.gvk.Group != b.gvk.Group:
		if a.gvk.Group == "" || b.gvk.Group == "" {
			return len(a.gvk.Group) - len(b.gvk.Group)
		}
		return strings.Compare(a.gvk.Group, b.gvk.Group)
	}
	return -version.CompareKubeAwareVersionStrings(a.gvk.Version, b.gvk.Version)
}

// schemaOf returns the schema of an API version and kind as an object
// writes them, or nil.
func schemaOf(apiVersion, kind string) *kindSchema {
	schemas.once.Do(loadSchemas)
	return schemas.byGVK[[2]string{apiVersion, kind}]
}

// specPaths finds the spec chain of a kind: every struct field named
// "spec" on the way from the root to the pod spec (at podPath), or the
// root's spec.
func specPaths(root *typeNode, podPath []string) [][]string {
	if podPath != nil {
		var out [][]string
		for i, seg := range podPath {
			if seg == "spec" {
				out = append(out, podPath[:i+1])
			}
		}
		return out
	}
	if spec := root.fields["spec"]; spec != nil && spec.kind == tStruct {
		return [][]string{{"spec"}}
	}
	return nil
}

// podSpecPath finds the path from the root to the pod spec, shallowest
// first, or nil when the kind has none.
func podSpecPath(root, podSpec *typeNode) []string {
	type item struct {
		node *typeNode
		path []string
	}
	queue := []item{{root, nil}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if it.node == podSpec {
			return it.path
		}
		if len(it.path) >= 6 || it.node.kind != tStruct {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(it.node.fields)) {
			if len(it.path) == 0 && (name == "metadata" || name == "status") {
				continue
			}
			path := append(append([]string(nil), it.path...), name)
			queue = append(queue, item{it.node.fields[name], path})
		}
	}
	return nil
}

type openAPITyped interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

var (
	openAPITypedType = reflect.TypeFor[openAPITyped]()
	quantityType     = reflect.TypeFor[resource.Quantity]()
	unmarshalerType  = reflect.TypeFor[json.Unmarshaler]()
)

// nodeOf builds the node of a Go type. Only loadSchemas calls it, once.
func nodeOf(t reflect.Type) *typeNode {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := schemas.nodes[t]; ok {
		return n
	}
	n := &typeNode{name: t.Name()}
	schemas.nodes[t] = n
	switch {
	case t == quantityType:
		n.kind = tQuantity
	case t.Implements(openAPITypedType) || reflect.PointerTo(t).Implements(openAPITypedType):
		n.kind, n.bits = openAPIKind(reflect.New(t).Interface().(openAPITyped))
	case reflect.PointerTo(t).Implements(unmarshalerType):
		n.kind = tAny
	default:
		setGoKind(n, t)
		if n.kind == tString {
			n.enum = enumOf(t)
		}
	}
	return n
}

// openAPIKind is the kind (and size) of a type that tells its OpenAPI
// type, such as IntOrString or Time; free-form when the type is not one.
func openAPIKind(v openAPITyped) (typeKind, int) {
	if v.OpenAPISchemaFormat() == "int-or-string" {
		return tIntOrString, 0
	}
	if types := v.OpenAPISchemaType(); len(types) == 1 {
		switch types[0] {
		case "string":
			return tString, 0
		case "integer":
			return tInt, 64
		case "number":
			return tFloat, 0
		case "boolean":
			return tBool, 0
		}
	}
	return tAny, 0
}

// setGoKind describes n by the Go kind of t.
func setGoKind(n *typeNode, t reflect.Type) {
	switch t.Kind() {
	case reflect.String:
		n.kind = tString
	case reflect.Bool:
		n.kind = tBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind, n.bits = tInt, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind = tFloat
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			n.kind = tBytes
		} else {
			n.kind, n.elem = tList, nodeOf(t.Elem())
		}
	case reflect.Map:
		n.kind, n.elem = tMap, nodeOf(t.Elem())
	case reflect.Struct:
		n.kind, n.fields = tStruct, map[string]*typeNode{}
		addFields(n, t)
		n.names = slices.Sorted(maps.Keys(n.fields))
	default:
		n.kind = tAny
	}
}

// addFields adds the JSON fields of struct t to n, inlining ",inline" and
// embedded structs without a name.
func addFields(n *typeNode, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(n, ft)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		n.fields[name] = nodeOf(f.Type)
		if key := f.Tag.Get("patchMergeKey"); key != "" && strings.Contains(f.Tag.Get("patchStrategy"), "merge") {
			if n.mergeKeys == nil {
				n.mergeKeys = map[string]string{}
			}
			n.mergeKeys[name] = key
		}
	}
}
