package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/condition"
)

// TestItemConditionsShareTheBudget: per-item conditions are charged to
// the object's budget of their owner, as section conditions are: past
// it, the file fails with ErrBudgetSpent, as the webhook answers an
// internal error; an Observer is told each item's result.
func TestItemConditionsShareTheBudget(t *testing.T) {
	f := patchFile(t, "i.kpatch", "[deployment.*.containers.*]\n# kpatch:when: item.name.size() > 0 && item.image.size() > 0\nimagePullPolicy: Always\n")
	obj := deploymentObj(1, nil)
	spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		spec["containers"] = append(spec["containers"].([]any), map[string]any{"name": name, "image": "x"})
	}
	run, err := RunObject(context.Background(), obj, []File{f}, &Options{})
	if err != nil || runResults(run) != "i.kpatch:patched" {
		t.Fatalf("%v %s", err, runResults(run))
	}
	run, err = RunObject(context.Background(), obj, []File{f}, &Options{Admission: Admission{CostBudget: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if runResults(run) != "i.kpatch:failed" || !condition.IsBudgetSpent(run.Files[0].Err) || !strings.Contains(run.Files[0].Err.Error(), "when of [deployment.*.containers[*]], item spec.template.spec.containers[name=") {
		t.Errorf("%s: %v", runResults(run), run.Files[0].Err)
	}
	var runs []ConditionRun
	_, err = RunObject(context.Background(), obj, []File{f}, &Options{Observer: ObserverFunc(func(_ int, r FileRun, _, _ map[string]any) {
		if r.Conditions != nil {
			runs = append(runs, r.Conditions.Runs...)
		}
	})})
	if err != nil || len(runs) != 6 || runs[0].Item != "spec.template.spec.containers[name=main]" || !runs[5].Held {
		t.Errorf("%v: runs %+v", err, runs)
	}
	if errors.Is(run.Files[0].Err, condition.ErrEvaluation) {
		t.Error("a spent budget is no evaluation error")
	}
}
