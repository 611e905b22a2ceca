package admit

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// TestTraceSaysWhatEachFileDid: the debug view lists the candidate files
// in order with their changes (old -> new), failures and skips.
func TestTraceSaysWhatEachFileDid(t *testing.T) {
	reg := newRegistry(t, map[string]string{
		"a.kpatch": "[deployment.web]\nreplicas: 3\nlabels.team: shop\n",
		"b.kpatch": "[deployment.web]\nreplicas: 3\n",
		"c.kpatch": "[deployment.web]\ncontainers[name=missing].image: x\n",
		"d.kpatch": "[deployment(example.com).web]\nspec.replicas: 9\n",
	})
	var obj map[string]any
	if err := json.Unmarshal([]byte(deploymentJSON), &obj); err != nil {
		t.Fatal(err)
	}
	candidates := reg.Candidates("Deployment", "shop", "web")
	opts := &apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: "shop"}}
	got := traceRun(context.Background(), obj, traced(candidates, candidates, nil), opts)
	want := []FileTrace{
		{File: "reg/a.kpatch", Result: apply.Patched, Changes: []string{`add /metadata/labels: {"team":"shop"}`, "replace /spec/replicas: 1 -> 3"}},
		{File: "reg/b.kpatch", Result: apply.Unchanged},
		{File: "reg/c.kpatch", Result: apply.Failed},
		{File: "reg/d.kpatch", Result: fileSkipped, Reason: "no target of the file matches the object"},
	}
	if len(got) != len(want) {
		t.Fatalf("trace %+v", got)
	}
	for i := range want {
		if want[i].Result == apply.Failed {
			if got[i].Result != apply.Failed || !strings.Contains(got[i].Reason, "reg/c.kpatch:2: not applied: ") {
				t.Errorf("file %d: %+v", i, got[i])
			}
			continue
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("file %d: %+v\nwant %+v", i, got[i], want[i])
		}
	}
}
