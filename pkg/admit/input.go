package admit

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/registry"
)

// sourceLabel is the label of the ConfigMaps that replacements read at
// admission (the webhook's informed.SourceLabel, which the CLI does not
// link).
const sourceLabel = "kpatch.dev/source"

// Input is the Cluster of kpatch apply --admission: what the webhook
// reads from its caches beside an admitted object, found among the
// objects of the input as they are given: the Namespaces, and the
// ConfigMaps labelled kpatch.dev/source=true, by namespace. It is read,
// never modified.
type Input struct {
	registryNamespace string
	namespaces        map[string]*inputNamespace
	// sources are the source ConfigMaps of each namespace, by name.
	sources map[string][]map[string]any
}

var _ Cluster = (*Input)(nil)

// inputNamespace is a Namespace of the input as the webhook's cache
// holds it: typed (the built-ins, the per-namespace values), and as the
// object a replacement's source reads.
type inputNamespace struct {
	ns     *corev1.Namespace
	values []registry.Annotation
	object map[string]any
}

var _ Namespace = (*inputNamespace)(nil)

func (n *inputNamespace) Namespace() *corev1.Namespace  { return n.ns }
func (n *inputNamespace) Values() []registry.Annotation { return n.values }
func (n *inputNamespace) Object() map[string]any        { return n.object }

// NewInput finds the Namespaces and source ConfigMaps of objs, the
// webhook's registry namespace being registryNamespace; a ConfigMap
// without a namespace is in namespace (kubectl's -n). The first object
// of a name counts. An object that is no valid Namespace or ConfigMap
// (the API server would refuse it) counts for nothing: it is one of the
// warnings.
func NewInput(objs []map[string]any, registryNamespace, namespace string) (in *Input, warnings []error) {
	in = &Input{registryNamespace: registryNamespace, namespaces: map[string]*inputNamespace{}}
	byNamespace := map[string]map[string]map[string]any{}
	for _, obj := range objs {
		if obj["apiVersion"] != "v1" {
			continue
		}
		switch obj["kind"] {
		case "Namespace":
			var ns corev1.Namespace
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &ns); err != nil {
				warnings = append(warnings, fmt.Errorf("warning: --admission: Namespace %q is left out: %v", nameOf(obj), err))
				continue
			}
			if _, dup := in.namespaces[ns.Name]; ns.Name == "" || dup {
				continue
			}
			in.namespaces[ns.Name] = &inputNamespace{ns: &ns, values: registry.ValueAnnotations(ns.Annotations), object: cachedObject(&ns, "Namespace")}
		case "ConfigMap":
			var cm corev1.ConfigMap
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &cm); err != nil {
				warnings = append(warnings, fmt.Errorf("warning: --admission: ConfigMap %q is left out: %v", nameOf(obj), err))
				continue
			}
			if cm.Labels[sourceLabel] != "true" || cm.Name == "" {
				continue
			}
			if cm.Namespace == "" {
				cm.Namespace = namespace
			}
			if byNamespace[cm.Namespace] == nil {
				byNamespace[cm.Namespace] = map[string]map[string]any{}
			}
			if _, dup := byNamespace[cm.Namespace][cm.Name]; !dup {
				byNamespace[cm.Namespace][cm.Name] = cachedObject(&cm, "ConfigMap")
			}
		}
	}
	in.sources = make(map[string][]map[string]any, len(byNamespace))
	for ns, byName := range byNamespace {
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			in.sources[ns] = append(in.sources[ns], byName[name])
		}
	}
	return in, warnings
}

// nameOf is the metadata.name of obj, if any.
func nameOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	return name
}

// cachedObject is a typed object of kind (core v1) as the webhook's cache
// gives it to a replacement's source: decoded from the typed object, so
// that it holds what the API server would have stored of it.
func cachedObject(obj runtime.Object, kind string) map[string]any {
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil { // a typed object always converts
		out = map[string]any{}
	}
	out["apiVersion"], out["kind"] = "v1", kind
	return out
}

// Namespace returns the Namespace of the input named name.
func (in *Input) Namespace(name string) (Namespace, bool) {
	if ns := in.namespaces[name]; ns != nil && name != "" {
		return ns, true
	}
	return nil, false
}

// Read returns the Namespace and the source ConfigMaps of namespace,
// then, as fallback, those of the registry namespace: what the webhook's
// handler reads from its caches (apply.Sources).
func (in *Input) Read(namespace string) (sources, fallback []map[string]any) {
	if ns, ok := in.Namespace(namespace); ok {
		sources = append(sources, ns.Object())
	}
	if namespace != "" {
		sources = append(sources, in.sources[namespace]...)
	}
	return sources, in.sources[in.registryNamespace]
}

// Conditions are what conditions read beside each object of a run over
// the input as one stream (kpatch apply without --admission): the
// Namespaces of the input as namespaceObject, never an old object.
func (in *Input) Conditions() apply.AdmissionObjects { return inputObjects{in} }

// inputObjects are an Input as conditions read it.
type inputObjects struct{ in *Input }

var _ apply.AdmissionObjects = inputObjects{}

// OldObject is nil: the input is stored nowhere.
func (inputObjects) OldObject() map[string]any { return nil }

// Namespace is the Namespace of the input named name, typed.
func (o inputObjects) Namespace(name string) (*corev1.Namespace, map[string]any) {
	if ns := o.in.namespaces[name]; ns != nil {
		return ns.ns, nil
	}
	return nil, nil
}
