package kustomize

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	kustomize "sigs.k8s.io/kustomize/api/filters/replacement"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// benchDir holds the input of pkg/replacement's benchmarks, which those
// below measure kustomize's filter on.
const benchDir = "../../pkg/replacement/testdata/bench"

// readJSON decodes a JSON file of benchDir into v as the API server's
// decoder does.
func readJSON(b *testing.B, name string, v any) {
	raw, err := os.ReadFile(filepath.Join(benchDir, name))
	if err != nil {
		b.Fatal(err)
	}
	if err := utiljson.Unmarshal(raw, v); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
}

// kustomizeReplacements decodes a replacements file of benchDir for
// kustomize's filter.
func kustomizeReplacements(b *testing.B, name string) []types.Replacement {
	src, err := os.ReadFile(filepath.Join(benchDir, name))
	if err != nil {
		b.Fatal(err)
	}
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

// BenchmarkApplyObjectKustomize is pkg/replacement's BenchmarkApplyObject
// (one admission: the four replacements of bench.yaml on the Deployment,
// from itself, a ConfigMap and its Namespace) through kustomize's filter:
// the objects converted to kyaml nodes, filtered, and the target
// converted back.
func BenchmarkApplyObjectKustomize(b *testing.B) {
	var deploy map[string]any
	var sources []map[string]any
	readJSON(b, "deployment.json", &deploy)
	readJSON(b, "sources.json", &sources)
	repls := kustomizeReplacements(b, "bench.yaml")
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

// stream is n copies of the Deployment, each with its own name, then the
// Namespace and the ConfigMap.
func stream(b *testing.B, n int) []map[string]any {
	var objs, sources []map[string]any
	for i := range n {
		var d map[string]any
		readJSON(b, "deployment.json", &d)
		d["metadata"].(map[string]any)["name"] = fmt.Sprintf("web-%d", i)
		objs = append(objs, d)
	}
	readJSON(b, "sources.json", &sources)
	return append(objs, sources...)
}

// BenchmarkApplyKustomize is pkg/replacement's BenchmarkApply (the two
// replacements of stream.yaml over streams of N and 10N Deployments)
// through kustomize's filter, with the conversions to and from kyaml
// nodes.
func BenchmarkApplyKustomize(b *testing.B) {
	repls := kustomizeReplacements(b, "stream.yaml")
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			objs := stream(b, n)
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
