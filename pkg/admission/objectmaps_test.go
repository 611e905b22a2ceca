package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// answerOf is an answer's operations, sorted by path (the JSONPatch
// lists them in map order), and its warnings.
func answerOf(t testing.TB, resp admission.Response) string {
	var ops []map[string]any
	if len(resp.Patch) > 0 {
		if err := json.Unmarshal(resp.Patch, &ops); err != nil {
			t.Error(err)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return fmt.Sprint(ops[i]["path"]) < fmt.Sprint(ops[j]["path"]) })
	b, _ := json.Marshal(ops)
	return fmt.Sprintf("%v %s %q", resp.Allowed, b, resp.Warnings)
}

// TestObjectMapsAreNotKept admits different objects concurrently, many
// times, through a handler whose maps are lent from one pool: every
// answer is the one the object gets alone (run with -race, as make test
// does, it also finds a map written by two requests).
func TestObjectMapsAreNotKept(t *testing.T) {
	h, _, raw := benchHandler(t)
	var reqs []admissionv1.AdmissionRequest
	var want []string
	for i := range 8 {
		obj := strings.Replace(string(raw), `"replicas": 2`, fmt.Sprintf(`"replicas": %d`, i+10), 1)
		if i%2 == 1 {
			obj = strings.Replace(obj, `"name": "app"`, `"name": "app-other"`, 1)
		}
		req := request(admissionv1.Create, "shop", obj)
		req.Name = "web"
		resp := h.Handle(context.Background(), req)
		if !resp.Allowed {
			t.Fatalf("%d: denied: %v", i, resp.Result)
		}
		reqs = append(reqs, req.AdmissionRequest)
		want = append(want, answerOf(t, resp))
	}
	if want[0] == want[1] {
		t.Fatal("the objects are patched alike: the test cannot tell them apart")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 200 {
				i := (g + n) % len(reqs)
				req := request(admissionv1.Create, "shop", "")
				req.AdmissionRequest = reqs[i]
				resp := h.Handle(context.Background(), req)
				if got := answerOf(t, resp); got != want[i] {
					errs <- fmt.Errorf("object %d, round %d:\n%s\nwant\n%s", i, n, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
