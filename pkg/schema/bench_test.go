package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	sigsjson "sigs.k8s.io/json"
)

// benchDeployment is a Deployment of n containers, each with 10 env vars
// and limits.
func benchDeployment(n int) map[string]any {
	containers := make([]any, n)
	for i := range containers {
		env := make([]any, 10)
		for j := range env {
			env[j] = map[string]any{"name": "V" + strconv.Itoa(j), "value": "x"}
		}
		containers[i] = map[string]any{
			"name": "c" + strconv.Itoa(i), "image": "nginx:1.25", "imagePullPolicy": "IfNotPresent", "env": env,
			"resources": map[string]any{"limits": map[string]any{"cpu": "500m", "memory": "256Mi"}},
		}
	}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "prod", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"replicas": int64(2), "template": map[string]any{"spec": map[string]any{"containers": containers}}},
	}
}

// benchChange changes k containers of obj (their policy and their cpu
// limit) and a label, as the engine would: copies on the path, the rest
// shared.
func benchChange(obj map[string]any, k int) map[string]any {
	out := set(obj, "web", "metadata", "labels", "team")
	for i := range k {
		out = set(out, "Always", "spec", "template", "spec", "containers", i, "imagePullPolicy")
		out = set(out, "1", "spec", "template", "spec", "containers", i, "resources", "limits", "cpu")
	}
	return out
}

// BenchmarkCheck: the check of a change of k containers in a Deployment
// of n: its cost follows k, not n.
//
//	go test -run '^$' -bench BenchmarkCheck -benchmem ./pkg/schema
func BenchmarkCheck(b *testing.B) {
	for _, size := range []struct{ n, k int }{{10, 1}, {100, 1}, {10, 10}, {100, 10}, {100, 100}} {
		before := benchDeployment(size.n)
		after := benchChange(before, size.k)
		c := &Checker{}
		if err := c.Check(before, after); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("containers=%d/changed=%d", size.n, size.k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Check(before, after); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeWhole: what a strict decoding of the whole object costs,
// the alternative Check avoids.
//
//	go test -run '^$' -bench BenchmarkDecodeWhole -benchmem ./pkg/schema
func BenchmarkDecodeWhole(b *testing.B) {
	for _, n := range []int{10, 100} {
		obj := benchDeployment(n)
		b.Run(fmt.Sprintf("containers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				data, err := json.Marshal(obj)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sigsjson.UnmarshalStrict(data, &appsv1.Deployment{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCheckAllocatesForProblemsOnly holds the check of a change that the
// API server takes to no allocation of its own walk (its path, the keys
// that changed): 10 containers changed cost none (51 when each map's
// changed keys and each path step were allocated), a fresh walker only
// the growth of its stacks (the race detector's pool drops some).
func TestCheckAllocatesForProblemsOnly(t *testing.T) {
	before := benchDeployment(10)
	after := benchChange(before, 10)
	c := &Checker{}
	n := testing.AllocsPerRun(50, func() {
		if err := c.Check(before, after); err != nil {
			t.Fatal(err)
		}
	})
	if n > 20 {
		t.Errorf("%v allocations checking 10 containers changed, want at most 20", n)
	}
}
