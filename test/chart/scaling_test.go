package chart

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// modeValues returns the values of the mode named name.
func modeValues(t *testing.T, name string) map[string]any {
	t.Helper()
	for _, m := range modes {
		if m.name == name {
			return m.values
		}
	}
	t.Fatalf("no mode %s", name)
	return nil
}

// TestAutoscaling: with autoscaling on, a HorizontalPodAutoscaler on CPU
// owns the Deployment's replicas, which the Deployment no longer sets.
func TestAutoscaling(t *testing.T) {
	if slices.Contains(kinds(render(t, nil)), "HorizontalPodAutoscaler") {
		t.Error("a HorizontalPodAutoscaler by default")
	}
	objs := render(t, modeValues(t, "scaled-with-dashboard"))
	d := typed[appsv1.Deployment](t, objs, "Deployment")
	if d.Spec.Replicas != nil {
		t.Errorf("the Deployment sets replicas %d under a HorizontalPodAutoscaler", *d.Spec.Replicas)
	}
	hpa := typed[autoscalingv2.HorizontalPodAutoscaler](t, objs, "HorizontalPodAutoscaler")
	if hpa == nil || hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != d.Name ||
		*hpa.Spec.MinReplicas != 2 || hpa.Spec.MaxReplicas != 6 || len(hpa.Spec.Metrics) != 1 {
		t.Fatalf("HorizontalPodAutoscaler %+v", hpa)
	}
	m := hpa.Spec.Metrics[0]
	if m.Resource == nil || m.Resource.Name != corev1.ResourceCPU || *m.Resource.Target.AverageUtilization != 60 {
		t.Errorf("metric %+v", m)
	}
}

// TestGOMAXPROCSFollowsTheCPULimit: GOMAXPROCS comes from limits.cpu in
// whole cores when there is a CPU limit, and is left to the runtime when
// there is none.
func TestGOMAXPROCSFollowsTheCPULimit(t *testing.T) {
	env := func(values map[string]any) *corev1.EnvVar {
		d := typed[appsv1.Deployment](t, render(t, values), "Deployment")
		for _, e := range d.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "GOMAXPROCS" {
				return &e
			}
		}
		return nil
	}
	if e := env(nil); e != nil {
		t.Errorf("GOMAXPROCS without a CPU limit: %+v", e)
	}
	e := env(modeValues(t, "scaled-with-dashboard"))
	if e == nil || e.ValueFrom == nil || e.ValueFrom.ResourceFieldRef == nil ||
		e.ValueFrom.ResourceFieldRef.Resource != "limits.cpu" || e.ValueFrom.ResourceFieldRef.Divisor.String() != "1" {
		t.Errorf("GOMAXPROCS %+v", e)
	}
}

// metricName finds the metric names of a PromQL expression.
var metricName = regexp.MustCompile(`\b(kpatch|controller_runtime)_[a-z0-9_]+`)

// TestGrafanaDashboard: the optional dashboard is a ConfigMap labelled
// grafana_dashboard holding valid JSON, whose panels show apply latency,
// requests by result, files failing and conflicting, and the registry's
// sync age, and query only metrics that docs/metrics.md documents.
func TestGrafanaDashboard(t *testing.T) {
	for _, cm := range all[corev1.ConfigMap](t, render(t, nil), "ConfigMap") {
		if _, ok := cm.Labels["grafana_dashboard"]; ok {
			t.Errorf("a dashboard by default: %s", cm.Name)
		}
	}
	var dashboards []*corev1.ConfigMap
	for _, cm := range all[corev1.ConfigMap](t, render(t, modeValues(t, "scaled-with-dashboard")), "ConfigMap") {
		if cm.Labels["grafana_dashboard"] == "1" {
			dashboards = append(dashboards, cm)
		}
	}
	if len(dashboards) != 1 || len(dashboards[0].Data) != 1 {
		t.Fatalf("dashboards %v", dashboards)
	}
	var d struct {
		Title, UID string
		Panels     []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal([]byte(dashboards[0].Data["kpatch-webhook.json"]), &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, q := range p.Targets {
			names := metricName.FindAllString(q.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: no metric in %s", p.Title, q.Expr)
			}
			for _, n := range names {
				n = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_sum"), "_count")
				shown[n] = true
				if !strings.Contains(string(doc), "`"+n+"`") {
					t.Errorf("panel %q queries %s, which docs/metrics.md does not document", p.Title, n)
				}
			}
		}
	}
	for _, want := range []string{"kpatch_apply_duration_seconds", "kpatch_admission_requests_total", "kpatch_registry_failing_files",
		"kpatch_registry_conflicts", "kpatch_registry_last_sync_timestamp_seconds"} {
		if !shown[want] {
			t.Errorf("no panel shows %s", want)
		}
	}
}
