package replacement

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"kpatch.dev/kpatch/pkg/kpatch"
	kustomize "sigs.k8s.io/kustomize/api/filters/replacement"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// benchInput is the benchmark Deployment (3 containers, env, ports,
// probes, volumes), its Namespace and a ConfigMap, and the replacements
// of testdata/bench.
func benchInput(b *testing.B) (deploy map[string]any, sources []map[string]any, src []byte) {
	raw, err := os.ReadFile("testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := utiljson.Unmarshal(raw, &deploy); err != nil {
		b.Fatal(err)
	}
	src, err = os.ReadFile("testdata/bench/bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	sources = []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop", "labels": map[string]any{"team": "checkout"}}},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "settings", "namespace": "shop"}, "data": map[string]any{"level": "debug"}},
	}
	return deploy, sources, src
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

// kustomizeReplacements decodes a replacements file for kustomize's
// filter.
func kustomizeReplacements(b *testing.B, src []byte) []types.Replacement {
	var file struct {
		Replacements []types.Replacement `json:"replacements"`
	}
	if err := sigsyaml.Unmarshal(src, &file); err != nil {
		b.Fatal(err)
	}
	return file.Replacements
}

// toRNode and fromRNode are the cheapest conversions between a decoded
// object and a kyaml node: yaml.v3's own encoding and decoding of a node.
func toRNode(b *testing.B, obj map[string]any) *kyaml.RNode {
	var n yaml.Node
	if err := n.Encode(obj); err != nil {
		b.Fatal(err)
	}
	return kyaml.NewRNode(&n)
}

func fromRNode(b *testing.B, rn *kyaml.RNode) map[string]any {
	var m map[string]any
	if err := rn.YNode().Decode(&m); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkApplyObjectKustomize is the same admission through kustomize's
// replacement filter: the objects converted to kyaml nodes, filtered, and
// the target converted back.
func BenchmarkApplyObjectKustomize(b *testing.B) {
	deploy, sources, src := benchInput(b)
	repls := kustomizeReplacements(b, src)
	b.ReportAllocs()
	for b.Loop() {
		nodes := []*kyaml.RNode{toRNode(b, deploy)}
		for _, s := range sources {
			nodes = append(nodes, toRNode(b, s))
		}
		out, err := kustomize.Filter{Replacements: repls}.Filter(nodes)
		if err != nil {
			b.Fatal(err)
		}
		fromRNode(b, out[0])
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
func stream(b *testing.B, n int) ([]map[string]any, []byte) {
	deploy, sources, src := benchInput(b)
	objs := make([]map[string]any, 0, n+2)
	for i := range n {
		d := kpatch.DeepCopy(deploy).(map[string]any)
		d["metadata"].(map[string]any)["name"] = fmt.Sprintf("web-%d", i)
		objs = append(objs, d)
	}
	return append(objs, sources...), src
}

// streamFile is the benchmark file without the replacements whose source
// is a Deployment (a stream of many has no single one).
const streamFile = `
replacements:
- source: {kind: ConfigMap, name: settings, fieldPath: data.level}
  targets:
  - select: {kind: Deployment}
    fieldPaths:
    - spec.template.spec.containers.[name=app].env.[name=LOG_LEVEL].value
- source: {kind: Namespace, fieldPath: metadata.labels.team}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.labels.team]
    options: {create: true}
`

// BenchmarkApply runs two replacements over streams of N and 10N
// Deployments: the cost grows linearly with the targets.
func BenchmarkApply(b *testing.B) {
	r, err := Parse("stream.yaml", []byte(streamFile))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			objs, _ := stream(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Apply(objs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyKustomize is BenchmarkApply through kustomize's filter,
// with the conversions to and from kyaml nodes.
func BenchmarkApplyKustomize(b *testing.B) {
	repls := kustomizeReplacements(b, []byte(streamFile))
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			objs, _ := stream(b, n)
			b.ReportAllocs()
			for b.Loop() {
				nodes := make([]*kyaml.RNode, len(objs))
				for i, o := range objs {
					nodes[i] = toRNode(b, o)
				}
				out, err := kustomize.Filter{Replacements: repls}.Filter(nodes)
				if err != nil {
					b.Fatal(err)
				}
				for _, n := range out {
					fromRNode(b, n)
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
