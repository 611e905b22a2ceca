package kpatch

import (
	"encoding/json"
	"reflect"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// mergeOp is a strategic or JSON merge patch compiled for every API
// version of its kind that has a schema: the patch converted to the
// version's field types, as field entries are.
type mergeOp struct {
	entry     *MergeEntry
	schemas   []*mergePlan
	generic   *mergePlan
	templated bool // the patch holds variables: converted at apply time
}

// mergePlan is a merge patch for one API version of its kind.
type mergePlan struct {
	apiVersion, kind string
	root             *typeNode // nil: no schema, the patch as written
	patch            map[string]any
	err              *problem // placed
}

// compileMerge compiles a merge entry into a section of its own.
func compileMerge(m *MergeEntry) *section {
	kinds, current := targetSchemas(&m.Target)
	op := &mergeOp{entry: m, templated: treeHasVariables(m.Patch), generic: &mergePlan{patch: m.Patch}}
	for _, ks := range kinds {
		mp := &mergePlan{apiVersion: ks.apiVersion, kind: ks.gvk.Kind, root: ks.root}
		if !op.templated {
			mp.patch, mp.err = op.convert(m.Patch, ks.root, false)
		}
		op.schemas = append(op.schemas, mp)
	}
	var err *problem
	if !finite(m.Patch) { // an entry built without the parser
		err = op.place(errorf(ErrValue, "the patch holds an infinity or NaN, which JSON cannot carry"))
	} else if op.templated && treeReadsItem(m.Patch) {
		err = op.place(errorf(ErrVariable, "a merge patch reads no item: ${item} is the list item an entry applies in, under a path that selects items with *, k=v or allContainers (write a field entry)"))
	}
	if err != nil {
		for _, mp := range append(op.schemas, op.generic) {
			mp.err = err
		}
	}
	pos := m.targetPos
	if pos.Line == 0 { // an entry built without the parser
		pos = Position{Line: m.Line, Column: m.Col}
	}
	s := newSection(m.Target, pos, kinds, current)
	s.merge = op
	return s
}

// convert converts a patch to the schema below root: a built-in kind's,
// or with custom a custom resource's, which takes a JSON merge patch
// (no $-directives).
func (op *mergeOp) convert(patch map[string]any, root *typeNode, custom bool) (map[string]any, *problem) {
	out, err := coercePatch(patch, root, op.entry.src, op.entry.Strategic && !custom, custom)
	if err != nil {
		return nil, op.place(err)
	}
	return out.(map[string]any), nil
}

// place puts a problem without a position of its own at the entry.
func (op *mergeOp) place(err *problem) *problem {
	if err.line == 0 {
		return err.at(op.entry.Line, op.entry.Col)
	}
	return err
}

// planFor returns the plan for an object's API version and kind.
func (op *mergeOp) planFor(apiVersion, kind string) *mergePlan {
	for _, mp := range op.schemas {
		if mp.apiVersion == apiVersion && mp.kind == kind {
			return mp
		}
	}
	return op.generic
}

// patchFor returns the patch of mp with its variables resolved and
// converted; custom is the schema of a custom resource (ApplyOptions.
// Schemas), which converts the patch of a kind without Go types.
func (op *mergeOp) patchFor(mp *mergePlan, custom *typeNode, vars *Variables, ex *expansion) (map[string]any, *problem) {
	if mp.err != nil {
		return nil, mp.err
	}
	root, typed := mp.root, mp.root != nil
	if !typed {
		root = custom
	}
	if !op.templated && (typed || root == nil) {
		return mp.patch, nil
	}
	tree := any(mp.patch)
	if op.templated {
		var err *problem
		if tree, err = expandTree(op.entry.Patch, vars, ex); err != nil {
			return nil, op.place(err)
		}
	}
	if root == nil {
		return plainValue(tree).(map[string]any), nil
	}
	patch, err := op.convert(tree.(map[string]any), root, !typed)
	if err != nil && !typed {
		err = refusedBySchema(err)
	}
	return patch, err
}

// mergePatch applies a strategic merge patch (kinds with Go types) or a
// JSON merge patch (RFC 7386: the fallback, and type: merge) to the whole
// object. The result replaces the root through the undo log, so the file
// stays atomic.
func (a *applier) mergePatch(op *mergeOp, ref *ObjectRef, vars *Variables) *problem {
	patch, err := op.patchFor(op.planFor(ref.APIVersion, ref.Kind), a.custom, vars, &a.expanded)
	if err != nil {
		return err
	}
	if a.meter.count(itemCount(a.root)+itemCount(patch), jsonSize(patch)); a.meter.spent != nil {
		return op.place(a.meter.spent)
	}
	out, err := mergeUnderRecover(a.root, patch, op.entry.Strategic, ref)
	if err != nil {
		return op.place(err)
	}
	if !equalValue(out, a.root) {
		a.set(slot{}, out)
		a.own(mapPointer(out))
	}
	return nil
}

// mergeUnderRecover merges patch into a copy of root: a strategic merge
// patch for kinds with Go types when strategic is set, else a JSON merge
// patch. A panic of the merge libraries (the strategic one dereferences
// nil on a list holding null) is a problem wrapping ErrPanic.
func mergeUnderRecover(root, patch map[string]any, strategic bool, ref *ObjectRef) (out map[string]any, err *problem) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, panicProblem("the merge library", r)
		}
	}()
	original := jsonvalue.DeepCopy(root).(map[string]any)
	if dataStruct := goTypeOf(ref); strategic && dataStruct != nil {
		res, serr := strategicpatch.StrategicMergeMapPatch(original, jsonvalue.DeepCopy(patch).(map[string]any), dataStruct)
		if serr != nil {
			return nil, errorf(ErrValue, "strategic merge patch: %v", serr)
		}
		return res, nil
	}
	return jsonMergePatch(original, patch)
}

// jsonMergePatch applies an RFC 7386 JSON merge patch.
func jsonMergePatch(original, patch map[string]any) (map[string]any, *problem) {
	doc, err1 := json.Marshal(original)
	p, err2 := json.Marshal(patch)
	if err1 != nil || err2 != nil {
		return nil, errorf(ErrValue, "JSON merge patch: the object or the patch is not JSON")
	}
	merged, merr := jsonpatch.MergePatch(doc, p)
	if merr != nil {
		return nil, errorf(ErrValue, "JSON merge patch: %v", merr)
	}
	var out map[string]any
	if uerr := utiljson.Unmarshal(merged, &out); uerr != nil || out == nil {
		return nil, errorf(ErrValue, "JSON merge patch: the result is not an object")
	}
	return out, nil
}

// goTypeOf returns a new value of the Go type of the object's kind and
// version, or nil for kinds without one.
func goTypeOf(ref *ObjectRef) any {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil
	}
	t, ok := scheme.Scheme.AllKnownTypes()[gv.WithKind(ref.Kind)]
	if !ok {
		return nil
	}
	return reflect.New(t).Interface()
}

// treeHasVariables reports whether a structured value holds ${...}.
func treeHasVariables(v any) bool {
	return anyLeaf(v, func(leaf any) bool {
		s, ok := leaf.(string)
		return ok && strings.Contains(s, "${")
	})
}

// anyLeaf reports whether a leaf of a structured value (anything but a
// map or a list) satisfies leaf.
func anyLeaf(v any, leaf func(any) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if anyLeaf(e, leaf) {
				return true
			}
		}
		return false
	case []any:
		for _, e := range x {
			if anyLeaf(e, leaf) {
				return true
			}
		}
		return false
	}
	return leaf(v)
}

// expandTree returns a copy of a structured value with its variables
// resolved; a string that is exactly one variable takes its type.
func expandTree(v any, vars *Variables, ex *expansion) (any, *problem) {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "${") {
			return x, nil
		}
		parts, err := parseTemplate(x, 1)
		if err != nil {
			return nil, errorf(err.err, "%s", err.msg)
		}
		if parts == nil {
			return literalText(x), nil
		}
		return expandTemplate(&Value{Raw: x, Parts: parts}, vars, ex) // converted by the caller's coerceTree
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := expandTree(e, vars, ex)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := expandTree(e, vars, ex)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}
