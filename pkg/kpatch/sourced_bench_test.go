package kpatch

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkValueTexts loads a values file of n values written otherwise
// than they print (1.10), binds a file that writes each into an
// annotation, whole and spliced, and applies it: the cost of keeping the
// values' texts, at N and 10N.
func BenchmarkValueTexts(b *testing.B) {
	for _, n := range []int{100, 1000} {
		var values, entries strings.Builder
		values.WriteString("values:\n")
		entries.WriteString("[configmap.c]\n")
		for i := range n {
			fmt.Fprintf(&values, "  v%d: 1.%d0\n", i, i)
			fmt.Fprintf(&entries, "data.w%d: ${values.v%d}\ndata.s%d: \"x${values.v%d}\"\n", i, i, i, i)
		}
		p := mustPatch(b, "t.kpatch", entries.String())
		obj := mustObject(b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
		b.Run(fmt.Sprintf("values=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				vars, err := LoadVariables([]byte(values.String()))
				if err != nil {
					b.Fatal(err)
				}
				bound, err := p.Bind(vars)
				if err != nil {
					b.Fatal(err)
				}
				out, err := bound.Apply(obj, ApplyOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if got := out["data"].(map[string]any)["w1"]; got != "1.10" {
					b.Fatalf("w1 = %#v", got)
				}
			}
		})
	}
}
