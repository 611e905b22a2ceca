package condition

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func deployment(replicas int64, labels map[string]any) map[string]any {
	meta := map[string]any{"name": "web", "namespace": "shop"}
	if labels != nil {
		meta["labels"] = labels
	}
	return map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   meta,
		"spec": map[string]any{
			"replicas": replicas,
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "main", "image": "nginx:1.27"},
				}},
			},
		},
	}
}

func mustCompile(t *testing.T, expr string, opts Options) *Condition {
	t.Helper()
	c, err := Compile(expr, opts)
	if err != nil {
		t.Fatalf("Compile(%q): %v", expr, err)
	}
	return c
}

// mustCompileUnbounded compiles expr whatever its estimated cost: for
// tests of what an evaluation does, which the estimate would refuse
// (iterating over every label of an object, loops of loops).
func mustCompileUnbounded(t *testing.T, expr string) *Condition {
	t.Helper()
	c, err := compile(expr, Options{}, math.MaxUint64)
	if err != nil {
		t.Fatalf("compile(%q): %v", expr, err)
	}
	return c
}

func TestConditionsReadTheAdmissionVariables(t *testing.T) {
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "shop", "labels": map[string]any{"tier": "gold"}}}
	controller := &admissionv1.AdmissionRequest{Operation: admissionv1.Update,
		UserInfo: authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:deployment-controller"}}
	dryRun := true
	cases := []struct {
		expr string
		in   Input
		want bool
	}{
		{"object.spec.replicas > 2", Input{Object: deployment(3, nil)}, true},
		{"object.spec.replicas > 2", Input{Object: deployment(2, nil)}, false},
		{"has(object.metadata.labels) && object.metadata.labels.tier == 'gold'", Input{Object: deployment(1, map[string]any{"tier": "gold"})}, true},
		{"has(object.metadata.labels) && object.metadata.labels.tier == 'gold'", Input{Object: deployment(1, nil)}, false},
		{"namespaceObject.metadata.labels['tier'] == 'gold'", Input{Object: deployment(1, nil), Namespace: ns}, true},
		{"namespaceObject == null", Input{Object: deployment(1, nil)}, true},
		{"!request.userInfo.username.startsWith('system:serviceaccount:kube-system:')", Input{Object: deployment(1, nil), Request: controller}, false},
		{"request.operation == 'CREATE'", Input{Object: deployment(1, nil)}, true},
		{"request.operation == 'UPDATE' && oldObject.spec.replicas != object.spec.replicas", Input{Object: deployment(3, nil), OldObject: deployment(1, nil), Request: controller}, true},
		{"oldObject == null", Input{Object: deployment(1, nil)}, true},
		{"params.tier == 'gold'", Input{Object: deployment(1, nil), Params: map[string]any{"tier": "gold"}}, true},
		{"request.kind.kind == 'Deployment' && request.namespace == 'shop'", Input{Object: deployment(1, nil)}, true},
		{"request.dryRun == false && !has(request.userInfo.groups) && request.userInfo.username == ''", Input{Object: deployment(1, nil)}, true},
		{"'system:masters' in request.userInfo.groups && request.userInfo.extra['scopes'][0] == 'x' && request.dryRun && request.options.fieldManager == 'kubectl'", Input{Object: deployment(1, nil), Request: &admissionv1.AdmissionRequest{
			Operation: admissionv1.Create, DryRun: &dryRun, Options: runtime.RawExtension{Raw: []byte(`{"fieldManager":"kubectl"}`)},
			UserInfo: authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}, Extra: map[string]authenticationv1.ExtraValue{"scopes": {"x"}}}}}, true},
		{"object.spec.template.spec.containers.exists(c, c.image.startsWith('nginx'))", Input{Object: deployment(1, nil)}, true},
	}
	for _, tc := range cases {
		c := mustCompile(t, tc.expr, Options{})
		got, err := c.Eval(context.Background(), NewVars(&tc.in), NewBudget(0))
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func TestWorkloadConditionsReadThePodTemplate(t *testing.T) {
	expr := "podSpec.containers.all(c, c.name != 'proxy') && podMetadata.labels.app == 'web'"
	if _, err := Compile(expr, Options{}); err == nil {
		t.Fatalf("podSpec compiled outside a workload file")
	}
	c := mustCompile(t, expr, Options{Workload: true})
	d := deployment(1, nil)
	tmpl := d["spec"].(map[string]any)["template"].(map[string]any)
	in := Input{Object: d, PodSpec: tmpl["spec"].(map[string]any), PodMetadata: tmpl["metadata"].(map[string]any)}
	got, err := c.Eval(context.Background(), NewVars(&in), nil)
	if err != nil || !got {
		t.Fatalf("Eval = %v, %v; want true", got, err)
	}
}

func TestCompileErrorsSayWhere(t *testing.T) {
	cases := []struct {
		expr      string
		line, col int
		msg       string
	}{
		{"object.spec.replicas >", 1, 23, "Syntax error"},
		{"object.spec.replicas > 2 && undeclared.x", 1, 29, "undeclared reference"},
		{"object.spec.replicas", 1, 1, "must evaluate to bool"},
		{"1 + 'a' == 2", 1, 3, "no matching overload"},
	}
	for _, tc := range cases {
		_, err := Compile(tc.expr, Options{})
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("Compile(%q) = %v, want *Error", tc.expr, err)
			continue
		}
		if ce.Line != tc.line || ce.Column != tc.col || !strings.Contains(ce.Msg, tc.msg) {
			t.Errorf("Compile(%q) = %d:%d %q, want %d:%d containing %q", tc.expr, ce.Line, ce.Column, ce.Msg, tc.line, tc.col, tc.msg)
		}
	}
}

// hostile has each level multiply the work by the list's length: far
// past the API server's per-call limit on any object.
const hostile = "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))"

func TestHostileConditionsAreStoppedByTheCostLimit(t *testing.T) {
	// refused when it compiles, at the outer loop
	var ce *Error
	if _, err := Compile(hostile, Options{}); !errors.As(err, &ce) || ce.Column != 24 || !strings.Contains(ce.Msg, "exceeds the per-call limit 1000000") {
		t.Fatalf("Compile = %v, want the cost refused at 1:24", err)
	}
	// and stopped by the limit when it runs
	_, err := mustCompileUnbounded(t, hostile).Eval(context.Background(), NewVars(&Input{Object: deployment(1, nil)}), NewBudget(0))
	if !errors.Is(err, ErrCostExceeded) {
		t.Fatalf("Eval = %v, want ErrCostExceeded", err)
	}
}

func TestBudgetBoundsARequest(t *testing.T) {
	c := mustCompile(t, "object.spec.template.spec.containers.all(x, x.name.size() > 0)", Options{})
	b := NewBudget(1)
	in := Input{Object: deployment(1, nil)}
	if _, err := c.Eval(context.Background(), NewVars(&in), b); !errors.Is(err, ErrCostExceeded) {
		t.Fatalf("first Eval over a budget of 1 = %v, want ErrCostExceeded", err)
	}
	if b.Spent() == 0 {
		t.Fatalf("nothing charged")
	}
	b = NewBudget(0)
	for i := 0; i < 3; i++ {
		if _, err := c.Eval(context.Background(), NewVars(&in), b); err != nil {
			t.Fatal(err)
		}
	}
	if b.Spent() == 0 {
		t.Fatal("nothing charged over three evaluations")
	}
}

func TestEvaluationErrorsAreReturned(t *testing.T) {
	c := mustCompile(t, "object.spec.missing > 1", Options{})
	if _, err := c.Eval(context.Background(), NewVars(&Input{Object: deployment(1, nil)}), nil); err == nil || !strings.Contains(err.Error(), "no such key") {
		t.Fatalf("Eval = %v, want a no such key error", err)
	}
}

// BenchmarkConditionEval is one condition's cost on an object whose Vars
// the request already made (as the apply loop shares them).
func BenchmarkConditionEval(b *testing.B) {
	for _, expr := range []string{
		"object.spec.replicas > 2",
		"has(object.metadata.labels) && object.metadata.labels.tier == 'gold'",
		"!request.userInfo.username.startsWith('system:serviceaccount:kube-system:')",
	} {
		b.Run(expr, func(b *testing.B) {
			c, err := Compile(expr, Options{})
			if err != nil {
				b.Fatal(err)
			}
			in := Input{Object: deployment(3, map[string]any{"tier": "gold"})}
			vars := NewVars(&in)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := c.Eval(ctx, vars, nil); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

func TestParamsAreTheFieldsRead(t *testing.T) {
	cases := []struct {
		expr  string
		names string
		whole bool
	}{
		{"object.spec.replicas > 2", "", false},
		{"params.tier == 'gold' && has(params.team) && params['zone'] != '' && params.tier != ''", "team tier zone", false},
		{"params.limits.cpu > 1", "limits", false},
		{"params == null", "", true},
		{"params[object.metadata.name] == 'x'", "", true},
	}
	for _, tc := range cases {
		c := mustCompile(t, tc.expr, Options{})
		names, whole := c.Params()
		if strings.Join(names, " ") != tc.names || whole != tc.whole {
			t.Errorf("%s: Params = %v, %v; want %q, %v", tc.expr, names, whole, tc.names, tc.whole)
		}
	}
}

// TestDeadlineStopsAnEvaluation: a request's context that ends stops an
// evaluation before the cost limit does.
func TestDeadlineStopsAnEvaluation(t *testing.T) {
	c := mustCompileUnbounded(t, hostile)
	_, err := c.Eval(&endingContext{Context: context.Background()}, NewVars(&Input{Object: deployment(1, nil)}), NewBudget(0))
	if err == nil || errors.Is(err, ErrCostExceeded) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("Eval = %v, want an interruption by the context", err)
	}
}

// endingContext ends as soon as an evaluation starts: its first Err is
// nil (Eval's check before evaluating), the next ones Canceled.
type endingContext struct {
	context.Context
	errs int
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c *endingContext) Done() <-chan struct{} { return closed }

func (c *endingContext) Err() error {
	if c.errs++; c.errs == 1 {
		return nil
	}
	return context.Canceled
}

// TestLoopsAreFound checks which expressions a request's deadline can
// stop: those with a comprehension, written with any of the API server's
// macros.
func TestLoopsAreFound(t *testing.T) {
	for expr, want := range map[string]bool{
		"object.spec.replicas > 1": false,
		"has(object.metadata.labels) && object.metadata.labels.tier == 'x'": false,
		"request.userInfo.groups.exists(g, g == 'admins')":                  true,
		"object.spec.template.spec.containers.all(c, c.name != 'x')":        true,
		"object.metadata.labels.all(k, v, v != '')":                         true,
		"object.spec.template.spec.containers.map(c, c.name).size() > 0":    true,
		"[3, 1].sortBy(x, -x)[0] == 3":                                      true,
	} {
		c := mustCompileUnbounded(t, expr)
		if c.loops != want {
			t.Errorf("%s: loops = %v, want %v", expr, c.loops, want)
		}
	}
}

// TestObjectsReadAsCELMaps checks that the objects, whose fields are
// converted once and kept, read as CEL maps do: selection, presence,
// missing keys, equality, membership, size, iteration, and the same
// answers when several conditions read one object's Vars.
func TestObjectsReadAsCELMaps(t *testing.T) {
	in := Input{
		Object:    deployment(3, map[string]any{"tier": "gold"}),
		OldObject: deployment(3, map[string]any{"tier": "gold"}),
	}
	vars := NewVars(&in)
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{"object.spec.replicas == 3", true},
		{"object.metadata.labels.tier == 'gold'", true},
		{"object.metadata.labels['tier'] == 'gold'", true},
		{"has(object.metadata.labels.tier)", true},
		{"!has(object.metadata.labels.missing)", true},
		{"'tier' in object.metadata.labels", true},
		{"!('x' in object.metadata.labels)", true},
		{"size(object.metadata.labels) == 1", true},
		{"object.metadata.labels == {'tier': 'gold'}", true},
		{"{'tier': 'gold'} == object.metadata.labels", true},
		{"object == oldObject", true},
		{"object.metadata.labels != {'tier': 'silver'}", true},
		{"object.metadata.labels.all(k, k == 'tier')", true},
		{"object.metadata.labels.exists(k, v, v == 'gold')", true},
		{"object.spec.replicas > 3", false},
		{"object.?metadata.?labels.?tier.orValue('') == 'gold'", true},
		{"object.?spec.?missing.orValue(7) == 7", true},
	} {
		for range 2 { // the second reads the fields the first converted
			got, err := mustCompileUnbounded(t, tc.expr).Eval(context.Background(), vars, nil)
			if err != nil || got != tc.want {
				t.Errorf("%s = %v, %v; want %v", tc.expr, got, err, tc.want)
			}
		}
	}
	if _, err := mustCompile(t, "object.spec.missing == 1", Options{}).Eval(context.Background(), vars, nil); err == nil || !strings.Contains(err.Error(), "no such key: missing") {
		t.Errorf("a missing key: %v, want no such key", err)
	}
}
