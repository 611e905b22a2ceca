package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/test/cluster"
)

// extraRegistry is n files in ConfigMaps of 100, each targeting
// Deployments the load's request is not: a third by a literal name, a
// third by a name prefix, a third by a namespace, each setting an
// annotation of its own.
func extraRegistry(n int) []*corev1.ConfigMap {
	var cms []*corev1.ConfigMap
	for c := 0; c*100 < n; c++ {
		data := map[string]string{}
		for k := 0; k < 100 && c*100+k < n; k++ {
			i := c*100 + k
			target := [...]string{"deployment.app-%d", "deployment.app-%d-*", "team-%d/deployment.*"}[i%3]
			// a field of its own: no two files conflict
			data[fmt.Sprintf("s%05d.kpatch", i)] = fmt.Sprintf("["+target+"]\nannotations[example.com/s%05d]: \"on\"\n", i, i)
		}
		cms = append(cms, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("extra-%03d", c), Namespace: cluster.RegistryNamespace,
				Labels: map[string]string{"kpatch.dev/registry": "true"}},
			Data: data,
		})
	}
	return cms
}
