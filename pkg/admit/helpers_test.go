package admit

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/registry"
)

// deploymentJSON is a Deployment web of namespace shop.
const deploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}}}}`

// newRegistry is the registry of one ConfigMap reg of the registry
// namespace holding files.
func newRegistry(t testing.TB, files map[string]string) *registry.Registry {
	t.Helper()
	var c registry.Compiler
	built := c.Build([]corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "reg", Namespace: "kpatch-system", UID: "uid-reg", ResourceVersion: "1"}, Data: files}}, nil)
	if len(built.Problems) != 0 {
		t.Fatalf("problems %v", built.Problems)
	}
	return built.Registry
}
