package apply

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

func patchFile(t *testing.T, name, src string) File {
	t.Helper()
	p, err := kpatch.ParseAndCompile(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return PatchFile{Patch: p}
}

func replacementsFile(t *testing.T, src string) *ReplacementsFile {
	t.Helper()
	r, err := replacement.Parse("r.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return &ReplacementsFile{Replacements: r}
}

func configMap(name string, data map[string]any) map[string]any {
	if data == nil {
		data = map[string]any{}
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": data}
}

func data(obj map[string]any) map[string]any {
	d, _ := obj["data"].(map[string]any)
	return d
}

// TestRunObjectInOrder: each file applies to the result of the ones
// before it, and a file that renames the object leaves the later files
// matching the old name; a file that fails leaves the object as it was
// and the others apply. The input is never modified.
func TestRunObjectInOrder(t *testing.T) {
	files := []File{
		patchFile(t, "1.kpatch", "[configmap.c]\ndata.a: y\n"),
		patchFile(t, "2.kpatch", "[configmap.c]\ndata.a: z\nmetadata.name: renamed\n"),
		patchFile(t, "3.kpatch", "[configmap.c]\nmetadata.ownerReferences[name=missing].uid: x\n"),
		patchFile(t, "4.kpatch", "[configmap.c]\ndata.k: \"1\"\n"),
		patchFile(t, "5.kpatch", "[configmap.renamed]\ndata.k: \"2\"\n"),
	}
	in := configMap("c", map[string]any{"a": "x"})
	for _, observed := range []bool{false, true} { // shared copies, own copies
		opts := &Options{}
		if observed {
			opts.Observer = ObserverFunc(func(int, FileRun, map[string]any, map[string]any) {})
		}
		run, err := RunObject(context.Background(), in, files, opts)
		if err != nil {
			t.Fatal(err)
		}
		var results []string
		for _, f := range run.Files {
			results = append(results, f.File.Name()+":"+f.Result)
		}
		if want := "1.kpatch:patched 2.kpatch:patched 3.kpatch:failed 4.kpatch:patched"; strings.Join(results, " ") != want {
			t.Errorf("observed %v: results %v, want %s", observed, results, want)
		}
		if want := map[string]any{"a": "z", "k": "1"}; !reflect.DeepEqual(data(run.Out), want) {
			t.Errorf("observed %v: data %v, want %v", observed, data(run.Out), want)
		}
		if len(run.Failed()) != 1 || run.Failed()[0].Err == nil {
			t.Errorf("observed %v: failed %+v", observed, run.Failed())
		}
	}
	if !reflect.DeepEqual(in, configMap("c", map[string]any{"a": "x"})) {
		t.Errorf("the input changed: %v", in)
	}
}

// TestRunStream: in a Stream, a replacements file applies to every
// object at once with its sources among them, and the files after it
// match the objects as it left them; an Observer sees every file on
// every object, unmatched and disabled ones too.
func TestRunStream(t *testing.T) {
	repl := replacementsFile(t, "replacements:\n- source: {kind: ConfigMap, name: src, fieldPath: data.v}\n  targets:\n  - select: {kind: ConfigMap, name: dst}\n    fieldPaths: [metadata.name]\n")
	files := []File{
		patchFile(t, "1.kpatch", "[configmap.src]\ndata.v: moved\n"),
		repl,
		patchFile(t, "2.kpatch", "[configmap.moved]\ndata.seen: \"yes\"\n"),
		Disabling(patchFile(t, "3.kpatch", "[configmap.*]\ndata.off: \"1\"\n"), "enabled: false", true),
	}
	objs := []map[string]any{configMap("src", map[string]any{"v": "x"}), configMap("dst", nil)}
	var seen []string
	opts := &Options{Stream: true, Observer: ObserverFunc(func(i int, r FileRun, before, after map[string]any) {
		seen = append(seen, fmt.Sprintf("%d:%s:%s", i, r.File.Name(), r.Result))
	})}
	runs, err := Run(context.Background(), objs, files, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0:1.kpatch:patched", "1:1.kpatch:unmatched",
		"0:r.yaml:unchanged", "1:r.yaml:patched",
		"0:2.kpatch:unmatched", "1:2.kpatch:patched",
		"0:3.kpatch:disabled", "1:3.kpatch:disabled",
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("observed\n%v\nwant\n%v", seen, want)
	}
	if md := runs[1].Out["metadata"].(map[string]any); md["name"] != "moved" || data(runs[1].Out)["seen"] != "yes" {
		t.Errorf("dst: %v", runs[1].Out)
	}
}

// TestRunStreamBatchFailure: a replacements file that fails in a Stream
// leaves every object as it was, with the same error on each.
func TestRunStreamBatchFailure(t *testing.T) {
	repl := replacementsFile(t, "replacements:\n- source: {kind: ConfigMap, name: none, fieldPath: data.v}\n  targets:\n  - select: {kind: ConfigMap}\n    fieldPaths: [data.v]\n")
	objs := []map[string]any{configMap("a", map[string]any{"v": "1"}), configMap("b", nil)}
	runs, err := Run(context.Background(), objs, []File{repl}, &Options{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		if len(r.Files) != 1 || r.Files[0].Result != Failed || !r.Files[0].Shared || !reflect.DeepEqual(r.Out, objs[i]) {
			t.Errorf("object %d: %+v", i, r)
		}
	}
}

type countingSources struct {
	reads int
	objs  []map[string]any
}

func (s *countingSources) Read(string) (sources, fallback []map[string]any) {
	s.reads++
	return s.objs, nil
}

// TestRunObjectReplacementsSources: on its own, an object reads the
// sources of Options.Sources, once for every replacements file of the
// run; an unresolved source skips that replacement only.
func TestRunObjectReplacementsSources(t *testing.T) {
	repl := replacementsFile(t, "replacements:\n"+
		"- source: {kind: ConfigMap, name: settings, fieldPath: data.region}\n  targets:\n  - select: {kind: ConfigMap, name: app}\n    fieldPaths: [data.region]\n    options: {create: true}\n"+
		"- source: {kind: ConfigMap, name: absent, fieldPath: data.x}\n  targets:\n  - select: {kind: ConfigMap, name: app}\n    fieldPaths: [data.x]\n    options: {create: true}\n")
	src := &countingSources{objs: []map[string]any{configMap("settings", map[string]any{"region": "eu"})}}
	run, err := RunObject(context.Background(), configMap("app", nil), []File{repl, repl}, &Options{Sources: src})
	if err != nil {
		t.Fatal(err)
	}
	if src.reads != 1 {
		t.Errorf("sources read %d times, want once", src.reads)
	}
	if data(run.Out)["region"] != "eu" || run.Files[0].Result != Patched {
		t.Errorf("run %+v", run.Files)
	}
	var re *ReplacementError
	if !errors.As(run.Files[0].Err, &re) || !re.Skipped || len(run.Problems()) != 2 {
		t.Errorf("the unresolved source: %v", run.Files[0].Err)
	}
}

// TestRunObjectCheck: a Check that refuses a file's changes fails it and
// leaves the object as the files before it left it.
func TestRunObjectCheck(t *testing.T) {
	files := []File{patchFile(t, "a.kpatch", "[configmap.c]\ndata.a: \"1\"\n"), patchFile(t, "b.kpatch", "[configmap.c]\ndata.b: \"2\"\n")}
	refuse := errors.New("refused")
	opts := &Options{Check: func(f File, before, after map[string]any) error {
		if f.Name() == "a.kpatch" {
			return refuse
		}
		return nil
	}}
	run, err := RunObject(context.Background(), configMap("c", nil), files, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(run.Files[0].Err, refuse) || run.Files[0].Result != Failed || !reflect.DeepEqual(data(run.Out), map[string]any{"b": "2"}) {
		t.Errorf("run %+v, out %v", run.Files, run.Out)
	}
}

// TestRunCancelled: a run stops between two files once its context ends.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunObject(ctx, configMap("c", nil), []File{patchFile(t, "a.kpatch", "[configmap.c]\ndata.a: b\n")}, &Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
}

// TestRequired: the files that applied report the fields they mark
// ${required} that nothing set, as the object was matched.
func TestRequired(t *testing.T) {
	files := []File{patchFile(t, "a.kpatch", "[configmap.c]\ndata.a: ${required}\n")}
	run, err := RunObject(context.Background(), configMap("c", nil), files, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if errs := run.Required(); len(errs) != 1 || !errors.Is(errs[0], kpatch.ErrRequired) {
		t.Errorf("required %v", errs)
	}
}
