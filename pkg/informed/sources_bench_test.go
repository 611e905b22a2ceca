package informed

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkSourceConfigMapsStart is a start-up: the informer reports n
// source ConfigMaps of one namespace, then a request reads them.
func BenchmarkSourceConfigMapsStart(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("configmaps=%d", n), func(b *testing.B) {
			cms := make([]*corev1.ConfigMap, n)
			for i := range cms {
				cms[i] = sourceCM("shop", "eu-west-1")
				cms[i].Name = fmt.Sprintf("settings-%d", (i*7919)%n) // not in name order
			}
			b.ReportAllocs()
			for b.Loop() {
				var s SourceConfigMaps
				for _, cm := range cms {
					s.OnAdd(cm, true)
				}
				if got := s.ConfigMaps("shop"); len(got) != n {
					b.Fatalf("%d ConfigMaps", len(got))
				}
			}
		})
	}
}
