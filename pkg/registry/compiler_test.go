package registry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// lastRV is the resourceVersion of the latest ConfigMap of the tests:
// each new one is later, as the API server's are.
var lastRV atomic.Int64

// configMap returns the registry ConfigMap name of uid "uid-<name>", at a
// resourceVersion later than any before.
func configMap(name string, data map[string]string) corev1.ConfigMap {
	return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kpatch-system", UID: types.UID("uid-" + name),
		ResourceVersion: strconv.FormatInt(lastRV.Add(1), 10)}, Data: data}
}

func names(r *Registry, kind string) string {
	var out []string
	for _, p := range r.Patches(kind) {
		out = append(out, p.Name())
	}
	return strings.Join(out, ",")
}

// replicas applies the registry to a Deployment web and returns its
// spec.replicas ("-" when unset).
func replicas(t *testing.T, reg *Registry) string {
	t.Helper()
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "shop"}}
	for _, p := range reg.Patches("Deployment") {
		out, err := p.Apply(obj, kpatch.ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		obj = out
	}
	if spec, ok := obj["spec"].(map[string]any); ok {
		return fmt.Sprint(spec["replicas"])
	}
	return "-"
}

const (
	goodFile   = "[deployment.web]\nreplicas: 2\n"
	goodFile3  = "[deployment.web]\nreplicas: 3\n"
	brokenFile = "[deployment.web\nreplicas 5\n"
)

func TestCompilerOrderAndIndex(t *testing.T) {
	var c Compiler
	b := c.Build([]corev1.ConfigMap{
		configMap("b", map[string]string{"x.kpatch": "[deployment.*]\nreplicas: 1\n", "notes.txt": "ignored"}),
		configMap("a", map[string]string{"z.kpatch": "[deployment.*]\nreplicas: 2\n", "b.kpatch": "[service.*]\nports.0.port: 80\n[deployment.web]\nreplicas: 3\n"}),
	}, nil)
	if len(b.Problems) != 0 {
		t.Fatalf("problems: %v", b.Problems)
	}
	reg := b.Registry
	if got := names(reg, "Deployment"); got != "a/b.kpatch,a/z.kpatch,b/x.kpatch" {
		t.Errorf("deployment patches in order %q", got)
	}
	if got := names(reg, "service"); got != "a/b.kpatch" {
		t.Errorf("service patches %q", got)
	}
	if got := names(reg, "ConfigMap"); got != "" {
		t.Errorf("configmap patches %q", got)
	}
	if reg.Active() != 3 {
		t.Errorf("active %d, want 3", reg.Active())
	}
}

// TestCompilerRefusedFileAppliesTheStoredVersion: a file that does not
// compile applies the stored last good version, and only that: what the
// compiler saw before does not count.
func TestCompilerRefusedFileAppliesTheStoredVersion(t *testing.T) {
	var c Compiler
	first := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": goodFile})}, nil)
	stored := first.LastGood
	if stored.Len() != 1 {
		t.Fatalf("the store should hold the good version: %v", stored.Refs())
	}
	// the store moved on to version 3 (the leader saw it, and the API
	// server vouched for it), this compiler did not
	three := configMap("a", map[string]string{"f.kpatch": goodFile3})
	stored = vouched(NewLastGood(map[FileRef]StoredFile{{ConfigMap: "a", Key: "f.kpatch"}: NewStoredFile(goodFile3, "", "uid-a", three.ResourceVersion)}))

	broken := []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": brokenFile})}
	b := c.Build(broken, stored)
	if got := replicas(t, b.Registry); got != "3" {
		t.Errorf("replicas %s, want the stored version's 3, not the 2 this compiler saw", got)
	}
	f := b.Registry.Files()[0]
	if f.Err == nil || !f.LastGood {
		t.Errorf("file %+v", f)
	}
	if len(b.Problems) != 1 || b.Problems[0].Err == nil || !b.Problems[0].LastGood {
		t.Errorf("problems %+v", b.Problems)
	}
	if b.LastGood != nil {
		t.Errorf("the store must keep the failing file's version as it is: %v", b.LastGood.Refs())
	}
	// without a stored version, nothing applies, whatever the compiler saw
	if got := replicas(t, c.Build(broken, nil).Registry); got != "-" {
		t.Errorf("replicas %s without a stored version, want none", got)
	}
}

// TestCompilerRestartAgrees: a compiler that starts after the broken edit
// applies what one that saw the good version applies.
func TestCompilerRestartAgrees(t *testing.T) {
	var running Compiler
	good := []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": goodFile, "g.kpatch": "[deployment.*]\nlabels.g: x\n"})}
	stored := running.Build(good, nil).LastGood
	broken := []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": brokenFile, "g.kpatch": "[deployment.*]\nlabels.g: x\n"})}
	before := running.Build(broken, stored)
	// the restarted one never compiled the stored version: the API
	// server vouches for it (LastGoodStore)
	var restarted Compiler
	after := restarted.Build(broken, vouched(stored))
	if a, b := replicas(t, before.Registry), replicas(t, after.Registry); a != "2" || a != b {
		t.Errorf("running %s, restarted %s, want 2 for both", a, b)
	}
	if names(before.Registry, "deployment") != names(after.Registry, "deployment") {
		t.Errorf("files %s and %s", names(before.Registry, "deployment"), names(after.Registry, "deployment"))
	}
	if len(after.Problems) != 1 || !after.Problems[0].LastGood {
		t.Errorf("the restarted compiler reports %+v", after.Problems)
	}
}

// TestCompilerStoreWanted: the store should hold the current version of
// every file that applies it, keep the stored one of a failing file, and
// drop files that left the registry; nothing to write when it holds that.
func TestCompilerStoreWanted(t *testing.T) {
	var c Compiler
	cms := []corev1.ConfigMap{
		configMap("a", map[string]string{"f.kpatch": goodFile, "g.kpatch": "[pod.*]\nlabels.a: b\n"}),
		configMap("b", map[string]string{"h.kpatch": "[pod.*]\nlabels.h: b\n"}),
	}
	stored := c.Build(cms, nil).LastGood
	if got := fmt.Sprint(stored.Refs()); got != "[a/f.kpatch a/g.kpatch b/h.kpatch]" {
		t.Fatalf("stored %s", got)
	}
	if b := c.Build(cms, stored); b.LastGood != nil {
		t.Errorf("a build that changes nothing wants a write: %v", b.LastGood.Refs())
	}
	// an edit of another key keeps the version of f as stored (its resourceVersion too)
	rv := cms[0].ResourceVersion
	cms[0] = configMap("a", map[string]string{"f.kpatch": goodFile, "g.kpatch": "[pod.*]\nlabels.a: c\n"})
	next := c.Build(cms, stored).LastGood
	if f, _ := next.Get(FileRef{ConfigMap: "a", Key: "f.kpatch"}); f.ResourceVersion != rv {
		t.Errorf("f rewritten: %+v", f)
	}
	if g, _ := next.Get(FileRef{ConfigMap: "a", Key: "g.kpatch"}); g.ResourceVersion != cms[0].ResourceVersion || !strings.Contains(g.Source, "labels.a: c") {
		t.Errorf("g not updated: %+v", g)
	}
	// f breaks and b leaves: f's stored version stays, h goes
	cms = []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": brokenFile, "g.kpatch": "[pod.*]\nlabels.a: c\n"})}
	last := c.Build(cms, next).LastGood
	if got := fmt.Sprint(last.Refs()); got != "[a/f.kpatch a/g.kpatch]" {
		t.Errorf("stored %s", got)
	}
	if f, _ := last.Get(FileRef{ConfigMap: "a", Key: "f.kpatch"}); f.Source != goodFile {
		t.Errorf("f's last good version lost: %+v", f)
	}
}

// TestCompilerCompilesOnlyWhatChanged: a one-key edit compiles one file;
// an edit of values.yaml, the files of that ConfigMap.
func TestCompilerCompilesOnlyWhatChanged(t *testing.T) {
	var c Compiler
	cms := syntheticRegistry(1000, false)
	first := c.Build(cms, nil)
	if first.Compiled != 1000 {
		t.Fatalf("compiled %d", first.Compiled)
	}
	before := first.Registry.Patches("deployment")
	cms[3].Data["f00301.kpatch"] = "[deployment.app-301]\nreplicas: 9\n"
	b := c.Build(cms, first.LastGood)
	if b.Compiled != 1 {
		t.Errorf("a one-key edit compiled %d files", b.Compiled)
	}
	after := b.Registry.Patches("deployment")
	for i := range after {
		if (after[i] == before[i]) != (after[i].Name() != "cm-003/f00301.kpatch") {
			t.Errorf("%s: reused %v", after[i].Name(), after[i] == before[i])
		}
	}
	if b.LastGood == nil || b.LastGood.Len() != 1000 {
		t.Error("the edit is not to be stored")
	}
	cms[5].Data[ValuesKey] = "values:\n  n: 1\n"
	if b := c.Build(cms, b.LastGood); b.Compiled != 100 {
		t.Errorf("a values.yaml edit compiled %d files, want the 100 of its ConfigMap", b.Compiled)
	}
}

func TestCompilerProblemsOnChangesOnly(t *testing.T) {
	var c Compiler
	good := []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": goodFile})}
	stored := c.Build(good, nil).LastGood
	broken := []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": brokenFile})}
	if b := c.Build(broken, stored); len(b.Problems) != 1 {
		t.Fatalf("problems %+v", b.Problems)
	}
	if b := c.Build(broken, stored); len(b.Problems) != 0 {
		t.Errorf("the same error reported twice: %+v", b.Problems)
	}
	// another broken edit with the same error is reported again
	broken[0].Data = map[string]string{"f.kpatch": brokenFile + "\n"}
	if b := c.Build(broken, stored); len(b.Problems) != 1 {
		t.Errorf("a new broken edit: %+v", b.Problems)
	}
	b := c.Build(good, stored)
	if len(b.Problems) != 1 || b.Problems[0].Err != nil {
		t.Errorf("recovery not reported: %+v", b.Problems)
	}
	if f := b.Registry.Files()[0]; f.Err != nil || f.LastGood {
		t.Errorf("the recovered file: %+v", f)
	}
}

func TestCompilerNewBrokenFileDoesNotApply(t *testing.T) {
	var c Compiler
	b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": "nonsense\n", "g.kpatch": "[pod.*]\nlabels.a: b\n"})}, nil)
	if len(b.Problems) != 1 || b.Problems[0].LastGood {
		t.Fatalf("problems %+v", b.Problems)
	}
	if b.Registry.Active() != 1 || len(b.Registry.Patches("pod")) != 1 {
		t.Errorf("the good file must apply alone")
	}
}

func TestCompilerValues(t *testing.T) {
	var c Compiler
	cm := configMap("a", map[string]string{"f.kpatch": "[deployment.*]\nreplicas: ${values.count}\n", ValuesKey: "values:\n  count: 4\n"})
	b := c.Build([]corev1.ConfigMap{cm}, nil)
	if len(b.Problems) != 0 || replicas(t, b.Registry) != "4" {
		t.Fatalf("problems %v", b.Problems)
	}
	stored := b.LastGood
	if f, _ := stored.Get(FileRef{ConfigMap: "a", Key: "f.kpatch"}); f.Values != cm.Data[ValuesKey] {
		t.Errorf("the stored version lacks its values: %+v", f)
	}
	// a value that reads an undefined variable, or one that does not fit
	// its field, is a compile problem of the file, not a warning on every
	// object; the stored version applies
	bad := configMap("a", map[string]string{"f.kpatch": "[deployment.*]\nreplicas: ${values.missing}\n", ValuesKey: "values:\n  count: 4\n"})
	if b = c.Build([]corev1.ConfigMap{bad}, stored); len(b.Problems) != 1 ||
		!strings.Contains(b.Problems[0].Err.Error(), "a/f.kpatch:2:11: variable ${values.missing} is not defined") || replicas(t, b.Registry) != "4" {
		t.Fatalf("undefined variable: problems %v", b.Problems)
	}
	bad.Data = map[string]string{"f.kpatch": "[deployment.*]\nreplicas: ${values.count}\n", ValuesKey: "values:\n  count: three\n"}
	if b = c.Build([]corev1.ConfigMap{bad}, stored); len(b.Problems) != 1 || !strings.Contains(b.Problems[0].Err.Error(), "a/f.kpatch:2:11") || replicas(t, b.Registry) != "4" {
		t.Fatalf("mistyped variable: problems %v", b.Problems)
	}
	// a broken values.yaml is an error of every file of the ConfigMap, which apply their stored versions
	cm = configMap("a", map[string]string{"f.kpatch": cm.Data["f.kpatch"], ValuesKey: "values: ["})
	b = c.Build([]corev1.ConfigMap{cm}, stored)
	if len(b.Problems) != 1 || !strings.Contains(b.Problems[0].Err.Error(), "a/values.yaml") || replicas(t, b.Registry) != "4" {
		t.Errorf("problems %v, replicas %s", b.Problems, replicas(t, b.Registry))
	}
	// a deleted ConfigMap takes its files with it, here and in the store
	b = c.Build(nil, stored)
	if b.Registry.Active() != 0 || len(c.files) != 0 || b.LastGood == nil || b.LastGood.Len() != 0 {
		t.Errorf("deleted files remain: %d active, %d cached, store %v", b.Registry.Active(), len(c.files), b.LastGood)
	}
}

func TestCompilerLimitFiles(t *testing.T) {
	c := Compiler{Limits: Limits{MaxFiles: 2}}
	cms := []corev1.ConfigMap{configMap("a", map[string]string{"1.kpatch": goodFile, "2.kpatch": "[pod.*]\nlabels.a: b\n", "3.kpatch": goodFile3})}
	all := (&Compiler{}).Build(cms, nil).LastGood
	cms[0].Data["3.kpatch"] = brokenFile
	b := c.Build(cms, all)
	f := b.Registry.Files()[2]
	if !errors.Is(f.Err, ErrTooManyFiles) || f.Patch != nil || !strings.Contains(f.Err.Error(), "a/3.kpatch: ") {
		t.Errorf("the third file: %+v", f)
	}
	if b.Registry.Active() != 2 || replicas(t, b.Registry) != "2" {
		t.Errorf("active %d, replicas %s", b.Registry.Active(), replicas(t, b.Registry))
	}
	if _, ok := b.LastGood.Get(FileRef{ConfigMap: "a", Key: "3.kpatch"}); ok || b.LastGood.Len() != 2 {
		t.Errorf("the store keeps a file beyond the limit: %v", b.LastGood.Refs())
	}
	if len(b.Problems) != 1 || LimitOf(b.Problems[0].Err) != LimitFiles {
		t.Errorf("problems %+v", b.Problems)
	}
}

func TestCompilerLimitFileSize(t *testing.T) {
	c := Compiler{Limits: Limits{MaxFileSize: 64}}
	cms := []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": goodFile})}
	stored := c.Build(cms, nil).LastGood
	cms[0] = configMap("a", map[string]string{"f.kpatch": goodFile3 + "# " + strings.Repeat("x", 64) + "\n"})
	b := c.Build(cms, stored)
	f := b.Registry.Files()[0]
	// only the stored version is compiled
	if !errors.Is(f.Err, ErrFileTooLarge) || !f.LastGood || replicas(t, b.Registry) != "2" || b.Compiled != 1 {
		t.Errorf("file %+v, replicas %s, compiled %d", f, replicas(t, b.Registry), b.Compiled)
	}
	if !strings.Contains(f.Err.Error(), "a/f.kpatch: ") || !strings.Contains(f.Err.Error(), "more than 64") {
		t.Errorf("error %q", f.Err)
	}
}

func TestCompilerLimitCompiledSize(t *testing.T) {
	small := "[pod.*]\nlabels.a: b\n"
	big := "[deployment.*]\nlabels.big: \"" + strings.Repeat("x", 100) + "\"\n"
	c := Compiler{Limits: Limits{MaxCompiledSize: estimate(small+small, "")}}
	b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"1.kpatch": small, "2.kpatch": big, "3.kpatch": small})}, nil)
	files := b.Registry.Files()
	if files[0].Patch == nil || files[2].Patch == nil {
		t.Errorf("the small files do not apply: %+v", files)
	}
	if !errors.Is(files[1].Err, ErrRegistryTooLarge) || files[1].Patch != nil || !strings.Contains(files[1].Err.Error(), "--max-compiled-size") {
		t.Errorf("the big file: %+v", files[1])
	}
	if b.Compiled != 2 {
		t.Errorf("compiled %d: a file over the budget must not be compiled", b.Compiled)
	}
	if b.Registry.EstimatedSize() != estimate(small+small, "") {
		t.Errorf("estimated %d", b.Registry.EstimatedSize())
	}
}

// TestCompilerValuesCountOnce: a ConfigMap's values.yaml counts once in
// the estimate, whatever the number of its files.
func TestCompilerValuesCountOnce(t *testing.T) {
	values := "values:\n  pad: \"" + strings.Repeat("x", 1000) + "\"\n"
	data := map[string]string{ValuesKey: values}
	for i := range 10 {
		data[fmt.Sprintf("%d.kpatch", i)] = "[pod.*]\nlabels.a: b\n"
	}
	var c Compiler
	b := c.Build([]corev1.ConfigMap{configMap("a", data)}, nil)
	if want := estimate(strings.Repeat("[pod.*]\nlabels.a: b\n", 10), values); b.Registry.EstimatedSize() != want {
		t.Errorf("estimated %d, want %d", b.Registry.EstimatedSize(), want)
	}
}

// TestCompilerStoredVersionThatNoLongerApplies: a stored version that does
// not compile (an upgrade of the engine) or does not fit says why.
func TestCompilerStoredVersionThatNoLongerApplies(t *testing.T) {
	var c Compiler
	stored := vouched(NewLastGood(map[FileRef]StoredFile{{ConfigMap: "a", Key: "f.kpatch"}: NewStoredFile("[deployment.web\n", "", "uid-a", "1")}))
	b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": brokenFile})}, stored)
	f := b.Registry.Files()[0]
	if f.Patch != nil || f.LastGood || f.LastGoodErr == nil || len(b.Problems) != 1 || b.Problems[0].LastGoodErr == nil {
		t.Errorf("file %+v, problems %+v", f, b.Problems)
	}
	if b.LastGood != nil {
		t.Error("the store must keep the entry as it is")
	}
}

// vouched returns l with every version vouched for, as the API server
// does for a version a replica compiled.
func vouched(l *LastGood) *LastGood {
	files := map[FileRef]StoredFile{}
	for _, ref := range l.Refs() {
		f, _ := l.Get(ref)
		f.Vouched = true
		files[ref] = f
	}
	return NewLastGood(files)
}
