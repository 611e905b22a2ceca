package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// defaultRegistryNamespace is the webhook's --registry-namespace outside
// a pod, which --admission reads the input with.
const defaultRegistryNamespace = "kpatch-system"

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

// admitManifests admits each object of m, and each item of its Lists,
// alone, as the webhook's handler does on a CREATE of it (admit.Admit):
// the files of reg that may target it, in order, each to the result of
// the ones before, bound to its values; a replacements file reads the
// object, its Namespace and the source ConfigMaps of the input. A file
// whose result would not encode as a JSONPatch is left out, as the
// webhook leaves it out; an object the webhook never patches is left as
// it is. It writes the results back to the documents; every problem goes
// to found, object by object.
func admitManifests(reg *registry.Registry, m *manifest.Set, adm *admission, found *lint.Findings) {
	var objs []map[string]any
	for _, d := range m.Docs {
		objs = append(objs, d.Items()...)
	}
	in, warnings := admit.NewInput(objs, adm.registryNamespace, adm.namespace)
	for _, w := range warnings {
		found.Warn(w)
	}
	p := &admit.Policy{RegistryNamespace: adm.registryNamespace, Cluster: in, Valid: adm.valid}
	runs := make([]*apply.ObjectRun, len(objs))
	for i, obj := range objs {
		ref := kpatch.RefOf(obj, adm.namespace)
		// conditions read the request of the --request-* flags and the
		// object's Namespace in the input
		res := admit.Admit(context.Background(), logr.Discard(), p, reg, &admit.Object{
			Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name,
			Operation: operationOf(adm.request), Decoded: obj,
		}, adm.request) // never cancelled; a result that does not encode leaves the object as it was
		if runs[i] = res.Run; res.Run == nil {
			if res.Err != nil {
				found.Add(fmt.Errorf("%s: %w", ref.String(), res.Err))
			}
			runs[i] = &apply.ObjectRun{In: obj, Out: obj}
		}
	}
	reportAdmitted(runs, found)
	setResults(m, runs)
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
