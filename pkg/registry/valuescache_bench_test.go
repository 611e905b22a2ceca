package registry

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkBoundValuesHit is a binding found in the cache
// (fileValues.forObject) for a Namespace of n values annotations, one
// of which sets the file's parameter: serial, and from every core.
func BenchmarkBoundValuesHit(b *testing.B) {
	for _, n := range []int{10, 100} {
		var c Compiler
		reg := c.Build([]corev1.ConfigMap{valuesConfigMap}, nil).Registry
		var fv *fileValues
		for _, v := range reg.values {
			if v.inputs["team"] {
				fv = v
			}
		}
		ann := map[string]string{"values.kpatch.dev/team": "a"}
		for i := 1; i < n; i++ {
			ann[fmt.Sprintf("values.kpatch.dev/other-%d", i)] = "x"
		}
		oc := &ObjectContext{namespace: namespace("a", ann), nsValues: ValueAnnotations(ann), object: "Deployment a/web"}
		if _, err := fv.forObject(reg.bound, oc); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("annotations=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = fv.forObject(reg.bound, oc)
			}
		})
		b.Run(fmt.Sprintf("annotations=%d/parallel", n), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_, _ = fv.forObject(reg.bound, oc)
				}
			})
		})
	}
}
