package apply

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestRunOperation: on an UPDATE the files whose operations leave it out
// do not apply (an Observer is told Unmatched), the others apply to the
// object as on a CREATE; a CLI run without an operation is a CREATE.
// A file left out (Failing) is not reported on an operation it does not
// apply on.
func TestRunOperation(t *testing.T) {
	files := []File{
		patchFile(t, "both.kpatch", "[configmap.c]\ndata.both: \"1\"\n"),
		patchFile(t, "create.kpatch", "# kpatch:operations: CREATE\n[configmap.c]\ndata.create: \"1\"\n"),
		patchFile(t, "update.kpatch", "# kpatch:operations: update\n[configmap.c]\ndata.update: \"1\"\n"),
		Failing(patchFile(t, "failing.kpatch", "# kpatch:operations: CREATE\n[configmap.c]\ndata.failing: \"1\"\n"), context.Canceled),
	}
	for _, tc := range []struct {
		op, results string
		data        map[string]any
		unmatched   []string
	}{
		{"", "both.kpatch:patched create.kpatch:patched failing.kpatch:failed", map[string]any{"both": "1", "create": "1"}, []string{"update.kpatch"}},
		{"CREATE", "both.kpatch:patched create.kpatch:patched failing.kpatch:failed", map[string]any{"both": "1", "create": "1"}, []string{"update.kpatch"}},
		{"UPDATE", "both.kpatch:patched update.kpatch:patched", map[string]any{"both": "1", "update": "1"}, []string{"create.kpatch", "failing.kpatch"}},
	} {
		for _, stream := range []bool{false, true} {
			var unmatched []string
			opts := &Options{Operation: tc.op, Stream: stream, Observer: ObserverFunc(func(_ int, r FileRun, _, _ map[string]any) {
				if r.Result == Unmatched {
					unmatched = append(unmatched, r.File.Name())
					if !errors.Is(r.Err, ErrOtherOperation) {
						t.Errorf("%q: %s unmatched for %v", tc.op, r.File.Name(), r.Err)
					}
				}
			})}
			runs, err := Run(context.Background(), []map[string]any{configMap("c", nil)}, files, opts)
			if err != nil {
				t.Fatal(err)
			}
			var results []string
			for _, f := range runs[0].Files {
				results = append(results, f.File.Name()+":"+f.Result)
			}
			if got := strings.Join(results, " "); got != tc.results {
				t.Errorf("%q: %s, want %s", tc.op, got, tc.results)
			}
			if !reflect.DeepEqual(data(runs[0].Out), tc.data) {
				t.Errorf("%q: data %v, want %v", tc.op, data(runs[0].Out), tc.data)
			}
			if !reflect.DeepEqual(unmatched, tc.unmatched) {
				t.Errorf("%q: unmatched %v, want %v", tc.op, unmatched, tc.unmatched)
			}
		}
	}
}

// TestForOperation: the files of an operation, in order; the same slice
// when every file applies on it.
func TestForOperation(t *testing.T) {
	both := patchFile(t, "both.kpatch", "[configmap.c]\ndata.a: b\n")
	create := patchFile(t, "create.kpatch", "# kpatch:operations: CREATE\n[configmap.c]\ndata.a: b\n")
	repl := replacementsFile(t, "replacements: []\n")
	files := []File{both, create, repl}
	if got := ForOperation(files, "CREATE"); &got[0] != &files[0] || len(got) != 3 {
		t.Errorf("CREATE: %v, want the files themselves", got)
	}
	if got := ForOperation(files, "UPDATE"); !reflect.DeepEqual(got, []File{both, repl}) {
		t.Errorf("UPDATE: %v", got)
	}
	if got := ForOperation(files, "DELETE"); len(got) != 0 {
		t.Errorf("DELETE: %v", got)
	}
}
