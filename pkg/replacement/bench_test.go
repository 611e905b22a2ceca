package replacement

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// benchInput is the benchmark Deployment (3 containers, env, ports,
// probes, volumes), its Namespace and a ConfigMap (sources.json), and the
// replacements of testdata/bench/bench.yaml. test/kustomize measures
// kustomize's filter on the same input.
func benchInput(b *testing.B) (deploy map[string]any, sources []map[string]any, src []byte) {
	readJSON(b, "testdata/bench/deployment.json", &deploy)
	readJSON(b, "testdata/bench/sources.json", &sources)
	src, err := os.ReadFile("testdata/bench/bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return deploy, sources, src
}

// readJSON decodes a JSON file into v as the API server's decoder does.
func readJSON(b *testing.B, path string, v any) {
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := utiljson.Unmarshal(raw, v); err != nil {
		b.Fatalf("%s: %v", path, err)
	}
}

// BenchmarkApplyObject is one admission's replacements: four
// replacements on the Deployment, from itself, a ConfigMap and its
// Namespace.
func BenchmarkApplyObject(b *testing.B) {
	deploy, sources, src := benchInput(b)
	r, err := Parse("bench.yaml", src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ApplyObject(deploy, sources, ObjectOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONRoundTrip is one encoding/json decode and encode of the
// Deployment: the yardstick of the apply benchmarks.
func BenchmarkJSONRoundTrip(b *testing.B) {
	raw, err := os.ReadFile("testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

// stream is n copies of the Deployment, each with its own name, then the
// Namespace and the ConfigMap.
func stream(b *testing.B, n int) []map[string]any {
	deploy, sources, _ := benchInput(b)
	objs := make([]map[string]any, 0, n+2)
	for i := range n {
		d := jsonvalue.DeepCopy(deploy).(map[string]any)
		d["metadata"].(map[string]any)["name"] = fmt.Sprintf("web-%d", i)
		objs = append(objs, d)
	}
	return append(objs, sources...)
}

// BenchmarkApply runs the two replacements of testdata/bench/stream.yaml
// over streams of N and 10N Deployments: the cost grows linearly with the
// targets.
func BenchmarkApply(b *testing.B) {
	src, err := os.ReadFile("testdata/bench/stream.yaml")
	if err != nil {
		b.Fatal(err)
	}
	r, err := Parse("stream.yaml", src)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			objs := stream(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Apply(objs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyFields writes through a wildcard to N and 10N env vars of
// one container: the cost grows linearly with the fields.
func BenchmarkApplyFields(b *testing.B) {
	r, err := Parse("fields.yaml", []byte(`
replacements:
- sourceValue: new
  targets:
  - select: {kind: Deployment}
    fieldPaths: [spec.template.spec.containers.0.env.*.value]
`))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{50, 500} {
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			env := make([]any, n)
			for i := range env {
				env[i] = map[string]any{"name": fmt.Sprintf("VAR_%d", i), "value": "old"}
			}
			obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
				"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
					map[string]any{"name": "app", "env": env}}}}}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.ApplyObject(obj, nil, ObjectOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
