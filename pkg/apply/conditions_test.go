package apply

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/condition"
	"kpatch.dev/kpatch/pkg/kpatch"
)

func deploymentObj(replicas int64, labels map[string]any) map[string]any {
	md := map[string]any{"name": "web", "namespace": "shop"}
	if labels != nil {
		md["labels"] = labels
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md, "spec": map[string]any{
		"replicas": replicas,
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "main", "image": "nginx"}}},
		},
	}}
}

func labelsOf(obj map[string]any) map[string]any {
	l, _ := obj["metadata"].(map[string]any)["labels"].(map[string]any)
	return l
}

// runResults lists the files the run reports, with their results.
func runResults(run *ObjectRun) string {
	var out []string
	for _, f := range run.Files {
		out = append(out, f.File.Name()+":"+f.Result)
	}
	return strings.Join(out, " ")
}

// TestConditionsDecideFilesAndSections: a file whose condition does not
// hold is left out (Unmet, not reported in the run); a section's
// condition leaves that section out; the conditions read the object as
// it entered the loop, not as the files before them left it.
func TestConditionsDecideFilesAndSections(t *testing.T) {
	files := []File{
		patchFile(t, "0-scale.kpatch", "[deployment.*]\nreplicas: 5\n"),
		patchFile(t, "1-big.kpatch", "# kpatch:when: object.spec.replicas > 2\n[deployment.*]\nlabels.big: \"yes\"\n"),
		patchFile(t, "2-small.kpatch", "# kpatch:when: object.spec.replicas <= 2\n[deployment.*]\nlabels.small: \"yes\"\n"),
		patchFile(t, "3-sections.kpatch", "[deployment.*]\nlabels.always: \"yes\"\n\n[deployment.*]\n# kpatch:when: has(object.metadata.labels) && object.metadata.labels.tier == 'gold'\nlabels.gold: \"yes\"\n"),
		patchFile(t, "4-all-sections-out.kpatch", "[deployment.*]\n# kpatch:when: false\nlabels.never: \"yes\"\n\n[configmap.*]\n# kpatch:when: true\ndata.x: y\n"),
	}
	for _, observed := range []bool{false, true} {
		var seen []string
		opts := &Options{}
		if observed {
			opts.Observer = ObserverFunc(func(_ int, r FileRun, _, _ map[string]any) {
				c := ""
				if r.Conditions == nil {
					seen = append(seen, r.File.Name()+":"+r.Result)
					return
				}
				for _, cr := range r.Conditions.Runs {
					c += fmt.Sprintf(" %d:%v", cr.Condition.Pos.Line, cr.Held)
				}
				seen = append(seen, r.File.Name()+":"+r.Result+c)
			})
		}
		run, err := RunObject(context.Background(), deploymentObj(1, nil), files, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := runResults(run), "0-scale.kpatch:patched 2-small.kpatch:patched 3-sections.kpatch:patched"; got != want {
			t.Errorf("observed %v: %s, want %s", observed, got, want)
		}
		if got, want := labelsOf(run.Out), map[string]any{"small": "yes", "always": "yes"}; !reflect.DeepEqual(got, want) {
			t.Errorf("observed %v: labels %v, want %v", observed, got, want)
		}
		if want := []string{"0-scale.kpatch:patched", "1-big.kpatch:unmet 1:false", "2-small.kpatch:patched 1:true", "3-sections.kpatch:patched 5:false", "4-all-sections-out.kpatch:unmet 2:false"}; observed && !reflect.DeepEqual(seen, want) {
			t.Errorf("observed\n%v\nwant\n%v", seen, want)
		}
	}
	run, err := RunObject(context.Background(), deploymentObj(3, map[string]any{"tier": "gold"}), files, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := labelsOf(run.Out), map[string]any{"tier": "gold", "big": "yes", "always": "yes", "gold": "yes"}; !reflect.DeepEqual(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
}

// TestConditionVariables: request, oldObject, namespaceObject, params and
// the pod template reach the conditions from Options.Admission and the
// file's values; without a request, the object is a CREATE by an
// unnamed user.
func TestConditionVariables(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"tier": "gold"}}}
	update := &admissionv1.AdmissionRequest{Operation: admissionv1.Update, Namespace: "shop",
		UserInfo: authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:deployment-controller"}}
	adm := Admission{Request: update, Objects: testObjects{old: deploymentObj(1, nil), typed: ns}}
	values := &kpatch.Variables{Values: map[string]any{"tier": "gold"}}
	cases := []struct {
		when string
		adm  Admission
		want bool
	}{
		{"request.operation == 'UPDATE' && oldObject.spec.replicas < object.spec.replicas", adm, true},
		{"request.userInfo.username.startsWith('system:serviceaccount:kube-system:')", adm, true},
		{"namespaceObject.metadata.labels.tier == params.tier", adm, true},
		{"request.operation == 'CREATE' && request.userInfo.username == '' && oldObject == null && namespaceObject == null", Admission{}, true},
		{"request.name == 'web' && request.namespace == 'shop' && request.kind.kind == 'Deployment'", Admission{}, true},
		{"namespaceObject.metadata.labels.tier == 'gold'", Admission{Objects: testObjects{ns: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop", "labels": map[string]any{"tier": "gold"}}}}}, true},
	}
	for _, tc := range cases {
		f := patchFile(t, "f.kpatch", "# kpatch:when: "+tc.when+"\n[deployment.*]\nlabels.hit: \"yes\"\n").WithValues(values)
		run, err := RunObject(context.Background(), deploymentObj(3, nil), []File{f}, &Options{Admission: tc.adm})
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Problems()) > 0 {
			t.Errorf("%s: %v", tc.when, run.Problems()[0].Err)
		}
		if got := labelsOf(run.Out)["hit"] == "yes"; got != tc.want {
			t.Errorf("%s: applied %v, want %v", tc.when, got, tc.want)
		}
	}
	wl := patchFile(t, "w.kpatch", "[@workload.*]\n# kpatch:when: podMetadata.labels.app == 'web' && podSpec.containers.exists(c, c.name == 'main')\nserviceAccountName: web\n")
	run, err := RunObject(context.Background(), deploymentObj(3, nil), []File{wl}, &Options{})
	if err != nil || runResults(run) != "w.kpatch:patched" {
		t.Fatalf("@workload: %s, %v", runResults(run), err)
	}
}

// TestConditionErrorsLeaveOut: a condition that cannot be evaluated does
// not hold: the file fails with the error placed at the condition's line
// (a warning, a denial under --strict); a section's leaves that section
// out and the rest of the file applies, with the error.
func TestConditionErrorsLeaveOut(t *testing.T) {
	files := []File{
		patchFile(t, "f.kpatch", "# kpatch:when: object.spec.missing > 1\n[deployment.*]\nlabels.f: \"yes\"\n"),
		patchFile(t, "s.kpatch", "[deployment.*]\nlabels.s: \"yes\"\n\n[deployment.*]\n# kpatch:when: object.metadata.labels.tier == 'gold'\nlabels.gold: \"yes\"\n"),
	}
	run, err := RunObject(context.Background(), deploymentObj(1, nil), files, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := runResults(run), "f.kpatch:failed s.kpatch:patched"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	if got, want := labelsOf(run.Out), map[string]any{"s": "yes"}; !reflect.DeepEqual(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	var ae *kpatch.ApplyError
	if err := run.Files[0].Err; !errors.As(err, &ae) || ae.Pos.Line != 1 || !errors.Is(err, condition.ErrEvaluation) || !strings.Contains(err.Error(), "no such key: missing") {
		t.Errorf("file condition error: %v", err)
	}
	if err := run.Files[1].Err; !errors.As(err, &ae) || ae.Pos.Line != 5 || !strings.Contains(err.Error(), "when of [deployment.*]: ") || !strings.Contains(err.Error(), "the section is left out") {
		t.Errorf("section condition error: %v", err)
	}
}

// TestConditionCostBudget: the conditions of one object share a cost
// budget; past it, the next conditions are not evaluated and their files
// are left out with ErrCostExceeded, while a condition that runs past the
// per-call limit on an object larger than the API server accepts (whose
// estimate holds for those it does) is stopped by the limit.
func TestConditionCostBudget(t *testing.T) {
	run := runPastBudget(t, "# kpatch:when: object.spec.template.spec.containers.all(c, c.name.size() > 0)\n[deployment.*]\nlabels.l%d: \"yes\"\n")
	for _, f := range run.Files[2:] {
		if !errors.Is(f.Err, condition.ErrCostExceeded) {
			t.Errorf("%s: %v", f.File.Name(), f.Err)
		}
	}
	// a name of 3 MiB, where the API server's validation takes 253
	// characters: 1.5 million of the regex's cost
	long := deploymentObj(1, nil)
	long["metadata"].(map[string]any)["name"] = strings.Repeat("a", 3<<20)
	hostile := patchFile(t, "h.kpatch", "# kpatch:when: object.metadata.name.matches('^(a|b|c|d|e|f|g|h)+x$')\n[deployment.*]\nlabels.h: \"yes\"\n")
	run, err := RunObject(context.Background(), long, []File{hostile}, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if runResults(run) != "h.kpatch:failed" || !errors.Is(run.Files[0].Err, condition.ErrCostExceeded) {
		t.Errorf("hostile: %s %v", runResults(run), run.Files[0].Err)
	}
}

// runPastBudget runs four files (src, its %d the file's number), whose
// CEL each costs 13 on a Deployment, within a budget of 30: the first two
// patch it and the last two fail past the budget.
func runPastBudget(t *testing.T, src string) *ObjectRun {
	t.Helper()
	var files []File
	for i := range 4 {
		files = append(files, patchFile(t, fmt.Sprintf("%d.kpatch", i), fmt.Sprintf(src, i)))
	}
	run, err := RunObject(context.Background(), deploymentObj(1, nil), files, &Options{Admission: Admission{CostBudget: 30}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := runResults(run), "0.kpatch:patched 1.kpatch:patched 2.kpatch:failed 3.kpatch:failed"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
	for _, f := range run.Files[2:] {
		if f.Err == nil || !strings.Contains(f.Err.Error(), "per request 30") {
			t.Errorf("%s: %v", f.File.Name(), f.Err)
		}
	}
	return run
}

// TestConditionsAndRequired: the ${required} fields of a section that its
// condition left out are not reported.
func TestConditionsAndRequired(t *testing.T) {
	f := patchFile(t, "r.kpatch", "[deployment.*]\nlabels.a: x\n\n[deployment.*]\n# kpatch:when: object.spec.replicas > 2\nlabels.team: ${required}\n")
	run, err := RunObject(context.Background(), deploymentObj(1, nil), []File{f}, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if errs := run.Required(); len(errs) != 0 {
		t.Errorf("required of a section left out: %v", errs)
	}
	run, err = RunObject(context.Background(), deploymentObj(3, nil), []File{f}, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if errs := run.Required(); len(errs) != 1 {
		t.Errorf("required: %v", errs)
	}
}

// testObjects are the old object and the Namespace shop.
type testObjects struct {
	old, ns map[string]any
	typed   *corev1.Namespace
}

func (o testObjects) OldObject() map[string]any { return o.old }

func (o testObjects) Namespace(name string) (*corev1.Namespace, map[string]any) {
	if name != "shop" {
		return nil, nil
	}
	return o.typed, o.ns
}
