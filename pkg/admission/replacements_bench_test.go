package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/informed"
)

// benchReplacements is a replacements file of the three kinds of source:
// the object's own image tag into a label, a source ConfigMap's value
// into an annotation, a label of its Namespace into a label.
const benchReplacements = `replacements:
- source:
    kind: Deployment
    fieldPath: spec.template.spec.containers.[name=app].image
    options: {delimiter: ':', index: 1}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [spec.template.metadata.labels.version]
- source: {kind: ConfigMap, name: settings, fieldPath: data.region}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.annotations.region]
    options: {create: true}
- source: {kind: Namespace, fieldPath: metadata.labels.team}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.labels.team]
    options: {create: true}
`

// manyReplacements is a replacements file of n replacements, each copying
// the value of its own source ConfigMap (settings-i) into an annotation.
func manyReplacements(n int) string {
	var b strings.Builder
	b.WriteString("replacements:\n")
	for i := range n {
		fmt.Fprintf(&b, "- source: {kind: ConfigMap, name: settings-%d, fieldPath: data.region}\n", i)
		fmt.Fprintf(&b, "  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.annotations.region-%d]\n    options: {create: true}\n", i)
	}
	return b.String()
}

// benchmarkReplacements is one admission of the benchmark Deployment
// through the 10-file registry and a replacements file, with the
// Namespace shop and source ConfigMaps settings and settings-0 to
// settings-<sources-1>.
func benchmarkReplacements(b *testing.B, file string, sources int) {
	h, _, raw := benchHandlerWith(b, []corev1.ConfigMap{configMap("repl", map[string]string{"repl.yaml": file})})
	var nss informed.InformedNamespaces // as the webhook keeps them
	nss.OnAdd(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"team": "checkout"}}}, true)
	h.Namespaces = &nss
	var s informed.SourceConfigMaps
	s.OnAdd(sourceCM("shop", "eu-west-1"), true)
	for i := range sources {
		cm := sourceCM("shop", fmt.Sprintf("region-%d", i))
		cm.Name = fmt.Sprintf("settings-%d", i)
		s.OnAdd(cm, true)
	}
	h.Sources = &s
	req := request(admissionv1.Create, "shop", string(raw))
	req.Name = "web"
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Handle(context.Background(), req); len(resp.Patch) == 0 || len(resp.Warnings) != 0 {
			b.Fatalf("not patched, or warnings: %v", resp.Warnings)
		}
	}
}

// BenchmarkHandleReplacements is BenchmarkHandlePatched with a
// replacements file of three replacements (from the object, a ConfigMap
// and the Namespace) after the 10 files.
func BenchmarkHandleReplacements(b *testing.B) { benchmarkReplacements(b, benchReplacements, 0) }

// BenchmarkHandleReplacementsN is the same with a file of n
// replacements, each reading one of n source ConfigMaps: at N and 10N.
func BenchmarkHandleReplacementsN(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchmarkReplacements(b, manyReplacements(n), n) })
	}
}
