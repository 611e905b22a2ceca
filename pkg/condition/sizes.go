package condition

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/checker"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/client-go/kubernetes/scheme"
)

// The sizes the estimate of a condition's cost assumes of the values it
// reads are those of an object the API server accepts, in the JSON of
// one request:
//
//   - a string, list or map the object's kind does not bound takes at
//     most the request (3 MiB): a string that many characters, a list
//     as many items as the request holds of the smallest JSON its item
//     can be, a map as many entries;
//   - an object's metadata follows the API server's validation: a name
//     253 characters, a namespace 63, a label's key 317 and value 63,
//     the annotations 256 KiB together;
//   - an item's smallest JSON holds the fields its type requires (a
//     field without omitempty, as the API server's OpenAPI says), and a
//     container its name and image, which validation requires;
//   - request, without the objects, comes from the request's line and
//     headers, which the API server reads up to 1 MiB of.
//
// The types are those of the built-in kinds (k8s.io/api): object and
// oldObject as any built-in kind that has the path read (a custom
// resource's path that no built-in kind has takes the request's bounds).
// An object the API server would refuse may be larger, and a condition
// on it may then run out of its cost limit at run time: the object is
// refused anyway.
const (
	// requestBytes is the largest request the API server reads.
	requestBytes = uint64(celconfig.MaxRequestSizeBytes)
	// headerBytes is the most the API server reads of a request's line
	// and headers: what request (its user, its options) comes from.
	headerBytes = uint64(1 << 20)
	// qualifiedNameLength is the longest label or annotation key: a DNS
	// subdomain prefix, a slash and a name of 63.
	qualifiedNameLength = validation.DNS1123SubdomainMaxLength + 1 + 63
)

// bound is what the API server's validation allows of a field beyond its
// type: a string's characters or a map's entries (length), and the
// lengths of a map's keys and values. Zero is no bound.
type bound struct {
	length, keys, values int
}

var objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()

// validated are the bounds of fields, by the struct that holds them: a
// volume's name is a DNS label, and a volume mount's names a volume.
var validated = map[reflect.Type]map[string]bound{
	reflect.TypeFor[corev1.Volume]():      {"name": {length: validation.DNS1123LabelMaxLength}},
	reflect.TypeFor[corev1.VolumeMount](): {"name": {length: validation.DNS1123LabelMaxLength}},
	objectMetaType: {
		"name":         {length: validation.DNS1123SubdomainMaxLength},
		"generateName": {length: validation.DNS1123SubdomainMaxLength},
		"namespace":    {length: validation.DNS1123LabelMaxLength},
		"labels":       {keys: qualifiedNameLength, values: validation.LabelValueMaxLength},
		"annotations": {
			length: apivalidation.TotalAnnotationSizeLimitB,
			keys:   qualifiedNameLength,
			values: apivalidation.TotalAnnotationSizeLimitB,
		},
	},
}

// requiredByValidation are the fields the API server's validation
// requires that their types' JSON tags leave optional, by struct: a
// container's image, a volume's source (one, of which an empty emptyDir
// is the smallest).
var requiredByValidation = map[reflect.Type][]string{
	reflect.TypeFor[corev1.Container]():          {"image"},
	reflect.TypeFor[corev1.EphemeralContainer](): {"image"},
	reflect.TypeFor[corev1.Volume]():             {"emptyDir"},
}

// typed is one type a value may have at a place: a Go type of
// k8s.io/api (pointers followed), nil for any JSON value, with what
// validation bounds of it there, read from JSON of at most budget bytes.
type typed struct {
	t      reflect.Type
	b      bound
	budget uint64
}

// shape is the types a value may have at a place in a variable.
type shape []typed

// rootShape is the shape of a variable but object and oldObject (whose
// are builtinKinds'), nil for one it does not know.
func rootShape(name string) shape {
	switch name {
	case PodSpecVar:
		return shape{{t: reflect.TypeFor[corev1.PodSpec](), budget: requestBytes}}
	case PodMetadataVar:
		return shape{{t: objectMetaType, budget: requestBytes}}
	case plugincel.NamespaceVarName:
		return shape{{t: reflect.TypeFor[corev1.Namespace](), budget: requestBytes}}
	case plugincel.RequestVarName:
		return shape{{t: reflect.TypeFor[admissionv1.AdmissionRequest](), budget: headerBytes}}
	case plugincel.ParamsVarName, ItemVar:
		return shape{{budget: requestBytes}}
	}
	return nil
}

// kinds are the shapes of object: the root types of every built-in kind
// with metadata, and the shapes of their fields (what a condition reads
// first), made once.
type kinds struct {
	roots  shape
	fields map[string]shape
}

var builtinKinds = sync.OnceValue(func() kinds {
	seen := map[reflect.Type]bool{}
	k := kinds{fields: map[string]shape{}}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" || strings.HasSuffix(gvk.Kind, "List") || seen[t] {
			continue
		}
		seen[t] = true
		if f, ok := t.FieldByName("ObjectMeta"); ok && f.Type == objectMetaType {
			k.roots = append(k.roots, typed{t: t, budget: requestBytes})
		}
	}
	for _, root := range k.roots {
		for name := range jsonFields(root.t) {
			if k.fields[name] == nil {
				k.fields[name] = k.roots.step(name)
			}
		}
	}
	return k
})

// shapeAt follows path (a variable, then field names and the estimator's
// @items, @keys, @values, @indices) from the variable's shape; nil when
// the variable is not known.
func shapeAt(path []string) shape {
	if len(path) == 0 {
		return nil
	}
	s, rest := rootShape(path[0]), path[1:]
	if path[0] == plugincel.ObjectVarName || path[0] == plugincel.OldObjectVarName {
		k := builtinKinds()
		s = k.roots
		if field, ok := k.fields[stepName(rest)]; ok {
			s, rest = field, rest[1:]
		}
	}
	for _, step := range rest {
		if s == nil {
			return nil
		}
		s = s.step(step)
	}
	return s
}

// stepName is the first of steps, "" when there is none.
func stepName(steps []string) string {
	if len(steps) == 0 {
		return ""
	}
	return steps[0]
}

// step is the shape of what a step selects from s. A step no type of s
// has leaves any JSON value (a custom resource's field).
func (s shape) step(name string) shape {
	var out shape
	add := func(t typed) {
		for _, o := range out {
			if o == t {
				return
			}
		}
		out = append(out, t)
	}
	budget := uint64(0)
	for _, v := range s {
		budget = max(budget, v.budget)
		if v.t == nil {
			add(typed{budget: v.budget})
			continue
		}
		switch v.t.Kind() {
		case reflect.Struct:
			if opaque(v.t) {
				continue
			}
			if ft, ok := jsonField(v.t, name); ok {
				add(typed{t: deref(ft), b: validated[v.t][name], budget: v.budget})
			}
		case reflect.Map:
			if name == "@keys" {
				add(typed{t: deref(v.t.Key()), b: bound{length: v.b.keys}, budget: v.budget})
			} else {
				add(typed{t: deref(v.t.Elem()), b: bound{length: v.b.values}, budget: v.budget})
			}
		case reflect.Slice, reflect.Array:
			switch {
			case v.t.Elem().Kind() == reflect.Uint8:
			case name == "@indices":
				add(typed{t: reflect.TypeFor[int](), budget: v.budget})
			case strings.HasPrefix(name, "@"):
				add(typed{t: deref(v.t.Elem()), budget: v.budget})
			}
		case reflect.Interface:
			add(typed{budget: v.budget})
		}
	}
	if len(out) == 0 {
		return shape{{budget: budget}}
	}
	return out
}

// size is the largest size (CEL's size(): characters, items, entries)
// of a value of the shape.
func (s shape) size() uint64 {
	var largest uint64
	for _, v := range s {
		largest = max(largest, v.size())
	}
	return largest
}

func (v typed) size() uint64 {
	if v.b.length > 0 {
		return uint64(v.b.length)
	}
	any := v.budget - 2 // a string: the largest of what a JSON value holds
	if v.t == nil {
		return any
	}
	if opaque(v.t) {
		if v.t == timeType || v.t == microTimeType {
			return 32 // RFC 3339 with nanoseconds
		}
		return any
	}
	switch v.t.Kind() {
	case reflect.String:
		return any
	case reflect.Slice, reflect.Array:
		if v.t.Elem().Kind() == reflect.Uint8 {
			return any / 4 * 3 // base64
		}
		return (v.budget - 2) / (minJSON(v.t.Elem()) + 1)
	case reflect.Map:
		return (v.budget - 2) / (minJSON(v.t.Elem()) + 6)
	case reflect.Struct:
		return uint64(len(jsonFields(v.t)))
	case reflect.Interface:
		return any
	}
	return 1
}

// estimatedSize is the size estimate of the value at path, nil when the
// path does not start at a variable.
func estimatedSize(path []string) *checker.SizeEstimate {
	s := shapeAt(path)
	if s == nil {
		return nil
	}
	return &checker.SizeEstimate{Max: s.size()}
}

// itemSize is the size estimate of the value at rest below item, an item
// at one of paths of object (Options.ItemPaths): the largest.
func itemSize(paths [][]string, rest []string) *checker.SizeEstimate {
	var largest uint64
	for _, p := range paths {
		full := append(append([]string{plugincel.ObjectVarName}, p...), rest...)
		largest = max(largest, shapeAt(full).size())
	}
	return &checker.SizeEstimate{Max: largest}
}

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)

// opaqueTypes caches opaque by type.
var opaqueTypes sync.Map // reflect.Type -> bool

// opaque reports whether t writes its own JSON (a time, a quantity, an
// int-or-string): a scalar, whose fields are not the JSON's.
func opaque(t reflect.Type) bool {
	if o, ok := opaqueTypes.Load(t); ok {
		return o.(bool)
	}
	o := t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)
	opaqueTypes.Store(t, o)
	return o
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonFieldsOf caches jsonFields by struct type.
var jsonFieldsOf sync.Map // reflect.Type -> map[string]reflect.StructField

// jsonFields are a struct's fields by JSON name, inline and embedded
// structs' fields among them, as encoding/json reads them.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	if m, ok := jsonFieldsOf.Load(t); ok {
		return m.(map[string]reflect.StructField)
	}
	m := map[string]reflect.StructField{}
	addJSONFields(m, t)
	jsonFieldsOf.Store(t, m)
	return m
}

func addJSONFields(m map[string]reflect.StructField, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if ft := deref(f.Type); ft.Kind() == reflect.Struct && (f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,")) {
			addJSONFields(m, ft)
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f
	}
}

func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	f, ok := jsonFields(t)[name]
	return f.Type, ok
}

// minJSONOf caches minJSON by type.
var minJSONOf sync.Map // reflect.Type -> uint64

// minJSON is the fewest bytes of JSON a value of t takes in an object
// the API server accepts: "" for a string, {} with its required fields
// for a struct (those without omitempty, as the API server's OpenAPI
// says, and requiredByValidation), the smallest value of each (a string
// not empty: validation requires it), 1 for anything else, a pointer
// among them (null or its value: a struct is never within itself but
// through one, so that minJSON is the same whatever type it starts at).
func minJSON(t reflect.Type) uint64 {
	if n, ok := minJSONOf.Load(t); ok {
		return n.(uint64)
	}
	n := uint64(1)
	switch {
	case t.Kind() == reflect.Pointer || opaque(t):
	case t.Kind() == reflect.String:
		n = 2
	case t.Kind() == reflect.Struct:
		n = 2
		required := requiredByValidation[t]
		for name, f := range jsonFields(t) {
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if strings.Contains(","+opts+",", ",omitempty,") && !slices.Contains(required, name) {
				continue
			}
			value := minJSON(f.Type)
			if deref(f.Type).Kind() == reflect.String {
				value = 3 // not empty: "x"
			}
			n += uint64(len(name)) + value + 4 // "name":value,
		}
	}
	minJSONOf.Store(t, n)
	return n
}
