package drift

import (
	"encoding/json"
	"errors"
	"slices"

	"gomodules.xyz/jsonpatch/v2"

	"kpatch.dev/kpatch/pkg/apply"
)

// Observer collects, as an apply.Observer of the admission of one object,
// the files that would change it (FileChange): those that patched it,
// with the fields they changed, and those left out of the UPDATE for a
// field it may not change, as the apply loop decides it
// (apply.ImmutableError). An Admitter sets it as the Observer of its
// apply.Options and returns Files.
type Observer struct {
	files []FileChange
}

var _ apply.Observer = (*Observer)(nil)

// Observe records what one file did to the object.
func (o *Observer) Observe(_ int, run apply.FileRun, before, after map[string]any) {
	change := FileChange{File: run.File.Name(), Reconcile: run.File.Meta().Reconcile}
	o.files = slices.DeleteFunc(o.files, func(c FileChange) bool { return c.File == change.File })
	var immutable *apply.ImmutableError
	switch {
	case run.Result == apply.Immutable && errors.As(run.Err, &immutable):
		change.Immutable, change.Fields = immutable.Field, []string{immutable.Field}
	case run.Result == apply.Patched:
		change.Fields = changedFields(before, after)
	default:
		return
	}
	o.files = append(o.files, change)
}

// Files are the files that would change the object, in the order they
// applied.
func (o *Observer) Files() []FileChange { return o.files }

// changedFields are the JSON pointers of the fields where after differs
// from before, sorted; the whole object ("") when either does not encode.
func changedFields(before, after map[string]any) []string {
	b, errB := json.Marshal(before)
	a, errA := json.Marshal(after)
	if errB != nil || errA != nil {
		return []string{""}
	}
	ops, err := jsonpatch.CreatePatch(b, a)
	if err != nil {
		return []string{""}
	}
	fields := make([]string, 0, len(ops))
	for _, op := range ops {
		fields = append(fields, op.Path)
	}
	slices.Sort(fields)
	return slices.Compact(fields)
}
