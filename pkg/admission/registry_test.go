package admission

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func configMap(name string, data map[string]string) corev1.ConfigMap {
	return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kpatch-system"}, Data: data}
}

func names(r *Registry, kind string) string {
	var out []string
	for _, p := range r.Patches(kind) {
		out = append(out, p.Name())
	}
	return strings.Join(out, ",")
}

func TestCompilerOrderAndIndex(t *testing.T) {
	var c Compiler
	reg, problems := c.Build([]corev1.ConfigMap{
		configMap("b", map[string]string{"x.kpatch": "[deployment.*]\nreplicas: 1\n", "notes.txt": "ignored"}),
		configMap("a", map[string]string{"z.kpatch": "[deployment.*]\nreplicas: 2\n", "b.kpatch": "[service.*]\nports.0.port: 80\n[deployment.web]\nreplicas: 3\n"}),
	})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
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

func TestCompilerKeepsLastGood(t *testing.T) {
	var c Compiler
	good := configMap("a", map[string]string{"f.kpatch": "[deployment.*]\nreplicas: 2\n", "g.kpatch": "[pod.*]\nlabels.a: b\n"})
	reg1, _ := c.Build([]corev1.ConfigMap{good})
	first := reg1.Patches("deployment")[0]

	broken := configMap("a", map[string]string{"f.kpatch": "[deployment.*\nreplicas 2\n", "g.kpatch": "[pod.*]\nlabels.a: c\n"})
	reg2, problems := c.Build([]corev1.ConfigMap{broken})
	if len(problems) != 1 || problems[0].Ref.Key != "f.kpatch" || problems[0].Err == nil || !problems[0].KeptLastGood {
		t.Fatalf("problems %+v", problems)
	}
	if got := reg2.Patches("deployment"); len(got) != 1 || got[0] != first {
		t.Errorf("the last good version is not kept: %v", got)
	}
	if reg2.Active() != 2 {
		t.Errorf("active %d, want 2: a bad edit must not empty the registry", reg2.Active())
	}
	// the same broken content again is not a new problem
	if _, again := c.Build([]corev1.ConfigMap{broken}); len(again) != 0 {
		t.Errorf("the same error reported twice: %v", again)
	}
	reg4, recovered := c.Build([]corev1.ConfigMap{good})
	if len(recovered) != 1 || recovered[0].Err != nil {
		t.Errorf("recovery not reported: %+v", recovered)
	}
	if reg4.Files()[0].Err != nil {
		t.Error("the recovered file still carries its error")
	}
}

func TestCompilerNewBrokenFileDoesNotApply(t *testing.T) {
	var c Compiler
	reg, problems := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": "nonsense\n", "g.kpatch": "[pod.*]\nlabels.a: b\n"})})
	if len(problems) != 1 || problems[0].KeptLastGood {
		t.Fatalf("problems %+v", problems)
	}
	if reg.Active() != 1 || len(reg.Patches("pod")) != 1 {
		t.Errorf("the good file must apply alone")
	}
}

func TestCompilerValues(t *testing.T) {
	var c Compiler
	cm := configMap("a", map[string]string{"f.kpatch": "[deployment.*]\nreplicas: ${values.count}\n", ValuesKey: "values:\n  count: 4\n"})
	reg, problems := c.Build([]corev1.ConfigMap{cm})
	if len(problems) != 0 || len(reg.Patches("deployment")) != 1 {
		t.Fatalf("problems %v", problems)
	}
	// a value that reads an undefined variable, or one that does not fit
	// its field, is a compile problem of the file, not a warning on every
	// object; the last good version stays
	bad := configMap("a", map[string]string{"f.kpatch": "[deployment.*]\nreplicas: ${values.missing}\n", ValuesKey: "values:\n  count: 4\n"})
	if reg, problems = c.Build([]corev1.ConfigMap{bad}); len(problems) != 1 || !strings.Contains(problems[0].Err.Error(), "a/f.kpatch:2:11: variable ${values.missing} is not defined") || len(reg.Patches("deployment")) != 1 {
		t.Fatalf("undefined variable: problems %v", problems)
	}
	bad.Data[ValuesKey] = "values:\n  count: three\n"
	bad.Data["f.kpatch"] = "[deployment.*]\nreplicas: ${values.count}\n"
	if _, problems = c.Build([]corev1.ConfigMap{bad}); len(problems) != 1 || !strings.Contains(problems[0].Err.Error(), "a/f.kpatch:2:11") {
		t.Fatalf("mistyped variable: problems %v", problems)
	}
	// a broken values.yaml is an error of every file of the ConfigMap, which keep their last good versions
	cm.Data[ValuesKey] = "values: ["
	reg, problems = c.Build([]corev1.ConfigMap{cm})
	if len(problems) != 1 || !strings.Contains(problems[0].Err.Error(), "a/values.yaml") || len(reg.Patches("deployment")) != 1 {
		t.Errorf("problems %v", problems)
	}
	// a deleted ConfigMap takes its files with it
	reg, _ = c.Build(nil)
	if reg.Active() != 0 || len(c.files) != 0 {
		t.Errorf("deleted files remain: %d active, %d cached", reg.Active(), len(c.files))
	}
}

func TestErrorSummary(t *testing.T) {
	var c Compiler
	_, problems := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": "a\nb\nc\nd\ne\n"})})
	s := errorSummary(problems[0].Err)
	if !strings.Contains(s, "a/f.kpatch:1:1") || !strings.Contains(s, "and 2 more") {
		t.Errorf("summary %q", s)
	}
}

func TestWatcherReadyAfterFirstSync(t *testing.T) {
	var w Watcher
	if w.Ready(nil) == nil {
		t.Error("ready before the first sync")
	}
	reg, _ := w.compiler.Build(nil)
	w.current.Store(reg)
	if err := w.Ready(nil); err != nil {
		t.Errorf("not ready after a sync: %v", err)
	}
}

func TestRegistryConflicts(t *testing.T) {
	var c Compiler
	reg, _ := c.Build([]corev1.ConfigMap{
		configMap("a", map[string]string{"x.kpatch": "[deployment.*]\nreplicas: 2\n"}),
		configMap("b", map[string]string{"y.yaml": "- target: deployment.web\n  patch: {replicas: 4}\n", "z.kpatch": "[deployment.web]\nreplicas: 4\n"}),
	})
	var got []string
	for _, x := range reg.Conflicts() {
		got = append(got, x.Error())
	}
	want := "a/x.kpatch:2:1: spec.replicas set to 2, but b/y.yaml:2:11 sets it to 4 (the later file wins)\n" +
		"a/x.kpatch:2:1: spec.replicas set to 2, but b/z.kpatch:2:1 sets it to 4 (the later file wins)"
	if strings.Join(got, "\n") != want {
		t.Errorf("conflicts:\n%s", strings.Join(got, "\n"))
	}
}
