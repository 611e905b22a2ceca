package admission

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// nullContainer is a Deployment whose container list holds a null item.
const nullContainer = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
"spec":{"template":{"spec":{"containers":[null]}}}}`

// TestPanicFailsOnlyItsFile: a strategic merge patch over a list with a
// null item panics in k8s.io/apimachinery's strategicpatch. That file
// fails with a warning, a log line with the stack and the metrics; the
// other files apply.
func TestPanicFailsOnlyItsFile(t *testing.T) {
	h := newHandler(t, map[string]string{
		"a-sidecar.yaml": "- target: deployment.web\n  type: strategic\n  patch:\n    spec:\n      template:\n        spec:\n          containers:\n          - name: envoy\n            image: envoy\n",
		"b-label.kpatch": "[deployment.web]\nlabels.b: applied\n",
	})
	var lines logLines
	ctx := logf.IntoContext(context.Background(), lines.logger())
	resp := h.Handle(ctx, request(admissionv1.Create, "shop", nullContainer))
	ops := patchOf(t, resp)
	if !resp.Allowed || len(ops) != 1 || ops[0].Path != "/metadata/labels" {
		t.Fatalf("want b's label only: %+v", resp)
	}
	if len(resp.Warnings) != 1 || !strings.HasPrefix(resp.Warnings[0], "kpatch: reg/a-sidecar.yaml: not applied: it panicked on the object: runtime error") {
		t.Errorf("warnings %q", resp.Warnings)
	}
	if log := lines.String(); !strings.Contains(log, `"msg"="recovered a panic of a patch file"`) || !strings.Contains(log, `"file"="reg/a-sidecar.yaml"`) ||
		!strings.Contains(log, "strategicpatch") {
		t.Errorf("no log line with the stack:\n%s", log)
	}
	if n := testutil.ToFloat64(h.Metrics.Panics.WithLabelValues(metrics.PanicScopeFile)); n != 1 {
		t.Errorf("file panics %v", n)
	}
	if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues("reg/a-sidecar.yaml", apply.Failed)); n != 1 {
		t.Errorf("failed applications %v", n)
	}
	h.Strict = true
	if resp := h.Handle(ctx, request(admissionv1.Create, "shop", nullContainer)); resp.Allowed || !strings.Contains(resp.Result.Message, "panicked") {
		t.Errorf("strict: %+v", resp)
	}
}

// TestUnencodableFileIsDropped: a file whose result JSON cannot hold (a
// non-finite number) is not applied, with a warning; the others are.
func TestUnencodableFileIsDropped(t *testing.T) {
	inf, err := kpatch.ParseAndCompile("reg/a-inf.yaml", []byte("- target: deployment.web\n  type: strategic\n  patch:\n    metadata:\n      annotations:\n        x: ${values.x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	label, err := kpatch.ParseAndCompile("reg/b-label.kpatch", []byte("[deployment.web]\nlabels.b: applied\n"))
	if err != nil {
		t.Fatal(err)
	}
	inf = inf.WithVariables(&kpatch.Variables{Values: map[string]any{"x": math.Inf(1)}})
	reg := registry.NewRegistry([]registry.RegistryFile{
		{Ref: registry.FileRef{ConfigMap: "reg", Key: "a-inf.yaml"}, File: apply.PatchFile{Patch: inf}, Patch: inf},
		{Ref: registry.FileRef{ConfigMap: "reg", Key: "b-label.kpatch"}, File: apply.PatchFile{Patch: label}, Patch: label},
	})
	h := &Handler{Registry: func() *registry.Registry { return reg }, Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	ops := patchOf(t, resp)
	if !resp.Allowed || len(ops) != 1 || ops[0].Path != "/metadata/labels" {
		t.Fatalf("want b's label only: %+v", resp)
	}
	// The engine refuses the value where it is read; were it to let one
	// through, the handler would drop the file when encoding. Either way
	// the file is not applied, with a warning naming it.
	if len(resp.Warnings) != 1 || !strings.HasPrefix(resp.Warnings[0], "kpatch: reg/a-inf.yaml:") ||
		!strings.Contains(resp.Warnings[0], "not applied: ") || !strings.Contains(resp.Warnings[0], "Inf") {
		t.Errorf("warnings %q", resp.Warnings)
	}
	if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues("reg/a-inf.yaml", apply.Failed)); n != 1 {
		t.Errorf("failed applications %v", n)
	}
}

func TestFileApplicationsCounted(t *testing.T) {
	h := newHandler(t, map[string]string{
		"patches.kpatch": "[deployment.web]\nreplicas: 3\n",
		"same.kpatch":    "[deployment.web]\nreplicas: 3\n",
		"fails.kpatch":   "[deployment.web]\ncontainers[name=missing].image: x\n",
		"other.kpatch":   "[deployment.api]\nreplicas: 5\n",
	})
	h.Metrics.SetFiles([]string{"reg/patches.kpatch", "reg/same.kpatch", "reg/fails.kpatch", "reg/other.kpatch"})
	for range 2 {
		h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	}
	for file, want := range map[string][3]float64{
		"reg/patches.kpatch": {2, 0, 0},
		"reg/same.kpatch":    {0, 2, 0}, // after patches.kpatch, replicas already are 3
		"reg/fails.kpatch":   {0, 0, 2},
		"reg/other.kpatch":   {0, 0, 0}, // does not target deployment web
	} {
		for i, result := range []string{apply.Patched, apply.Unchanged, apply.Failed} {
			if n := testutil.ToFloat64(h.Metrics.FileApplications.WithLabelValues(file, result)); n != want[i] {
				t.Errorf("%s %s: %v, want %v", file, result, n, want[i])
			}
		}
	}
}
