package kpatch

import (
	"errors"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// TestItemConditionOncePerItem: a per-item condition is asked once per
// item and section, whatever the number of the section's entries, and
// the entries apply to the items where it holds.
func TestItemConditionOncePerItem(t *testing.T) {
	p := mustPatch(t, "i.kpatch", "[pod.*.containers.*]\n# kpatch:when: item.name != 'b'\nimagePullPolicy: Always\nworkingDir: /srv\n")
	obj := itemPod(3)
	obj["spec"].(map[string]any)["containers"].([]any)[1].(map[string]any)["name"] = "b"
	var asked []string
	opts := ApplyOptions{EvalItem: func(c *Condition, _ *Variables, item any, where string) (bool, error) {
		asked = append(asked, where)
		return item.(map[string]any)["name"] != "b", nil
	}}
	out, err := Apply(obj, []*Patch{p}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "spec.containers[name=c0] spec.containers[name=b] spec.containers[name=c2]"; strings.Join(asked, " ") != want {
		t.Errorf("asked %q, want %q", asked, want)
	}
	for i, c := range out["spec"].(map[string]any)["containers"].([]any) {
		_, patched := c.(map[string]any)["workingDir"]
		if patched != (i != 1) {
			t.Errorf("container %d patched %v", i, patched)
		}
	}
}

// TestItemValueKeepsType: a value that is exactly ${item.PATH} takes the
// item's value, of its type (an integer, a map copied), and into a
// string field its text.
func TestItemValueKeepsType(t *testing.T) {
	p := mustPatch(t, "i.kpatch", "[pod.*.containers.*.ports.*]\nhostPort: ${item.containerPort}\nname: p${item.containerPort}\n\n[pod.*.containers.*]\nresources.limits: ${item.resources.requests}\n")
	obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web"}, "spec": map[string]any{"containers": []any{
		map[string]any{"name": "a", "image": "a:1", "ports": []any{map[string]any{"containerPort": int64(8080)}},
			"resources": map[string]any{"requests": map[string]any{"cpu": "1"}}},
	}}}
	out, err := Apply(obj, []*Patch{p}, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := out["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	port := c["ports"].([]any)[0].(map[string]any)
	if port["hostPort"] != int64(8080) || port["name"] != "p8080" {
		t.Errorf("port %v: want hostPort 8080 (an integer) and name p8080", port)
	}
	res := c["resources"].(map[string]any)
	if !jsonvalue.Equal(res["limits"], res["requests"]) {
		t.Errorf("resources %v: want limits as requests", res)
	}
	res["limits"].(map[string]any)["cpu"] = "2"
	if res["requests"].(map[string]any)["cpu"] != "1" {
		t.Error("limits share the requests' map")
	}
}

// TestBindDefersItem: Bind checks no ${item.PATH}, known per item only.
func TestBindDefersItem(t *testing.T) {
	p := mustPatch(t, "i.kpatch", "[pod.*.containers.*]\nworkingDir: /srv/${item.name}\n")
	if _, err := p.Bind(&Variables{}); err != nil {
		t.Errorf("Bind: %v", err)
	}
}

// TestItemConditionError: an error of the per-item condition fails the
// file on the object, at the condition, wrapping the evaluator's error.
func TestItemConditionError(t *testing.T) {
	p := mustPatch(t, "i.kpatch", "[pod.*]\nlabels.a: b\n\n[pod.*.containers.*]\n# kpatch:when: has(item.image)\nworkingDir: /srv\n")
	cause := errors.New("no budget")
	obj := itemPod(2)
	out, err := Apply(obj, []*Patch{p}, ApplyOptions{EvalItem: func(*Condition, *Variables, any, string) (bool, error) { return false, cause }})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !errors.Is(list[0], cause) ||
		!strings.HasPrefix(list[0].Error(), "i.kpatch:5:16: Pod web: when of [pod.*.containers[*]], item spec.containers[name=c0]: no budget") {
		t.Fatalf("err %v", err)
	}
	if _, labelled := out["metadata"].(map[string]any)["labels"]; labelled {
		t.Error("the file's other section stayed")
	}
}

// TestItemInYAMLPatchFiles: a YAML patch file's field entry reads the
// item its path selects; a merge patch, which selects none, reading
// ${item} is a compile error at its entry.
func TestItemInYAMLPatchFiles(t *testing.T) {
	p, err := ParseAndCompile("f.yaml", []byte("- target: pod.web\n  patch:\n    spec.containers.*.workingDir: /srv/${item.name}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Apply(itemPod(1), []*Patch{p}, ApplyOptions{})
	if err != nil || out["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["workingDir"] != "/srv/c0" {
		t.Errorf("err %v, out %v", err, out)
	}
	_, err = ParseAndCompile("m.yaml", []byte("- target: pod.web\n  type: strategic\n  patch:\n    metadata:\n      labels:\n        img: ${item.image}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "m.yaml:1:3: a merge patch reads no item") {
		t.Errorf("err %v", err)
	}
}

// TestItemInMetadataRefused: a file's enabled: reading ${item} is a parse
// error at the metadata line: metadata have no item.
func TestItemInMetadataRefused(t *testing.T) {
	_, err := ParseAndCompile("e.kpatch", []byte("# kpatch:enabled: ${item.name}\n[pod.*.containers.*]\nworkingDir: /x\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "e.kpatch:1:") || !strings.Contains(err.Error(), "enabled: reads ${item}") {
		t.Errorf("err %v", err)
	}
}
