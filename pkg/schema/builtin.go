package schema

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"

	"kpatch.dev/kpatch/pkg/jsonvalue"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// builtinRoots are the roots of the built-in kinds looked up so far, by
// apiVersion and kind (nil for one the scheme does not know).
var builtinRoots sync.Map // [2]string -> *goType

// builtin returns the schema of a kind of k8s.io/api in an API version,
// or nil.
func builtin(apiVersion, kind string) node {
	key := [2]string{apiVersion, kind}
	if t, ok := builtinRoots.Load(key); ok {
		if t.(*goType) == nil {
			return nil
		}
		return t.(*goType)
	}
	var root *goType
	if gv, err := k8sschema.ParseGroupVersion(apiVersion); err == nil && kind != "" && apiVersion != "" {
		if obj, err := scheme.Scheme.New(gv.WithKind(kind)); err == nil {
			root = typeOf(reflect.TypeOf(obj))
		}
	}
	builtinRoots.Store(key, root)
	if root == nil {
		return nil
	}
	return root
}

// objectMeta is the node of the metadata of every object.
func objectMeta() node { return typeOf(reflect.TypeFor[metav1.ObjectMeta]()) }

// goType is the node of a Go type: what the API server decodes a field
// into. Built once per type, on first use.
type goType struct {
	t      reflect.Type
	kind   shape
	once   sync.Once
	fields map[string]*goType // an object's, by JSON name
	names  []string
	enum   []string
	items  *goType // a map's values, a list's items
}

var goTypes sync.Map // reflect.Type -> *goType

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// typeOf returns the node of t (pointers followed).
func typeOf(t reflect.Type) *goType {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := goTypes.Load(t); ok {
		return n.(*goType)
	}
	n := &goType{t: t}
	switch p := reflect.PointerTo(t); {
	case p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler):
		n.kind = shapeOpaque
	default:
		switch t.Kind() {
		case reflect.Struct:
			n.kind = shapeObject
		case reflect.Map:
			n.kind = shapeMap
		case reflect.Slice, reflect.Array:
			n.kind = shapeList
			if t.Elem().Kind() == reflect.Uint8 {
				n.kind = shapeScalar // base64 text
			}
		case reflect.Interface:
			n.kind = shapeAny
		default:
			n.kind = shapeScalar
			if t.Kind() == reflect.String {
				n.enum = kpatch.EnumValues(t)
			}
		}
	}
	actual, _ := goTypes.LoadOrStore(t, n)
	return actual.(*goType)
}

func (n *goType) shape() shape { return n.kind }

// structFields reads the nodes an object's JSON fields hold, or those a
// map's values or a list's items are, once.
func (n *goType) structFields() {
	n.once.Do(func() {
		switch n.t.Kind() {
		case reflect.Struct:
			types := map[string]reflect.Type{}
			addFields(types, n.t)
			n.fields = make(map[string]*goType, len(types))
			for name, t := range types {
				n.fields[name] = typeOf(t)
			}
			n.names = slices.Sorted(maps.Keys(types))
		case reflect.Map, reflect.Slice, reflect.Array:
			n.items = typeOf(n.t.Elem())
		}
	})
}

// addFields adds the JSON fields of struct t, inlining ",inline" and
// embedded structs without a name, as encoding/json does.
func addFields(fields map[string]reflect.Type, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,")) && ft.Kind() == reflect.Struct {
			addFields(fields, ft)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
}

func (n *goType) field(name string) (node, bool) {
	if n.t == objectMetaType {
		if m := metadataField(name); m != nil {
			return m, true
		}
	}
	n.structFields()
	t, ok := n.fields[name]
	if !ok {
		return nil, false
	}
	return t, true
}

func (n *goType) fieldNames() []string {
	n.structFields()
	return n.names
}

// required is empty: the Go types leave required fields to the API
// server's validation, which answers for them with the object's own.
func (n *goType) required() []string { return nil }

func (n *goType) elem() node {
	n.structFields()
	return n.items
}

func (n *goType) describe() string {
	switch n.kind {
	case shapeObject:
		return n.t.Name()
	case shapeMap:
		return "a map"
	case shapeList:
		return "a list"
	case shapeAny:
		return "free-form"
	case shapeOpaque:
		return "a " + n.t.Name()
	}
	switch n.t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "base64 bytes"
	}
	return "an integer"
}

// check is the problem of a scalar as encoding/json decodes it into the
// Go type, with the type's enum values; a type that decodes itself (a
// quantity, a time) is decoded by its own code, as the API server does.
func (n *goType) check(v any) string {
	if n.t == quantityType {
		return checkQuantity(v)
	}
	if n.kind == shapeOpaque {
		if n.t == intOrStringType && isIntOrString(v) {
			return ""
		}
		return decodes(v, n.t)
	}
	switch n.t.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return "the field is a string, not " + describeValue(v)
		}
		if s != "" && n.enum != nil && !slices.Contains(n.enum, s) {
			return strconv.Quote(s) + " is not one of " + strings.Join(n.enum, ", ") + kpatch.DidYouMean(s, n.enum)
		}
		return ""
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "the field is a boolean, not " + describeValue(v)
		}
		return ""
	case reflect.Float32, reflect.Float64:
		f, ok := jsonvalue.Float(v)
		if !ok || !jsonvalue.IsNumber(v) || math.IsInf(f, 0) || math.IsNaN(f) {
			return "the field is a number, not " + describeValue(v)
		}
		return ""
	case reflect.Slice, reflect.Array:
		s, ok := v.(string)
		if !ok {
			return "the field is base64 bytes, not " + describeValue(v)
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return "the field is base64 bytes, and " + strconv.Quote(s) + " is not base64"
		}
		return ""
	}
	return checkInteger(v, n.t)
}

// checkInteger is the problem of a value in an integer field of Go type
// t: it must be a number whose JSON text is an integer in t's range.
func checkInteger(v any, t reflect.Type) string {
	if !jsonvalue.IsNumber(v) {
		return "the field is an integer, not " + describeValue(v)
	}
	text, _ := jsonvalue.Text(v)
	var err error
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
		_, err = strconv.ParseUint(text, 10, t.Bits())
	} else {
		_, err = strconv.ParseInt(text, 10, t.Bits())
	}
	switch {
	case err == nil:
		return ""
	case strings.ContainsAny(text, ".eE"):
		return "the field is an integer, not " + describeValue(v)
	}
	return "the field is a " + strconv.Itoa(t.Bits()) + "-bit integer, and " + text + " is out of its range"
}

var quantityType = reflect.TypeFor[resource.Quantity]()

var intOrStringType = reflect.TypeFor[intstr.IntOrString]()

// isIntOrString reports, without the round trip through JSON, whether v
// is one of the two values an IntOrString surely decodes: a string, or an
// integer in an int32's range. Any other value is decoded by its own
// code, as the API server does (TestIntOrStringAsDecoded).
func isIntOrString(v any) bool {
	switch x := v.(type) {
	case string:
		return true
	case int64:
		return x >= math.MinInt32 && x <= math.MaxInt32
	}
	return false
}

// checkQuantity is the problem of a quantity, read as its UnmarshalJSON
// reads it (text or a number, spaces around it trimmed) without the
// round trip through JSON.
func checkQuantity(v any) string {
	text, ok := v.(string)
	if !ok {
		if !jsonvalue.IsNumber(v) {
			return decodes(v, quantityType)
		}
		text, _ = jsonvalue.Text(v)
	}
	if _, err := resource.ParseQuantity(strings.TrimSpace(text)); err != nil {
		return "not a valid Quantity: " + err.Error()
	}
	return ""
}

// decodes is the problem of decoding v into a new value of type t, as
// the API server decodes: strictly, case-sensitively.
func decodes(v any, t reflect.Type) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "the value cannot be written as JSON: " + err.Error()
	}
	strict, err := sigsjson.UnmarshalStrict(data, reflect.New(t).Interface())
	switch {
	case err != nil:
		return "not a valid " + t.Name() + ": " + err.Error()
	case len(strict) > 0:
		return strict[0].Error()
	}
	return ""
}
