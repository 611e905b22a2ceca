package admission

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/registry"
)

// valuesConfigMap is a registry ConfigMap with a schema and one file that
// reads a parameter each Namespace sets, and one that reads a built-in.
var valuesConfigMap = configMap("values", map[string]string{
	registry.ParametersKey: "parameters:\n- {name: team, type: string, default: none, pattern: \"^[a-z0-9-]+$\"}\n",
	"team.kpatch":          "[deployment.web]\nlabels.team: ${values.team}\n",
	"owner.kpatch":         "[deployment.web]\nlabels.part-of: ${namespace.labels.app.kubernetes.io/part-of}\n",
})

// benchmarkNamespaceValues admits the benchmark Deployment in n
// Namespaces in turn, each with its own value of team: after the first
// round, every binding comes from the registry's cache.
func benchmarkNamespaceValues(b *testing.B, n int) {
	h, _, raw := benchHandlerWith(b, []corev1.ConfigMap{valuesConfigMap})
	var nss informed.InformedNamespaces // as the webhook keeps them
	reqs := make([]admission.Request, n)
	for i := range reqs {
		name := fmt.Sprintf("team-%d", i)
		nss.OnAdd(namespace(name, map[string]string{"values.kpatch.dev/team": name}), true)
		obj := bytes.Replace(raw, []byte(`"namespace": "shop"`), []byte(`"namespace": "`+name+`"`), 1)
		reqs[i] = request(admissionv1.Create, name, string(obj))
		reqs[i].Name = "web"
	}
	h.Namespaces = &nss
	for _, req := range reqs { // every binding made once, then cached
		h.Handle(context.Background(), req)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if resp := h.Handle(context.Background(), reqs[i%n]); len(resp.Patch) == 0 || len(resp.Warnings) > 0 {
			b.Fatalf("not patched: %v", resp.Warnings)
		}
		i++
	}
}

// BenchmarkHandleNamespaceValues is BenchmarkHandlePatched with two more
// files whose values depend on the Namespace, over 300 and 3,000
// Namespaces (each binding cached): within 1.2x of each other.
func BenchmarkHandleNamespaceValues(b *testing.B) {
	for _, n := range []int{300, 3000} {
		b.Run(fmt.Sprintf("namespaces=%d", n), func(b *testing.B) { benchmarkNamespaceValues(b, n) })
	}
}
