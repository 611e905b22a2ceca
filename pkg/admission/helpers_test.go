package admission

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// lastRV is the resourceVersion of the latest configMap: each new one is
// later, as the API server's are.
var lastRV atomic.Int64

// configMap is a registry ConfigMap of the registry namespace, of uid
// "uid-<name>", at a resourceVersion later than any before.
func configMap(name string, data map[string]string) corev1.ConfigMap {
	return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kpatch-system", UID: types.UID("uid-" + name),
		ResourceVersion: strconv.FormatInt(lastRV.Add(1), 10)}, Data: data}
}

const (
	goodFile   = "[deployment.web]\nreplicas: 2\n"
	goodFile3  = "[deployment.web]\nreplicas: 3\n"
	brokenFile = "[deployment.web\nreplicas 5\n"
)

// replicas applies the registry to a Deployment web and returns its
// spec.replicas ("-" when unset).
func replicas(t *testing.T, reg *registry.Registry) string {
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

// syntheticRegistry is n registry files in ConfigMaps of 100: each
// targets its own Deployment, or, conflicting, all of them.
func syntheticRegistry(n int, conflicting bool) []corev1.ConfigMap {
	const perConfigMap = 100
	var cms []corev1.ConfigMap
	for c := 0; c*perConfigMap < n; c++ {
		data := map[string]string{}
		for k := 0; k < perConfigMap && c*perConfigMap+k < n; k++ {
			i := c*perConfigMap + k
			if conflicting {
				data[fmt.Sprintf("f%05d.kpatch", i)] = fmt.Sprintf("[deployment.*]\nreplicas: %d\n", i)
			} else {
				data[fmt.Sprintf("f%05d.kpatch", i)] = fmt.Sprintf("[deployment.app-%d]\nreplicas: %d\nlabels.team: t%d\n", i, i%5+1, i)
			}
		}
		cms = append(cms, configMap(fmt.Sprintf("cm-%03d", c), data))
	}
	return cms
}
