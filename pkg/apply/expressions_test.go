package apply

import "testing"

// TestExpressionsShareTheConditionsBudget: the CEL values of the files
// read the conditions' variables (object as it entered the loop, params
// the file's values) and are charged to the same budget of the owner on
// the object: past it, the next file's value fails, leaving that file
// out.
func TestExpressionsShareTheConditionsBudget(t *testing.T) {
	run := runPastBudget(t, "[deployment.*]\nlabels.l%d: ${cel: object.spec.template.spec.containers.all(c, c.name.size() > 0) ? 'yes' : 'no'}\n")
	if got := labelsOf(run.Out); got["l0"] != "yes" || got["l1"] != "yes" || len(got) != 2 {
		t.Errorf("labels %v", got)
	}
}
