package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/schema"
)

// setFile is a file that sets one field of a Deployment's first
// container, or of its metadata, to a value no compile-time check saw: as
// a value read at admission would.
type setFile struct {
	name  string
	path  []string // from the object
	value any
}

func (f setFile) Name() string                                                            { return f.name }
func (f setFile) Targets() []*kpatch.Target                                               { return nil }
func (f setFile) Kinds() ([]string, bool)                                                 { return []string{"deployment"}, false }
func (f setFile) MayTarget(string, string, string) bool                                   { return true }
func (f setFile) Matches(*Object) bool                                                    { return true }
func (f setFile) WithValues(*kpatch.Variables) File                                       { return f }
func (f setFile) Required(map[string]any, *kpatch.ObjectRef, kpatch.ApplyOptions) []error { return nil }
func (f setFile) Meta() Meta                                                              { return Meta{Operations: kpatch.AllOperations} }
func (f setFile) EvalConditions(*Object)                                                  {}
func (f setFile) Enabled() (bool, string, error)                                          { return true, "", nil }
func (f setFile) Check() []error                                                          { return nil }

// Apply copies the maps on the path and sets the value, sharing the rest
// with the object, as the engine does.
func (f setFile) Apply(o *Object) (string, error) {
	root := copyMap(o.Current())
	cur := root
	for _, k := range f.path[:len(f.path)-1] {
		if list, ok := cur[k].([]any); ok { // the first item of a list
			l := append([]any(nil), list...)
			item := copyMap(l[0].(map[string]any))
			l[0] = item
			cur[k] = l
			cur = item
			continue
		}
		next, _ := cur[k].(map[string]any)
		next = copyMap(next)
		cur[k] = next
		cur = next
	}
	cur[f.path[len(f.path)-1]] = f.value
	o.Set(root)
	return Patched, nil
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func deployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "prod"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "main", "image": "nginx:1.0"}},
		}}},
	}
}

var policyPath = []string{"spec", "template", "spec", "containers", "imagePullPolicy"}

// TestValidLeavesOutTheFileThatBreaksTheObject: a file whose value the
// API server would refuse is left out of the object with a RefusedError
// naming file, object, field and reason; the files before and after it
// apply, observed or not.
func TestValidLeavesOutTheFileThatBreaksTheObject(t *testing.T) {
	files := []File{
		setFile{"team.kpatch", []string{"metadata", "labels"}, map[string]any{"team": "web"}},
		setFile{"policy.kpatch", policyPath, "Allways"},
		setFile{"version.yaml", []string{"metadata", "annotations"}, map[string]any{"version": int64(1)}},
		setFile{"replicas.kpatch", []string{"spec", "replicas"}, int64(3)},
	}
	for _, observed := range []bool{false, true} {
		var seen []string
		opts := &Options{Valid: &schema.Checker{}}
		if observed {
			opts.Observer = ObserverFunc(func(_ int, r FileRun, _, _ map[string]any) { seen = append(seen, r.File.Name()+":"+r.Result) })
		}
		run, err := RunObject(context.Background(), deployment(), files, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := "team.kpatch:patched policy.kpatch:failed version.yaml:failed replicas.kpatch:patched"
		if got := runResults(run); got != want {
			t.Errorf("observed %v: %s, want %s", observed, got, want)
		}
		if observed && strings.Join(seen, " ") != want {
			t.Errorf("observer saw %v, want %s (once each)", seen, want)
		}
		if err := (&schema.Checker{}).Check(run.In, run.Out); err != nil {
			t.Errorf("observed %v: the result is refused: %v", observed, err)
		}
		if run.Out["spec"].(map[string]any)["replicas"] != int64(3) {
			t.Errorf("replicas.kpatch not applied: %v", run.Out["spec"])
		}
		failed := run.Failed()
		if len(failed) != 2 {
			t.Fatalf("failed %+v", failed)
		}
		var refused *RefusedError
		if !errors.As(failed[0].Err, &refused) || !errors.Is(failed[0].Err, schema.ErrRefused) {
			t.Fatalf("error %v is no RefusedError wrapping schema.ErrRefused", failed[0].Err)
		}
		for _, part := range []string{"policy.kpatch: not applied", "Deployment prod/web", "spec.template.spec.containers[0].imagePullPolicy", `"Allways" is not one of Always, IfNotPresent, Never (did you mean Always?)`} {
			if !strings.Contains(failed[0].Err.Error(), part) {
				t.Errorf("%q does not say %q", failed[0].Err, part)
			}
		}
		if msg := failed[1].Err.Error(); !strings.Contains(msg, "metadata.annotations.version: the field is a string, not the number 1") {
			t.Errorf("version.yaml: %s", msg)
		}
	}
}

// TestValidJudgesTheResult: a value a later file corrects does not cost
// the file that wrote it, and a refused value the object came with is
// not the files' doing.
func TestValidJudgesTheResult(t *testing.T) {
	files := []File{
		setFile{"a.kpatch", policyPath, "Allways"},
		setFile{"b.kpatch", policyPath, "Always"},
	}
	run, err := RunObject(context.Background(), deployment(), files, &Options{Valid: &schema.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := runResults(run), "a.kpatch:patched b.kpatch:patched"; got != want {
		t.Errorf("%s, want %s", got, want)
	}

	in := deployment()
	in["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["imagePullPolicy"] = "Allways"
	label := []File{setFile{"team.kpatch", []string{"metadata", "labels"}, map[string]any{"team": "web"}}}
	if run, err = RunObject(context.Background(), in, label, &Options{Valid: &schema.Checker{}}); err != nil {
		t.Fatal(err)
	}
	if got, want := runResults(run), "team.kpatch:patched"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

// TestValidInRun: in a run of several objects, a file is left out of the
// object it breaks only.
func TestValidInRun(t *testing.T) {
	cm := configMap("c", nil)
	files := []File{setFile{"v.kpatch", []string{"data"}, map[string]any{"k": true}}}
	runs, err := Run(context.Background(), []map[string]any{deployment(), cm}, files, &Options{Valid: &schema.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	// a Deployment has no data: refused; a ConfigMap's data holds strings
	if got := runResults(runs[0]); got != "v.kpatch:failed" {
		t.Errorf("Deployment: %s", got)
	}
	if got := runResults(runs[1]); got != "v.kpatch:failed" {
		t.Errorf("ConfigMap: %s", got)
	}
	files = []File{setFile{"v.kpatch", []string{"data"}, map[string]any{"k": "v"}}}
	if runs, err = Run(context.Background(), []map[string]any{deployment(), cm}, files, &Options{Valid: &schema.Checker{}}); err != nil {
		t.Fatal(err)
	}
	if got := runResults(runs[0]) + " " + runResults(runs[1]); got != "v.kpatch:failed v.kpatch:patched" {
		t.Errorf("%s", got)
	}
	if !strings.Contains(runs[0].Files[0].Err.Error(), `Deployment has no field "data"`) {
		t.Errorf("%v", runs[0].Files[0].Err)
	}
}
