package parameters

import (
	"fmt"
	"strings"
	"testing"
)

// benchSchema declares n parameters, dependencies last: a third are
// integers, a third integers that default to the parameter before them,
// a third text that uses the integer two before. A chain of defaults
// through all of them is the worst case for anything but one ordered pass.
func benchSchema(b *testing.B, n int) (*Schema, Layer) {
	s, err := Parse("parameters.yaml", benchSource(n))
	if err != nil {
		b.Fatal(err)
	}
	var vals strings.Builder
	vals.WriteString("values:\n")
	for i := 0; i < n; i += 6 {
		fmt.Fprintf(&vals, "  p%d: %d\n", i, i+1)
	}
	l, err := ParseValues("values.yaml", []byte(vals.String()))
	if err != nil {
		b.Fatal(err)
	}
	return s, l
}

func benchSource(n int) []byte {
	var src strings.Builder
	src.WriteString("parameters:\n")
	for i := n - 1; i >= 0; i-- {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&src, "- {name: p%d, type: integer, minimum: 0, default: %d}\n", i, i)
		case 1:
			fmt.Fprintf(&src, "- {name: p%d, type: integer, default: '${values.p%d}'}\n", i, i-1)
		default:
			fmt.Fprintf(&src, "- {name: p%d, type: string, pattern: '^[0-9]+-x$', default: '${values.p%d}-x'}\n", i, i-2)
		}
	}
	return []byte(src.String())
}

// BenchmarkResolve resolves N and 10N parameters from a values file and
// their defaults: the cost per parameter stays the same.
func BenchmarkResolve(b *testing.B) {
	for _, n := range []int{300, 3000} {
		b.Run(fmt.Sprintf("params=%d", n), func(b *testing.B) {
			s, l := benchSchema(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Resolve(l); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/param")
		})
	}
}

// BenchmarkResolveNamespace is the webhook's cost per request: a
// ConfigMap's values assigned once, a Namespace's annotations on top.
func BenchmarkResolveNamespace(b *testing.B) {
	for _, n := range []int{300, 3000} {
		b.Run(fmt.Sprintf("params=%d", n), func(b *testing.B) {
			s, l := benchSchema(b, n)
			base, err := s.Assign(l)
			if err != nil {
				b.Fatal(err)
			}
			layer := NamespaceAnnotations("team-a", map[string]string{AnnotationPrefix + "p3": "7", AnnotationPrefix + "other": "x"})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := base.Resolve(layer); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/param")
		})
	}
}

// BenchmarkParse compiles a schema of N and 10N parameters.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{300, 3000} {
		b.Run(fmt.Sprintf("params=%d", n), func(b *testing.B) {
			data := benchSource(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse("parameters.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/param")
		})
	}
}
