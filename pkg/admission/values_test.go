package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/parameters"
	"kpatch.dev/kpatch/pkg/registry"
)

const tierSchema = `parameters:
- {name: tier, type: string, enum: [gold, silver], default: silver}
- {name: replicas, type: integer, default: 2, minimum: 1, maximum: 50}
- {name: owner, type: string, fromObject: true, default: nobody}
- {name: team, type: string, required: true}
`

// tierFiles reads tier and replicas; team.kpatch reads the required team.
var tierFiles = map[string]string{
	registry.ParametersKey: tierSchema,
	registry.ValuesKey:     "values:\n  replicas: 3\n",
	"tier.kpatch":          "[deployment.web]\nreplicas: ${values.replicas}\nlabels.tier: ${values.tier}\n",
	"team.kpatch":          "[deployment.web]\nlabels.team: ${values.team}\nlabels.owner: ${values.owner}\n",
}

// namespaces is a Namespaces of fixed Namespaces.
type namespaces map[string]*corev1.Namespace

func (n namespaces) Namespace(name string) (*corev1.Namespace, bool) {
	ns, ok := n[name]
	return ns, ok
}

func namespace(name string, annotations map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations, Labels: map[string]string{"app.kubernetes.io/part-of": name + "-shop"}}}
}

func valuesHandler(t testing.TB, files map[string]string, ns namespaces) *Handler {
	t.Helper()
	var c registry.Compiler
	built := c.Build([]corev1.ConfigMap{configMap("reg", files)}, nil)
	if len(built.Problems) != 0 {
		t.Fatalf("problems %v", built.Problems)
	}
	reg := built.Registry
	return &Handler{Registry: func() *registry.Registry { return reg }, Namespaces: ns, Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
}

// patchedLabels admits a Deployment web in ns and returns the labels and
// replicas its JSONPatch sets, with the warnings.
func patchedLabels(t *testing.T, h *Handler, ns, objAnnotations string) (map[string]string, []string, admissionResult) {
	t.Helper()
	raw := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"` + ns + `"` + objAnnotations + `},"spec":{"replicas":1}}`
	resp := h.Handle(context.Background(), request(admissionv1.Create, ns, raw))
	got := map[string]string{}
	for _, op := range patchOf(t, resp) {
		switch v := op.Value.(type) {
		case map[string]any:
			for k, x := range v {
				got[k], _ = x.(string)
			}
		default:
			got[op.Path] = fmt.Sprint(v)
		}
	}
	return got, resp.Warnings, admissionResult{allowed: resp.Allowed, message: resp.Result.Message}
}

type admissionResult struct {
	allowed bool
	message string
}

func TestValuesPerNamespace(t *testing.T) {
	h := valuesHandler(t, tierFiles, namespaces{
		"gold":  namespace("gold", map[string]string{"values.kpatch.dev/tier": "gold", "values.kpatch.dev/team": "a", "values.kpatch.dev/replicas": "7"}),
		"plain": namespace("plain", map[string]string{"values.kpatch.dev/team": "b"}),
		"bad":   namespace("bad", map[string]string{"values.kpatch.dev/tier": "bronze", "values.kpatch.dev/team": "c"}),
		"none":  namespace("none", nil),
	})
	got, warns, _ := patchedLabels(t, h, "gold", "")
	if got["tier"] != "gold" || got["team"] != "a" || got["/spec/replicas"] != "7" || len(warns) != 0 {
		t.Errorf("gold: %v %q", got, warns)
	}
	got, warns, _ = patchedLabels(t, h, "plain", "")
	if got["tier"] != "silver" || got["team"] != "b" || got["/spec/replicas"] != "3" || len(warns) != 0 {
		t.Errorf("plain: %v %q", got, warns)
	}
	// an invalid value: the files that read it are left out, with a
	// warning naming the annotation; the others apply
	got, warns, _ = patchedLabels(t, h, "bad", "")
	if got["tier"] != "" || got["team"] != "c" || len(warns) != 1 ||
		!strings.Contains(warns[0], `reg/tier.kpatch: not applied: namespace bad annotation values.kpatch.dev/tier: parameter "tier": "bronze" is not one of "gold", "silver"`) {
		t.Errorf("bad: %v %q", got, warns)
	}
	// a required parameter that neither values.yaml nor the Namespace sets
	got, warns, _ = patchedLabels(t, h, "none", "")
	if got["team"] != "" || got["tier"] != "silver" || len(warns) != 1 ||
		!strings.Contains(warns[0], `parameter "team": required`) || !strings.Contains(warns[0], "annotate Namespace none with values.kpatch.dev/team") {
		t.Errorf("none: %v %q", got, warns)
	}
	h.Strict = true
	if _, _, res := patchedLabels(t, h, "bad", ""); res.allowed || !strings.Contains(res.message, "values.kpatch.dev/tier") {
		t.Errorf("strict: %+v", res)
	}
}

func TestValuesFromObject(t *testing.T) {
	h := valuesHandler(t, tierFiles, namespaces{"a": namespace("a", map[string]string{"values.kpatch.dev/team": "a", "values.kpatch.dev/owner": "ns-owner"})})
	ann := `,"annotations":{"values.kpatch.dev/owner":"me","values.kpatch.dev/tier":"gold"}`
	got, warns, _ := patchedLabels(t, h, "a", ann)
	// owner is fromObject: the object wins over its Namespace; tier is not
	if got["owner"] != "me" || got["tier"] != "silver" || len(warns) != 0 {
		t.Errorf("object annotations: %v %q", got, warns)
	}
	got, _, _ = patchedLabels(t, h, "a", "")
	if got["owner"] != "ns-owner" {
		t.Errorf("namespace annotation: %v", got)
	}
}

func TestValuesBuiltins(t *testing.T) {
	h := valuesHandler(t, map[string]string{
		"b.kpatch": "[deployment.web]\nlabels.owner: ${object.name}.${object.namespace}\nlabels.part-of: ${namespace.labels.app.kubernetes.io/part-of}\n",
	}, namespaces{"a": namespace("a", nil)})
	got, warns, _ := patchedLabels(t, h, "a", "")
	if got["owner"] != "web.a" || got["part-of"] != "a-shop" || len(warns) != 0 {
		t.Errorf("built-ins: %v %q", got, warns)
	}
	got, warns, _ = patchedLabels(t, h, "unknown", "")
	if got["owner"] != "" || len(warns) != 1 || !strings.Contains(warns[0], "${namespace.labels.app.kubernetes.io/part-of} is not defined") {
		t.Errorf("unknown namespace: %v %q", got, warns)
	}
}

func TestValuesSchemaAtCompileTime(t *testing.T) {
	var c registry.Compiler
	good := c.Build([]corev1.ConfigMap{configMap("reg", tierFiles)}, nil)
	if len(good.Problems) != 0 || good.Registry.Active() != 2 {
		t.Fatalf("parameters.yaml is not a patch file: active %d, %v", good.Registry.Active(), good.Problems)
	}
	bad := map[string]string{}
	for k, v := range tierFiles {
		bad[k] = v
	}
	bad[registry.ValuesKey] = "values:\n  replicas: 99\n  tierr: gold\n"
	b := c.Build([]corev1.ConfigMap{configMap("reg", bad)}, good.LastGood)
	if len(b.Problems) != 2 {
		t.Fatalf("problems %v", b.Problems)
	}
	for _, p := range b.Problems {
		if !p.LastGood || !errors.Is(p.Err, parameters.ErrRange) || !errors.Is(p.Err, parameters.ErrUndeclared) ||
			!strings.Contains(p.Err.Error(), `reg/values.yaml:2:3: parameter "replicas": 99 is more than the maximum 50`) {
			t.Errorf("problem %v", p)
		}
	}
	// the last good versions apply, with their values
	h := &Handler{Registry: func() *registry.Registry { return b.Registry }, Namespaces: namespaces{"a": namespace("a", map[string]string{"values.kpatch.dev/team": "a"})}}
	if got, _, _ := patchedLabels(t, h, "a", ""); got["/spec/replicas"] != "3" {
		t.Errorf("last good: %v", got)
	}
	// a variable that reads no declared parameter is the file's error
	bad = map[string]string{registry.ParametersKey: tierSchema, "x.kpatch": "[deployment.web]\nlabels.a: ${values.tierr}\n"}
	b = c.Build([]corev1.ConfigMap{configMap("reg", bad)}, nil)
	if len(b.Problems) != 1 || !strings.Contains(b.Problems[0].Err.Error(), "reg/x.kpatch:2:11: ${values.tierr} reads no parameter declared in parameters.yaml") {
		t.Errorf("undeclared: %v", b.Problems)
	}
}

func TestValuesFeatureAnnotation(t *testing.T) {
	h := valuesHandler(t, map[string]string{
		registry.ParametersKey: "parameters:\n- {name: canary, type: boolean, default: false}\n",
		"c.kpatch":             "[deployment.web]\nlabels.canary: \"${features.canary}\"\n",
	}, namespaces{"on": namespace("on", map[string]string{"values.kpatch.dev/canary": "true"}), "off": namespace("off", nil)})
	if got, warns, _ := patchedLabels(t, h, "on", ""); got["canary"] != "true" || len(warns) != 0 {
		t.Errorf("on: %v %q", got, warns)
	}
	if got, _, _ := patchedLabels(t, h, "off", ""); got["canary"] != "false" {
		t.Errorf("off: %v", got)
	}
}

// TestValuesThatDoNotFitTheFieldNameTheAnnotation: a value the schema
// takes but the field does not (the text "many" of a string parameter
// into replicas) leaves the file out with a warning naming the
// annotation, as a value the schema refuses does.
func TestValuesThatDoNotFitTheFieldNameTheAnnotation(t *testing.T) {
	files := map[string]string{
		registry.ParametersKey: "parameters:\n- {name: count, type: string, default: \"2\"}\n- {name: team, type: string, default: x}\n",
		"count.kpatch":         "[deployment.web]\nreplicas: ${values.count}\nlabels.team: ${values.team}\n",
		"team.kpatch":          "[deployment.web]\nlabels.owner: ${values.team}\n",
	}
	h := valuesHandler(t, files, namespaces{"shop": namespace("shop", map[string]string{"values.kpatch.dev/count": "many", "values.kpatch.dev/team": "a"})})
	got, warns, _ := patchedLabels(t, h, "shop", "")
	if got["owner"] != "a" || got["/spec/replicas"] != "" || len(warns) != 1 ||
		!strings.Contains(warns[0], `reg/count.kpatch: not applied: namespace shop annotation values.kpatch.dev/count: `) ||
		strings.Contains(warns[0], "values.kpatch.dev/team") ||
		!strings.Contains(warns[0], `spec.replicas: the field wants an integer, not "many"`) {
		t.Errorf("got %v, warnings %q", got, warns)
	}
}
