package diff

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

// Key identifies an object across BASE and TARGET: API group (not
// version), kind, namespace and name.
type Key struct {
	group, kind, namespace, name string
}

// Object is one object of a diff's input.
type Object struct {
	Key Key
	Ref kpatch.ObjectRef
	Obj map[string]any
}

// Pair is an object of BASE and the object of TARGET with its key.
type Pair struct {
	Base, Target *Object
}

// Unpaired is an object of one side that the other lacks: a patch
// can neither create nor delete an object.
type Unpaired struct {
	Ref   kpatch.ObjectRef
	Side  string // BASE or TARGET
	Hint  string
	Fatal bool
}

func (u *Unpaired) Error() string {
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

// Document is a document of BASE or TARGET: the objects it holds (a
// List's items one by one), and how messages name it.
type Document interface {
	Items() []map[string]any
	String() string
}

// ObjectsOf returns the objects of the documents (a List's items one
// by one) keyed for pairing; side (BASE or TARGET) names them in
// messages. namespace is given to the objects without one, in their
// metadata too, so that it is never a difference.
func ObjectsOf[D Document](side string, docs []D, namespace string) ([]*Object, error) {
	var out []*Object
	seen := map[Key]bool{}
	for _, d := range docs {
		for _, obj := range d.Items() {
			if namespace != "" {
				obj = withNamespace(obj, namespace)
			}
			ref := kpatch.RefOf(obj, "")
			if ref.Kind == "" || ref.Name == "" {
				return nil, fmt.Errorf("%s: %s: %w", side, d, errNotAnObject)
			}
			gv, _ := schema.ParseGroupVersion(ref.APIVersion)
			key := Key{group: gv.Group, kind: ref.Kind, namespace: ref.Namespace, name: ref.Name}
			if seen[key] {
				return nil, fmt.Errorf("%s: %s: %w", side, ref, errDuplicateObject)
			}
			seen[key] = true
			out = append(out, &Object{Key: key, Ref: ref, Obj: obj})
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

// PairObjects pairs the objects of both sides by key, in BASE order, and
// returns the objects of either side that the other lacks.
func PairObjects(base, target []*Object, fatal bool) ([]Pair, []*Unpaired) {
	targets := make(map[Key]*Object, len(target))
	for _, t := range target {
		targets[t.Key] = t
	}
	bases := make(map[Key]bool, len(base))
	var pairs []Pair
	var unpaired []*Unpaired
	for _, b := range base {
		bases[b.Key] = true
		if t, ok := targets[b.Key]; ok {
			pairs = append(pairs, Pair{Base: b, Target: t})
			continue
		}
		unpaired = append(unpaired, &Unpaired{Ref: b.Ref, Side: "BASE", Fatal: fatal})
	}
	for _, t := range target {
		if !bases[t.Key] {
			unpaired = append(unpaired, &Unpaired{Ref: t.Ref, Side: "TARGET", Fatal: fatal, Hint: namespaceHint(t, base)})
		}
	}
	return pairs, unpaired
}

// namespaceHint suggests -n when an object of TARGET is in BASE without
// a namespace, as kustomize overlays that set one make it.
func namespaceHint(t *Object, base []*Object) string {
	if t.Key.namespace == "" {
		return ""
	}
	for _, b := range base {
		k := b.Key
		if k.namespace == "" && k.group == t.Key.group && k.kind == t.Key.kind && k.name == t.Key.name {
			return fmt.Sprintf(" (BASE has it without a namespace: -n %s puts the objects without one in %s)", t.Key.namespace, t.Key.namespace)
		}
	}
	return ""
}

// targetFor returns the target of a header that addresses the object
// alone among all the objects: namespace/kind.name, with the API group
// when another object of the kind has the same name.
func targetFor(o *Object, all []*Object) kpatch.Target {
	t := kpatch.Target{Namespace: o.Key.namespace, Kind: strings.ToLower(o.Key.kind), Name: o.Key.name, NameLiteral: true}
	for _, other := range all {
		if other != o && t.Matches(&other.Ref) {
			t.HasGroup, t.Group = true, o.Key.group
			if t.Group == "" {
				t.Group = "core"
			}
			break
		}
	}
	return t
}
