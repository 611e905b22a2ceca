package apply

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestAuditMode: a file in audit mode is evaluated where it stands in the
// order and leaves the object as it was: the files after it see the
// object as if it were not there (a set-if-absent entry still sets the
// field it would have set), it is WouldPatch where it would have changed
// the object, its failure is no problem of the object, and an Observer is
// told what it would have made of the object. The same with shared
// copies, with own copies, and in a stream.
func TestAuditMode(t *testing.T) {
	files := []File{
		patchFile(t, "1.kpatch", "[configmap.c]\ndata.a: y\n"),
		patchFile(t, "2.kpatch", "# kpatch:mode: audit\n[configmap.c]\ndata.a: w\ndata.b: audit\n"),
		patchFile(t, "3.kpatch", "[configmap.c]\ndata.b?: three\n"),
		patchFile(t, "4.kpatch", "# kpatch:mode: audit\n[configmap.c]\ndata.b: three\n"),
		patchFile(t, "5.kpatch", "# kpatch:mode: audit\n[configmap.c]\nmetadata.ownerReferences[name=missing].uid: x\n"),
	}
	in := configMap("c", map[string]any{"a": "x"})
	for _, mode := range []string{"shared", "observed", "stream"} {
		t.Run(mode, func(t *testing.T) {
			opts := &Options{}
			var wouldBe map[string]any
			if mode != "shared" {
				opts.Observer = ObserverFunc(func(_ int, r FileRun, before, after map[string]any) {
					if r.Result == WouldPatch && r.File.Name() == "2.kpatch" {
						wouldBe = after
					}
				})
			}
			var run *ObjectRun
			if mode == "stream" {
				opts.Stream = true
				runs, err := Run(context.Background(), []map[string]any{in}, files, opts)
				if err != nil {
					t.Fatal(err)
				}
				run = runs[0]
			} else {
				var err error
				if run, err = RunObject(context.Background(), in, files, opts); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := results(run.Files), "1.kpatch:patched 2.kpatch:would-patch 3.kpatch:patched 4.kpatch:unchanged 5.kpatch:failed"; got != want {
				t.Errorf("results %s, want %s", got, want)
			}
			if want := map[string]any{"a": "y", "b": "three"}; !reflect.DeepEqual(data(run.Out), want) {
				t.Errorf("data %v, want %v", data(run.Out), want)
			}
			if want := map[string]any{"a": "x"}; !reflect.DeepEqual(data(in), want) {
				t.Errorf("input changed: %v", data(in))
			}
			for _, f := range run.Files {
				if f.Audit != (f.File.Name() == "2.kpatch" || f.File.Name() == "4.kpatch" || f.File.Name() == "5.kpatch") {
					t.Errorf("%s: Audit %v", f.File.Name(), f.Audit)
				}
			}
			if p := run.Problems(); len(p) != 0 {
				t.Errorf("problems %s, want none: an audit file's failure changes nothing", results(p))
			}
			if got := results(run.AuditProblems()); got != "5.kpatch:failed" {
				t.Errorf("audit problems %s", got)
			}
			if got := results(run.Applied()); got != "1.kpatch:patched 3.kpatch:patched" {
				t.Errorf("applied %s", got)
			}
			if got := results(run.WouldApply()); got != "2.kpatch:would-patch" {
				t.Errorf("would apply %s", got)
			}
			if mode != "shared" {
				if want := map[string]any{"a": "w", "b": "audit"}; !reflect.DeepEqual(data(wouldBe), want) {
					t.Errorf("observer told %v for 2.kpatch, want %v", data(wouldBe), want)
				}
			}
		})
	}
}

// TestAuditModeLeftOut: a file in audit mode that its values leave out
// (Failing) is still in audit mode: its failure is no problem of the
// object.
func TestAuditModeLeftOut(t *testing.T) {
	f := Failing(patchFile(t, "a.kpatch", "# kpatch:mode: audit\n[configmap.c]\ndata.a: y\n"), errTest)
	run, err := RunObject(context.Background(), configMap("c", nil), []File{f}, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Files) != 1 || !run.Files[0].Audit || len(run.Problems()) != 0 || len(run.AuditProblems()) != 1 {
		t.Errorf("runs %+v, problems %v", run.Files, run.Problems())
	}
	if !f.Meta().Audit || Failing(patchFile(t, "e.kpatch", "[configmap.c]\ndata.a: y\n"), errTest).Meta().Audit {
		t.Error("Meta does not see through Failing")
	}
}

var errTest = errors.New("left out")

func results(runs []FileRun) string {
	var out []string
	for _, f := range runs {
		out = append(out, f.File.Name()+":"+f.Result)
	}
	return strings.Join(out, " ")
}
