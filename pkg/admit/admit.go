package admit

import (
	"bytes"
	"context"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/internal/objectjson"
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// Registry is what admitting an object reads of the registry: the files
// that may target the object, and their binding to it. A
// *registry.Registry is one.
type Registry interface {
	// Candidates are the files that may target an object of kind,
	// namespace and name, found before the object is decoded, in order.
	Candidates(kind, namespace, name string) []apply.File
	// VariesByObject reports whether f is bound to each object (its
	// values, built-ins or metadata depend on it).
	VariesByObject(f apply.File) bool
	// BindObject returns files as they apply to the object of oc: bound
	// to it, without those disabled for it, and, as failed runs, those
	// its values leave out.
	BindObject(files []apply.File, oc *registry.ObjectContext) ([]apply.File, []apply.FileRun)
}

var _ Registry = (*registry.Registry)(nil)

// Policy is how objects are admitted: the webhook's configuration, and
// what the CLI sets alike.
type Policy struct {
	// RegistryNamespace is never patched, nor is kube-system.
	RegistryNamespace string
	// Cluster is what the files read beside the object.
	Cluster Cluster
	// Budget bounds the work of each file on one object.
	Budget kpatch.Budget
	// Valid, if set, holds each result to what the API server accepts.
	Valid apply.Validator
	// ConditionBudget is the CEL cost the conditions of one owner's files
	// may spend on one object; 0 is condition.RequestBudget.
	ConditionBudget uint64
	// AnnotateApplied decodes the object of a request that no file may
	// target when it mentions AppliedAnnotation, for the webhook to keep
	// any value of it out.
	AnnotateApplied bool
	// Observer, if set, is told what each file did to the object (the
	// drift scan's drift.Observer).
	Observer apply.Observer
}

// Object is one object to admit as its request names it.
type Object struct {
	// Kind, Namespace and Name are the request's: the object's kind, the
	// namespace it is created in, its name ("" when generated).
	Kind, Namespace, Name string
	// Operation is the admission operation; "" is CREATE.
	Operation string
	// Raw is the object as the request carries it, decoded only when a
	// file may target it; Decoded, when set, is the object decoded.
	Raw     []byte
	Decoded map[string]any
	// OldRaw is the stored object of an UPDATE.
	OldRaw []byte
}

// Result is what admitting an object gives: the material of the answer.
type Result struct {
	// Run is what the files did to the object; nil when the object passes
	// unchanged without a run (a namespace never patched, no file that
	// may target it, an UPDATE of an object being deleted) or Err.
	Run *apply.ObjectRun
	// Patch is the JSONPatch from the object to Run.Out; nil when the
	// files changed nothing.
	Patch []byte
	// Err is an internal error: not a file's own failure.
	Err *Error
	// Ran says that the files ran, for Took long (binding included).
	Ran  bool
	Took time.Duration
	// Problems are the runs of the files that failed on the object, the
	// registry admin's first (adminFirst); Messages describe them, then
	// the ${required} fields nothing set, one message each, without the
	// prefix; BudgetSpent says that a CEL budget was spent before a
	// file's conditions.
	Problems    []apply.FileRun
	Messages    []string
	BudgetSpent bool

	maps *objectjson.Maps
}

// Release gives back the maps the object was decoded into: nothing of
// the result may be read after it.
func (r *Result) Release() { r.maps.Release() }

// Admit admits one object by the policy p over the files of reg (nil
// until the registry synced): the files that may target it, bound to its
// values, run in order, each to the result of the ones before. The files'
// conditions read req as request (nil: a CREATE by an unnamed user,
// apply.Admission); it is copied, never kept, so that the caller's stays
// on its stack. At the logger's debug level it logs what each file did
// (logTrace). ctx ends the run.
func Admit(ctx context.Context, log logr.Logger, p *Policy, reg Registry, in *Object, req *admissionv1.AdmissionRequest) Result {
	var res Result
	if !p.patches(in.Namespace) {
		return res
	}
	if err := ctx.Err(); err != nil {
		res.Err = canceled(err)
		return res
	}
	if reg == nil {
		res.Err = notSynced()
		return res
	}
	files := apply.ForOperation(reg.Candidates(in.Kind, in.Namespace, in.Name), in.Operation)
	if len(files) == 0 && !(p.AnnotateApplied && mentionsApplied(in.Raw)) {
		return res
	}
	obj := in.Decoded
	if obj == nil {
		res.maps = objectjson.TakeMaps()
		var err error
		if obj, err = objectjson.Decode(decodable(in.Raw, files), res.maps); err != nil {
			res.Err = decodeFailed(err)
			return res
		}
	}
	if e := checkNamespace(in.Namespace, obj); e != nil {
		res.Err = e
		return res
	}
	if terminating(in, obj) {
		return res
	}
	opts := apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: in.Namespace, Budget: p.Budget},
		Sources: p.Cluster, Valid: p.Valid, Operation: in.Operation, Observer: p.Observer}
	if res.maps != nil {
		opts.NewMap = res.maps.Get // the engine's copies die with the object
		opts.NewList = res.maps.List
	}
	start := time.Now()
	bound, leftOut := bindValues(p.Cluster, reg, files, in, obj)
	opts.Admission = p.admission(in, req, res.maps, bound)
	// debug level only (trace.go)
	logTrace(ctx, log, obj, files, bound, leftOut, &opts)
	run, patch, err := apply.RunPatch(ctx, obj, bound, &opts)
	res.Ran, res.Took = true, time.Since(start)
	if run != nil {
		run.Files = append(run.Files, leftOut...)
	}
	if err != nil {
		res.Run, res.Err = run, runFailed(ctx, err)
		return res
	}
	res.Run, res.Patch = run, patch
	res.Problems, res.Messages, res.BudgetSpent = messages(run)
	return res
}

// patches reports whether an object of namespace is one the webhook may
// patch: not in kube-system nor in the registry namespace.
func (p *Policy) patches(namespace string) bool {
	return namespace != "kube-system" && (namespace == "" || namespace != p.RegistryNamespace)
}

// bindValues returns the files bound to the values of the object
// (Registry.BindObject): the files whose values depend on it
// (per-namespace values, built-ins, metadata) bound for it, without
// those its values disable, and, as failed runs, those that its values
// leave out. It reads the object's Namespace from c, and allocates only
// when such a file may target the object.
func bindValues(c Cluster, reg Registry, files []apply.File, in *Object, obj map[string]any) ([]apply.File, []apply.FileRun) {
	for _, f := range files {
		if !reg.VariesByObject(f) {
			continue
		}
		ref := kpatch.RefOf(obj, in.Namespace)
		if ns, ok := c.Namespace(ref.Namespace); ok {
			return reg.BindObject(files, registry.NewObjectContext(in.Kind, &ref, ns.Namespace(), ns.Values(), obj))
		}
		return reg.BindObject(files, registry.NewObjectContext(in.Kind, &ref, nil, nil, obj))
	}
	return files, nil
}

// AppliedAnnotation names on the object, with the webhook's
// --annotate-applied, the files that changed it. Only the webhook writes
// it.
const AppliedAnnotation = "kpatch.dev/applied"

// mentionsApplied reports whether a request's object may carry
// AppliedAnnotation: the object of a request whose kind no file targets
// is decoded only then.
func mentionsApplied(raw []byte) bool {
	return bytes.Contains(raw, []byte(AppliedAnnotation))
}

// decodable is the object raw as the files need it decoded: without its
// metadata.managedFields (about half of what the API server sends) when
// none of them may read or write them (apply.Meta.ManagedFields), so
// that the answer's JSONPatch, computed without them before and after,
// leaves the API server's own as they are.
func decodable(raw []byte, files []apply.File) []byte {
	for _, f := range files {
		if f.Meta().ManagedFields {
			return raw
		}
	}
	cut, _ := objectjson.WithoutManagedFields(raw)
	return cut
}
