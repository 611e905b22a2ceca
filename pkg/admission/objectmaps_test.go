package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestObjectMapsComeBackEmpty decodes objects one after the other into
// the same lent maps: each is what a fresh decoding makes, nothing of the
// one before left in it, and the maps are the same ones.
func TestObjectMapsComeBackEmpty(t *testing.T) {
	bench, err := os.ReadFile("../kpatch/testdata/bench/deployment.json")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{
		string(bench),
		`{"a":{"b":1,"c":{"d":[{"e":"f"}]}},"g":{}}`,
		`{"x":{"y":2}}`,
		`{"big":{` + members(40) + `},"small":{"a":null}}`,
		string(bench),
	}
	maps := new(objectMaps) // not from the pool, which may drop what it is given
	var first map[string]any
	for i, doc := range docs {
		got, err := decodeObject([]byte(doc), maps)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		want, err := decodeObject([]byte(doc), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: decoded into lent maps\n%v\nwant %v", i, got, want)
		}
		if i == 0 {
			first = got
		}
		if i == len(docs)-1 && mapAddress(got) != mapAddress(first) {
			t.Error("the root map was not lent again")
		}
		maps.empty()
		if len(first) != 0 {
			t.Fatalf("%d: an emptied map keeps %d members", i, len(first))
		}
	}
}

func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":{"v":%d}`, i, i)
	}
	return b.String()
}

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

func mapAddress(m map[string]any) string { return fmt.Sprintf("%p", m) }

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
