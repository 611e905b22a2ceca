package main

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// errDuplicateObject is an input that holds one object twice, and
// errNotAnObject a document without the kind and name a header targets.
var (
	errDuplicateObject = errors.New("the object appears more than once")
	errNotAnObject     = errors.New("a patch targets objects by kind and metadata.name; this document lacks one of them")
)

// objectKey identifies an object across BASE and TARGET: API group (not
// version), kind, namespace and name.
type objectKey struct {
	group, kind, namespace, name string
}

// manifestObject is one object of a diff's input.
type manifestObject struct {
	key objectKey
	ref kpatch.ObjectRef
	obj map[string]any
}

// objectPair is an object of BASE and the object of TARGET with its key.
type objectPair struct {
	base, target *manifestObject
}

// unpairedObject is an object of one side that the other lacks: a patch
// can neither create nor delete an object.
type unpairedObject struct {
	Ref   kpatch.ObjectRef
	Side  string // BASE or TARGET
	Hint  string
	Fatal bool
}

func (u *unpairedObject) Error() string {
	severity := "warning: "
	if u.Fatal {
		severity = ""
	}
	what := "create"
	if u.Side == "BASE" {
		what = "delete"
	}
	return fmt.Sprintf("%s%s is only in %s: a patch cannot %s an object%s", severity, u.Ref, u.Side, what, u.Hint)
}

// diffObjectsOf returns the objects of the documents (a List's items one
// by one) keyed for pairing. namespace is given to the objects without
// one, in their metadata too, so that it is never a difference.
func diffObjectsOf(side string, docs []*document, namespace string) ([]*manifestObject, error) {
	var out []*manifestObject
	seen := map[objectKey]bool{}
	for _, d := range docs {
		for _, obj := range d.items() {
			if namespace != "" {
				obj = withNamespace(obj, namespace)
			}
			ref := objectRef(obj, "")
			if ref.Kind == "" || ref.Name == "" {
				return nil, fmt.Errorf("%s: %s: %w", side, d, errNotAnObject)
			}
			gv, _ := schema.ParseGroupVersion(ref.APIVersion)
			key := objectKey{group: gv.Group, kind: ref.Kind, namespace: ref.Namespace, name: ref.Name}
			if seen[key] {
				return nil, fmt.Errorf("%s: %s: %w", side, ref, errDuplicateObject)
			}
			seen[key] = true
			out = append(out, &manifestObject{key: key, ref: ref, obj: obj})
		}
	}
	return out, nil
}

// withNamespace returns obj with metadata.namespace set when it has none.
func withNamespace(obj map[string]any, namespace string) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	if ns, _ := md["namespace"].(string); ns != "" {
		return obj
	}
	md = maps.Clone(md)
	if md == nil {
		md = map[string]any{}
	}
	md["namespace"] = namespace
	out := maps.Clone(obj)
	out["metadata"] = md
	return out
}

// pairObjects pairs the objects of both sides by key, in BASE order, and
// returns the objects of either side that the other lacks.
func pairObjects(base, target []*manifestObject, fatal bool) ([]objectPair, []*unpairedObject) {
	targets := make(map[objectKey]*manifestObject, len(target))
	for _, t := range target {
		targets[t.key] = t
	}
	bases := make(map[objectKey]bool, len(base))
	var pairs []objectPair
	var unpaired []*unpairedObject
	for _, b := range base {
		bases[b.key] = true
		if t, ok := targets[b.key]; ok {
			pairs = append(pairs, objectPair{base: b, target: t})
			continue
		}
		unpaired = append(unpaired, &unpairedObject{Ref: b.ref, Side: "BASE", Fatal: fatal})
	}
	for _, t := range target {
		if !bases[t.key] {
			unpaired = append(unpaired, &unpairedObject{Ref: t.ref, Side: "TARGET", Fatal: fatal, Hint: namespaceHint(t, base)})
		}
	}
	return pairs, unpaired
}

// namespaceHint suggests -n when an object of TARGET is in BASE without
// a namespace, as kustomize overlays that set one make it.
func namespaceHint(t *manifestObject, base []*manifestObject) string {
	if t.key.namespace == "" {
		return ""
	}
	for _, b := range base {
		k := b.key
		if k.namespace == "" && k.group == t.key.group && k.kind == t.key.kind && k.name == t.key.name {
			return fmt.Sprintf(" (BASE has it without a namespace: -n %s puts the objects without one in %s)", t.key.namespace, t.key.namespace)
		}
	}
	return ""
}

// targetFor returns the target of a header that addresses the object
// alone among all the objects: namespace/kind.name, with the API group
// when another object of the kind has the same name.
func targetFor(o *manifestObject, all []*manifestObject) kpatch.Target {
	t := kpatch.Target{Namespace: o.key.namespace, Kind: strings.ToLower(o.key.kind), Name: o.key.name, NameLiteral: true}
	for _, other := range all {
		if other != o && t.Matches(&other.ref) {
			t.HasGroup, t.Group = true, o.key.group
			if t.Group == "" {
				t.Group = "core"
			}
			break
		}
	}
	return t
}
