package admission

import (
	"errors"
	"fmt"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// missingRequired describes the fields that the files which applied to
// the object mark ${required} and that the patched object does not hold,
// one message each: file, line, field. A file that failed on the object
// requires nothing of it.
func missingRequired(run *apply.ObjectRun) []string {
	var out []string
	for _, err := range run.Required() {
		var ae *kpatch.ApplyError
		if errors.As(err, &ae) {
			out = append(out, fmt.Sprintf("%s:%d: %s", ae.Pos.File, ae.Pos.Line, ae.Msg))
		} else {
			out = append(out, err.Error())
		}
	}
	return out
}
