package kpatch

import (
	"context"
	"fmt"
	"testing"

	"kpatch.dev/kpatch/pkg/condition"
)

// itemPod is a Pod of n containers (longPod's), each with an env item,
// and a security context on every other one.
func itemPod(n int) map[string]any {
	pod := longPod(n)
	for i, c := range pod["spec"].(map[string]any)["containers"].([]any) {
		c := c.(map[string]any)
		c["name"], c["image"] = fmt.Sprintf("c%d", i), fmt.Sprintf("registry.example/c%d:1", i)
		c["env"] = []any{map[string]any{"name": "A", "value": "1"}}
		if i%2 == 1 {
			c["securityContext"] = map[string]any{"capabilities": map[string]any{"drop": []any{"NET_RAW"}}}
		}
	}
	pod["metadata"] = map[string]any{"name": "web"}
	return pod
}

// itemPatch has a section of entries values reading ${item.PATH}, and a
// section of entries under a per-item condition.
const itemPatch = `[pod.*.containers.*.env[-]]
name: IMAGE
value: ${item.image}

[pod.*.containers.*]
args[-]: --name=${item.name}
workingDir: /srv/${item.name}

[pod.*.containers.*]
# kpatch:when: !has(item.securityContext) || !('NET_RAW' in item.securityContext.capabilities.drop)
securityContext.capabilities.add[-]: NET_RAW
securityContext.runAsNonRoot: true
`

// itemEval evaluates per-item conditions over in, as pkg/apply does.
func itemEval(in *condition.Input) func(c *Condition, vars *Variables, item any, where string) (bool, error) {
	vars := condition.NewVars(in)
	return func(c *Condition, _ *Variables, item any, _ string) (bool, error) {
		in.Item = item
		return c.Eval(context.Background(), vars, nil)
	}
}

// BenchmarkItems applies values read from each item and a per-item
// condition to a Pod of n and 10n containers: the cost is linear in
// items x entries.
func BenchmarkItems(b *testing.B) {
	p := mustPatch(b, "item.kpatch", itemPatch)
	for _, n := range []int{20, 200} {
		obj := itemPod(n)
		b.Run(fmt.Sprintf("containers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in := &condition.Input{Object: obj}
				if _, err := Apply(obj, []*Patch{p}, ApplyOptions{EvalItem: itemEval(in)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
