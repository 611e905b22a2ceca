package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/pflag"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// The webhook's names that --admission reads the input with: the
// namespace the webhook's --registry-namespace defaults to outside a pod,
// and the label of the ConfigMaps that replacements read at admission
// (the webhook's informed.SourceLabel, which the CLI does not link).
const (
	defaultRegistryNamespace = "kpatch-system"
	sourceLabel              = "kpatch.dev/source"
)

// admissionFlags are the flags of apply that evaluate each object alone,
// as the webhook admits it.
type admissionFlags struct {
	on                bool
	registryNamespace string
}

func (a *admissionFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&a.on, "admission", false, "evaluate each object alone, as the webhook admits it: built-ins from the object and its Namespace in the input, replacement sources from the object, its Namespace and the input's ConfigMaps labelled kpatch.dev/source=true")
	f.StringVar(&a.registryNamespace, "registry-namespace", defaultRegistryNamespace, "with --admission, `NAMESPACE` of the registry, as the webhook's --registry-namespace: its objects are never patched, its source ConfigMaps are the fallback of every namespace")
}

// validate checks that --registry-namespace goes with --admission.
func (a *admissionFlags) validate(registryNamespaceSet bool) error {
	if registryNamespaceSet && !a.on {
		return usageErrorf("--registry-namespace goes with --admission")
	}
	return nil
}

// admission is how a run evaluates objects as the webhook admits them;
// nil for a run over the input as one stream.
type admission struct {
	// registryNamespace is the webhook's --registry-namespace.
	registryNamespace string
	// namespace is the namespace of the objects that have none (-n), as
	// kubectl apply -n sends them.
	namespace string
	// request is what conditions read as request, and the operation the
	// files' operations are held to (nil: a CREATE by an unnamed user).
	request *admissionv1.AdmissionRequest
	// valid holds each result to what the API server accepts, as the
	// webhook does (nil: not checked).
	valid apply.Validator
}

// admissionCluster is what the webhook reads from its caches beside an
// admitted object, found among the objects of the input as they are
// given: the Namespaces, and the ConfigMaps labelled
// kpatch.dev/source=true, by namespace. It is read, never modified.
type admissionCluster struct {
	registryNamespace string
	namespaces        map[string]*inputNamespace
	// sources are the source ConfigMaps of each namespace, by name.
	sources map[string][]map[string]any
}

// inputNamespace is a Namespace of the input as the webhook's cache
// holds it: typed (the built-ins, the per-namespace values), and as the
// object a replacement's source reads.
type inputNamespace struct {
	ns     *corev1.Namespace
	values []registry.Annotation
	object map[string]any
}

// newAdmissionCluster finds the Namespaces and source ConfigMaps of objs;
// a ConfigMap without a namespace is in namespace (-n). The first object
// of a name counts. An object that is no valid Namespace or ConfigMap
// (the API server would refuse it) is a warning and counts for nothing.
func newAdmissionCluster(objs []map[string]any, adm *admission, found *lint.Findings) *admissionCluster {
	c := &admissionCluster{registryNamespace: adm.registryNamespace, namespaces: map[string]*inputNamespace{}}
	byNamespace := map[string]map[string]map[string]any{}
	for _, obj := range objs {
		if obj["apiVersion"] != "v1" {
			continue
		}
		switch obj["kind"] {
		case "Namespace":
			var ns corev1.Namespace
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &ns); err != nil {
				found.Warn(fmt.Errorf("warning: --admission: Namespace %q is left out: %v", nameOf(obj), err))
				continue
			}
			if _, dup := c.namespaces[ns.Name]; ns.Name == "" || dup {
				continue
			}
			c.namespaces[ns.Name] = &inputNamespace{ns: &ns, values: registry.ValueAnnotations(ns.Annotations), object: cachedObject(&ns, "Namespace")}
		case "ConfigMap":
			var cm corev1.ConfigMap
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &cm); err != nil {
				found.Warn(fmt.Errorf("warning: --admission: ConfigMap %q is left out: %v", nameOf(obj), err))
				continue
			}
			if cm.Labels[sourceLabel] != "true" || cm.Name == "" {
				continue
			}
			if cm.Namespace == "" {
				cm.Namespace = adm.namespace
			}
			if byNamespace[cm.Namespace] == nil {
				byNamespace[cm.Namespace] = map[string]map[string]any{}
			}
			if _, dup := byNamespace[cm.Namespace][cm.Name]; !dup {
				byNamespace[cm.Namespace][cm.Name] = cachedObject(&cm, "ConfigMap")
			}
		}
	}
	c.sources = make(map[string][]map[string]any, len(byNamespace))
	for ns, byName := range byNamespace {
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			c.sources[ns] = append(c.sources[ns], byName[name])
		}
	}
	return c
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

// Read returns the Namespace and the source ConfigMaps of namespace,
// then, as fallback, those of the registry namespace: what the webhook's
// handler reads from its caches (apply.Sources).
func (c *admissionCluster) Read(namespace string) (sources, fallback []map[string]any) {
	if ns := c.namespaces[namespace]; ns != nil && namespace != "" {
		sources = append(sources, ns.object)
	}
	if namespace != "" {
		sources = append(sources, c.sources[namespace]...)
	}
	return sources, c.sources[c.registryNamespace]
}

var _ apply.Sources = (*admissionCluster)(nil)

// OldObject is nil: the CLI's objects are created, never updated.
func (c *admissionCluster) OldObject() map[string]any { return nil }

// Namespace returns the Namespace of the input named name, typed and as
// an object (namespaceObject), or nothing.
func (c *admissionCluster) Namespace(name string) (*corev1.Namespace, map[string]any) {
	if ns := c.namespaces[name]; ns != nil {
		return ns.ns, ns.object
	}
	return nil, nil
}

var _ apply.AdmissionObjects = (*admissionCluster)(nil)

// patches reports whether the webhook patches an object of namespace: not
// in kube-system nor in the registry namespace.
func (c *admissionCluster) patches(namespace string) bool {
	return namespace != "kube-system" && (namespace == "" || namespace != c.registryNamespace)
}

// objectFiles gives the files that may apply to one admitted object,
// bound to what they read of it, and the files its values leave out, as
// failed runs.
type objectFiles func(obj map[string]any, ref *kpatch.ObjectRef, c *admissionCluster) ([]apply.File, []apply.FileRun)

// admit applies the files to each object alone, as the webhook's handler
// does on a CREATE of it: the files that may target it (files), in
// order, each to the result of the ones before; a replacements file reads
// the object, its Namespace and the source ConfigMaps (c). A file whose
// result would not encode as a JSONPatch is left out, as the webhook
// leaves it out. An object the webhook never patches is left as it is.
func admit(objs []map[string]any, adm *admission, c *admissionCluster, files objectFiles) []*apply.ObjectRun {
	runs := make([]*apply.ObjectRun, len(objs))
	for i, obj := range objs {
		ref := kpatch.RefOf(obj, adm.namespace)
		if !c.patches(ref.Namespace) {
			runs[i] = &apply.ObjectRun{In: obj, Out: obj}
			continue
		}
		bound, leftOut := files(obj, &ref, c)
		// conditions read the request of the --request-* flags and the
		// object's Namespace in the input as namespaceObject (c)
		opts := &apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: ref.Namespace}, Sources: c,
			Admission: apply.Admission{Request: adm.request, Objects: c}, Operation: operationOf(adm.request), Valid: adm.valid}
		run, _, _ := apply.RunPatch(context.Background(), obj, bound, opts) // never cancelled; a result that does not encode leaves the object as it was
		run.Files = append(run.Files, leftOut...)
		runs[i] = run
	}
	return runs
}

// registryFiles are the files of a registry as the webhook's handler
// finds them for an object: those that may target its kind, namespace
// and name (Registry.Candidates), in registry order, the files whose
// values depend on the object (per-namespace values, built-ins, metadata)
// bound for it with its Namespace in the input (Registry.ForObject).
func registryFiles(reg *registry.Registry) objectFiles {
	return func(obj map[string]any, ref *kpatch.ObjectRef, c *admissionCluster) ([]apply.File, []apply.FileRun) {
		return reg.BindForObject(reg.Candidates(ref.Kind, ref.Namespace, ref.Name), func() (*registry.ObjectContext, *kpatch.ObjectRef) {
			if ns := c.namespaces[ref.Namespace]; ns != nil && ref.Namespace != "" {
				return registry.NewObjectContext(ref.Kind, ref, ns.ns, ns.values, obj), ref
			}
			return registry.NewObjectContext(ref.Kind, ref, nil, nil, obj), ref
		})
	}
}

// reportAdmitted reports what the files did wrong to each object, object
// by object, each in file order: what the webhook would warn about (or
// deny under --strict), the failures, the replacements a missing source
// skipped, the ${required} fields nothing set, as errors; what the files
// in audit mode would have done wrong, and would have changed, as
// warnings (the webhook's audit annotations).
func reportAdmitted(runs []*apply.ObjectRun, found *lint.Findings) {
	for _, r := range runs {
		for _, fr := range r.Problems() {
			nameObject(fr.Err, fr.Ref)
			found.Add(fr.Err)
		}
		for _, err := range r.Required() {
			found.Add(err)
		}
		for _, fr := range r.AuditProblems() {
			nameObject(fr.Err, fr.Ref)
			found.Warn(fmt.Errorf("%w (audit mode: the file changes nothing)", fr.Err))
		}
	}
	reportWouldApply(runs, found)
}

// admitManifests applies the registry's files to the objects of m, and
// the items of Lists, each alone as the webhook admits it (admit), and
// writes the results back to the documents. Every problem goes to found,
// object by object.
func admitManifests(reg *registry.Registry, m *manifest.Set, adm *admission, found *lint.Findings) {
	var objs []map[string]any
	for _, d := range m.Docs {
		objs = append(objs, d.Items()...)
	}
	c := newAdmissionCluster(objs, adm, found)
	runs := admit(objs, adm, c, registryFiles(reg))
	reportAdmitted(runs, found)
	for _, d := range m.Docs {
		n := len(d.Items())
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = runs[i].Out
		}
		if n > 0 {
			d.SetItems(out)
		}
		runs = runs[n:]
	}
}

// nameObject names the object in the errors of a replacements file on
// it that do not name one: alone, the object is its own target, which
// the webhook's warning need not name; a run over many objects does.
func nameObject(err error, ref *kpatch.ObjectRef) {
	errs := []error{err}
	var list kpatch.ErrorList
	if errors.As(err, &list) {
		errs = list
	}
	for _, e := range errs {
		var re *apply.ReplacementError
		if errors.As(e, &re) && re.Err != nil && re.Err.Object == "" && ref != nil {
			re.Err.Object = ref.String()
		}
	}
}
