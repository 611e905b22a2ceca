package parameters

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkResolveTexts resolves two values files of n values each,
// written otherwise than they print, the second over the first (the
// texts merge as the values do), at N and 10N.
func BenchmarkResolveTexts(b *testing.B) {
	for _, n := range []int{100, 1000} {
		var first, second strings.Builder
		first.WriteString("values:\n")
		second.WriteString("values:\n")
		for i := range n {
			fmt.Fprintf(&first, "  v%d: {a: 1.%d0, b: yes}\n", i, i)
			fmt.Fprintf(&second, "  v%d: {a: 2.%d0}\n", i, i)
		}
		b.Run(fmt.Sprintf("values=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var none *Schema
			for range b.N {
				l1, err := ParseValues("a.yaml", []byte(first.String()))
				if err != nil {
					b.Fatal(err)
				}
				l2, err := ParseValues("b.yaml", []byte(second.String()))
				if err != nil {
					b.Fatal(err)
				}
				vars, err := none.Resolve(l1, l2)
				if err != nil || vars.Texts == nil {
					b.Fatal(err)
				}
			}
		})
	}
}
