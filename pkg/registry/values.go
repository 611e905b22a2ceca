package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// fileValues is how one registry file's values depend on the object it
// patches: the parameters it reads, which a Namespace's annotations
// values.kpatch.dev/NAME (or, for parameters declared fromObject, the
// object's own) may set, and whether it reads built-ins. Immutable.
type fileValues struct {
	pv *parsedValues
	// patch is the file bound to its ConfigMap's values: what applies when
	// no annotation sets a parameter it reads (unless incomplete).
	patch *kpatch.Patch
	// file is the file as the registry holds it (a tenant's held to its
	// namespace), of which patch is the compiled patch: what a binding
	// binds (File.WithValues).
	file apply.File
	// inputs are the parameters whose values decide the file's: those it
	// reads, and those their defaults read.
	inputs map[string]bool
	// fromObject says that an input is declared fromObject: true.
	fromObject bool
	// builtins says that the file reads ${object.*} or ${namespace.*}.
	builtins bool
	// incomplete says that an input has no value in the ConfigMap: the
	// file is bound for each object, and fails where no annotation gives
	// the value.
	incomplete bool
}

// newFileValues returns how the file of refs, whose conditions read the
// parameters params, depends on the object; nil when it does not.
func newFileValues(pv *parsedValues, refs []kpatch.Reference, params []string) *fileValues {
	fv := &fileValues{pv: pv}
	names := params
	for _, r := range refs {
		if r.Var.IsBuiltin() {
			fv.builtins = true
		} else {
			names = append(names, r.Var.Path[0])
		}
	}
	for _, name := range pv.schema.Inputs(names...) {
		if fv.inputs == nil {
			fv.inputs = map[string]bool{}
		}
		fv.inputs[name] = true
		p, _ := pv.schema.Lookup(name)
		fv.fromObject = fv.fromObject || p.FromObject()
		fv.incomplete = fv.incomplete || pv.missing[name]
	}
	if fv.inputs == nil && !fv.builtins {
		return nil
	}
	return fv
}

// ObjectContext is what the files of one request read about the object:
// its Namespace and annotations, found once for every file.
type ObjectContext struct {
	namespace *corev1.Namespace // nil when not known
	// nsValues and objValues are the annotations values.kpatch.dev/NAME
	// of the Namespace and of the object, sorted by key.
	nsValues, objValues []Annotation
	object              string // "Kind namespace/name", for errors
	builtins            parameters.Builtins
	ref                 kpatch.ObjectRef // as the files match the object
}

// Annotation is one annotation values.kpatch.dev/NAME: NAME's parameter
// is the text before its first dot.
type Annotation struct{ key, param, value string }

// namespaceName is the name of the object's Namespace; empty when it is
// not known.
func (oc *ObjectContext) namespaceName() string {
	if oc.namespace == nil {
		return ""
	}
	return oc.namespace.Name
}

// ValueAnnotations returns the annotations values.kpatch.dev/NAME of m,
// sorted by key; nil when there is none.
func ValueAnnotations(m map[string]string) []Annotation {
	var out []Annotation
	for k, v := range m {
		name, ok := strings.CutPrefix(k, parameters.AnnotationPrefix)
		if !ok || name == "" {
			continue
		}
		param, _, _ := strings.Cut(name, ".")
		out = append(out, Annotation{key: k, param: param, value: v})
	}
	slices.SortFunc(out, func(a, b Annotation) int { return strings.Compare(a.key, b.key) })
	return out
}

// forObject returns the file bound to its values for the object of oc,
// or an error naming the parameter and the annotation that gave it when
// a value fails the schema or does not fit the file.
func (fv *fileValues) forObject(cache *boundCache, oc *ObjectContext) (apply.File, error) {
	var nsBuf, objBuf [8]Annotation // most files read a few parameters: no allocation
	ns, obj := fv.relevant(nsBuf[:0], oc.nsValues, false), fv.relevant(objBuf[:0], oc.objValues, true)
	file, vars := fv.file, fv.patch.Variables()
	if len(ns) > 0 || len(obj) > 0 || fv.incomplete {
		e, err := cache.bind(fv, oc, ns, obj)
		if err != nil {
			return nil, err
		}
		file, vars = e.file, e.patch.Variables()
	}
	if !fv.builtins {
		return file, nil
	}
	return file.WithValues(vars.WithBuiltins(&oc.builtins)), nil
}

// sets reports whether the annotation a (of the object when object is
// true) sets an input of the file: on the object, only a fromObject
// parameter does.
func (fv *fileValues) sets(a Annotation, object bool) bool {
	if fv.pv.schema == nil || !fv.inputs[a.param] || object && !fv.fromObject {
		return false
	}
	if !object {
		return true
	}
	p, _ := fv.pv.schema.Lookup(a.param)
	return p.FromObject()
}

// relevant appends to out the annotations of all that set an input of
// the file.
func (fv *fileValues) relevant(out, all []Annotation, object bool) []Annotation {
	for _, a := range all {
		if fv.sets(a, object) {
			out = append(out, a)
		}
	}
	return out
}

// resolve binds the file to its ConfigMap's values with the annotations
// ns (of the Namespace) and obj (of the object) on top.
func (fv *fileValues) resolve(oc *ObjectContext, ns, obj []Annotation) (*kpatch.Patch, error) {
	nsName := oc.namespaceName()
	vars, err := fv.pv.base.Resolve(
		parameters.NamespaceAnnotations(nsName, annotationMap(ns)),
		parameters.ObjectAnnotations(oc.object, annotationMap(obj)))
	if err = fv.ownErrors(err); err != nil {
		return nil, valuesError(fv.patch.Name(), nsName, err)
	}
	bound, err := fv.patch.Bind(vars)
	if err != nil && len(ns)+len(obj) > 0 {
		return nil, annotationError(fv.patch.Name(), nsName, oc.object, ns, obj, err)
	}
	return bound, err
}

// annotationError is a file that does not take the values the
// annotations ns (of the Namespace) and obj (of the object) gave it: its
// name, the annotations whose parameters the errors name (all of them
// when they name none), then each error.
func annotationError(file, namespace, object string, ns, obj []Annotation, err error) error {
	var named []string
	msg := err.Error()
	for _, group := range []struct {
		owner string
		list  []Annotation
	}{{"namespace " + namespace, ns}, {object, obj}} {
		for _, a := range group.list {
			if strings.Contains(msg, "${values."+a.param) || strings.Contains(msg, "${features."+a.param) {
				named = append(named, group.owner+" annotation "+a.key)
			}
		}
	}
	if len(named) == 0 {
		for _, a := range ns {
			named = append(named, "namespace "+namespace+" annotation "+a.key)
		}
		for _, a := range obj {
			named = append(named, object+" annotation "+a.key)
		}
	}
	errs, ok := err.(kpatch.ErrorList)
	if !ok {
		errs = kpatch.ErrorList{err}
	}
	var list kpatch.ErrorList
	for _, e := range errs {
		list = append(list, fmt.Errorf("%s: not applied: %s: %w", file, strings.Join(named, ", "), e))
	}
	return list
}

// ownErrors keeps the errors about the file's inputs: another file's
// parameter without a value is that file's concern.
func (fv *fileValues) ownErrors(err error) error {
	if err == nil {
		return nil
	}
	var own kpatch.ErrorList
	for _, e := range err.(kpatch.ErrorList) {
		var pe *parameters.Error
		if !errors.As(e, &pe) || fv.inputs[pe.Param] {
			own = append(own, e)
		}
	}
	return own.Err()
}

// valuesError is a file that the values of one object leave out: its
// name, then each error of the values, with a hint for a required
// parameter that the Namespace may set.
func valuesError(file, namespace string, err error) error {
	var list kpatch.ErrorList
	for _, e := range err.(kpatch.ErrorList) {
		var pe *parameters.Error
		if errors.As(e, &pe) && errors.Is(pe, parameters.ErrRequired) && namespace != "" {
			e = fmt.Errorf("%w; or annotate Namespace %s with %s%s", e, namespace, parameters.AnnotationPrefix, pe.Param)
		}
		list = append(list, fmt.Errorf("%s: not applied: %w", file, e))
	}
	return list
}

func annotationMap(list []Annotation) map[string]string {
	if len(list) == 0 {
		return nil
	}
	m := make(map[string]string, len(list))
	for _, a := range list {
		m[a.key] = a.value
	}
	return m
}

// addValues records a file whose values depend on the object.
func (r *Registry) addValues(f RegistryFile) {
	if f.params == nil {
		return
	}
	if r.values == nil {
		r.values, r.bound = map[apply.File]*fileValues{}, newBoundCache()
	}
	r.values[f.File] = f.params
}

// objectValueAnnotations returns the text annotations values.kpatch.dev/
// of a decoded object.
func objectValueAnnotations(ann map[string]any) []Annotation {
	var m map[string]string
	for k, v := range ann {
		if s, ok := v.(string); ok && strings.HasPrefix(k, parameters.AnnotationPrefix) {
			if m == nil {
				m = map[string]string{}
			}
			m[k] = s
		}
	}
	return ValueAnnotations(m)
}

// ForObject returns the registry's file f as it applies to the object of
// oc: bound to its values, checked against its metadata (a patch file's;
// other kinds read neither); nil when it is disabled for the object, or
// when f varies by object (VariesByObject) and does not target it.
func (r *Registry) ForObject(f apply.File, oc *ObjectContext) (apply.File, error) {
	fv, fm := r.values[f], r.meta[f]
	if fv == nil && fm == nil {
		return f, nil
	}
	if !targets(f, &oc.ref) {
		return nil, nil
	}
	bound := f
	if fv != nil {
		b, err := fv.forObject(r.bound, oc)
		if err != nil {
			return nil, err
		}
		bound = b
	}
	if fm != nil {
		return fm.check(r, bound, oc)
	}
	return bound, nil
}

// targets reports whether a target of f (File.Targets) addresses the
// object ref: only a file with targets has values or metadata.
func targets(f apply.File, ref *kpatch.ObjectRef) bool {
	for _, t := range f.Targets() {
		if t.Matches(ref) {
			return true
		}
	}
	return false
}

// NewObjectContext is what the files read about an object of kind
// identified as ref: its Namespace, when known (ns, with its annotations
// values.kpatch.dev/ parsed as nsValues), and its own annotations
// values.kpatch.dev/.
func NewObjectContext(kind string, ref *kpatch.ObjectRef, ns *corev1.Namespace, nsValues []Annotation, obj map[string]any) *ObjectContext {
	oc := &ObjectContext{object: kind + " " + ref.Namespace + "/" + ref.Name, ref: *ref}
	if ref.Namespace == "" {
		oc.object = kind + " " + ref.Name
	}
	if ref.Name == "" {
		oc.object += "(generated name)"
	}
	if ns != nil {
		oc.namespace, oc.nsValues = ns, nsValues
		oc.builtins.NamespaceLabels, oc.builtins.NamespaceAnnotations = ns.Labels, ns.Annotations
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			oc.objValues = objectValueAnnotations(ann)
		}
	}
	oc.builtins.ObjectName, oc.builtins.ObjectNamespace = ref.Name, ref.Namespace
	return oc
}

// DependsOnObject reports whether some file of the registry is bound to
// each object (per-namespace values, built-ins) or checks its metadata
// against it: when not, ForObject is never needed.
func (r *Registry) DependsOnObject() bool { return len(r.values) > 0 || len(r.meta) > 0 }

// VariesByObject reports whether the file f of the registry is bound to
// each object or checks its metadata against it (ForObject).
func (r *Registry) VariesByObject(f apply.File) bool {
	return r.values[f] != nil || r.meta[f] != nil
}

// conditionParams are the parameters that the file's conditions and CEL
// expressions (${cel:} values, foreach) read as params: the fields they
// select, or, for one that reads params as a whole, every parameter of
// the schema.
func conditionParams(p *kpatch.Patch, schema *parameters.Schema) []string {
	var out []string
	for _, r := range p.ParamReads() {
		if r.Whole && schema != nil {
			return schema.Names()
		}
		if !r.Whole {
			out = append(out, r.Name)
		}
	}
	return out
}

// BindObject returns files, candidates of the registry for the object
// of oc, as they apply to it: each file that varies by object
// (VariesByObject) bound for it (ForObject), without those disabled for
// it; and, as failed runs, those its values leave out (a value that
// fails, a requirement disabled for the object, a conflicting file
// enabled for it). It allocates only when such a file is among files;
// files is never modified.
func (r *Registry) BindObject(files []apply.File, oc *ObjectContext) ([]apply.File, []apply.FileRun) {
	if !r.DependsOnObject() {
		return files, nil
	}
	var (
		out    []apply.File
		failed []apply.FileRun
	)
	for i, f := range files {
		if !r.VariesByObject(f) {
			if out != nil {
				out = append(out, f)
			}
			continue
		}
		bound, err := r.ForObject(f, oc)
		if bound == f && err == nil && out == nil {
			continue
		}
		if out == nil {
			out = append(make([]apply.File, 0, len(files)), files[:i]...)
		}
		if err != nil {
			matched := oc.ref
			failed = append(failed, apply.FileRun{File: f, Result: apply.Failed, Err: err, Ref: &matched})
			continue
		}
		if bound != nil { // nil: disabled for the object, or not its target
			out = append(out, bound)
		}
	}
	if out == nil {
		return files, failed
	}
	return out, failed
}
