package apply

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestExpressionsShareTheConditionsBudget: the CEL values of the files
// read the conditions' variables (object as it entered the loop, params
// the file's values) and are charged to the same budget of the owner on
// the object: past it, the next file's value fails, leaving that file
// out.
func TestExpressionsShareTheConditionsBudget(t *testing.T) {
	var files []File
	for i := range 4 {
		files = append(files, patchFile(t, fmt.Sprintf("%d.kpatch", i), fmt.Sprintf("[deployment.*]\nlabels.l%d: ${cel: object.spec.template.spec.containers.all(c, c.name.size() > 0) ? 'yes' : 'no'}\n", i)))
	}
	// each evaluation costs 13 on this object: the third goes past 30
	run, err := RunObject(context.Background(), deploymentObj(1, nil), files, &Options{Admission: Admission{CostBudget: 30}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := runResults(run), "0.kpatch:patched 1.kpatch:patched 2.kpatch:failed 3.kpatch:failed"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
	for _, f := range run.Files[2:] {
		if f.Err == nil || !strings.Contains(f.Err.Error(), "per request 30") {
			t.Errorf("%s: %v", f.File.Name(), f.Err)
		}
	}
	if got := labelsOf(run.Out); got["l0"] != "yes" || got["l1"] != "yes" || len(got) != 2 {
		t.Errorf("labels %v", got)
	}
}
