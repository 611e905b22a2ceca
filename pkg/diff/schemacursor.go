package diff

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"
)

// schemaCursor is a place in the Go type of a built-in kind, followed
// along a path through an object: it knows the patchMergeKey of the list
// it stands on (containers merge by name, ports by containerPort). The
// zero cursor stands for a value without a known type (custom resources,
// free-form fields).
type schemaCursor struct {
	t        reflect.Type // a struct, map or slice type; nil when unknown
	mergeKey string       // the patchMergeKey of the list field, if any
}

// cursorFor returns the cursor at the root of an object of a built-in
// kind, or the zero cursor for a kind the client-go scheme does not know.
func cursorFor(apiVersion, kind string) schemaCursor {
	obj, err := scheme.Scheme.New(schema.FromAPIVersionAndKind(apiVersion, kind))
	if err != nil {
		return schemaCursor{}
	}
	return schemaCursor{t: indirect(reflect.TypeOf(obj))}
}

// field returns the cursor at a field of a struct or a value of a map.
func (c schemaCursor) field(name string) schemaCursor {
	if c.t == nil {
		return schemaCursor{}
	}
	switch c.t.Kind() {
	case reflect.Struct:
		sub, meta, err := strategicpatch.PatchMetaFromStruct{T: c.t}.LookupPatchMetadataForStruct(name)
		if err != nil {
			return schemaCursor{}
		}
		return schemaCursor{t: indirect(sub.(strategicpatch.PatchMetaFromStruct).T), mergeKey: meta.GetPatchMergeKey()}
	case reflect.Map:
		return schemaCursor{t: indirect(c.t.Elem())}
	}
	return schemaCursor{}
}

// item returns the cursor at the items of a list.
func (c schemaCursor) item() schemaCursor {
	if c.t == nil || c.t.Kind() != reflect.Slice {
		return schemaCursor{}
	}
	return schemaCursor{t: indirect(c.t.Elem())}
}

// indirect strips pointers, and keeps only the kinds a cursor walks.
func indirect(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice:
		return t
	}
	return nil
}
