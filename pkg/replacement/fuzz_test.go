package replacement

import "testing"

// FuzzFieldPath checks that the fieldPath parsers give a step per part of
// SplitFieldPath, and that no path, parsed or applied, panics.
// test/kustomize holds SplitFieldPath to kustomize's own splitter over the
// same corpus (FuzzSplitFieldPath).
func FuzzFieldPath(f *testing.F) {
	for _, seed := range []string{
		"metadata.name",
		"spec.template.spec.containers.[name=nginx].image",
		"spec.template.spec.containers.*.env.[name=TARGET_ENV].value",
		`metadata.annotations.config\.kubernetes\.io/local-config`,
		"metadata.annotations.[config.kubernetes.io/local-config]",
		"spec.template.spec.containers.1.image",
		"spec.args.[=--verbose]",
		"data.[config.json].server.host",
		"a.[b.c=d.e].f",
		"[unclosed.x",
		".leading.dot",
		"a..b",
		"a.-.b",
		"a.-1",
		"a.[x(]",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if fp, err := ParseSourcePath(path); err == nil {
			lookup(sample(), fp.steps)
		}
		fp, err := ParseTargetPath(path)
		if err != nil {
			return
		}
		if len(fp.steps) != len(SplitFieldPath(path)) {
			t.Fatalf("%q: %d steps for %d parts", path, len(fp.steps), len(SplitFieldPath(path)))
		}
		for _, create := range []bool{false, true} {
			w := &walker{e: newEditor(), create: create, set: func(any, bool) (any, *failure) { return "v", nil }}
			w.update(sample(), fp.steps)
		}
	})
}

// sample is an object with maps, lists, scalars, null and an embedded
// JSON document.
func sample() map[string]any {
	return map[string]any{
		"metadata": map[string]any{"name": "x", "annotations": map[string]any{"a.b": "c"}, "labels": nil},
		"spec": map[string]any{
			"replicas": int64(1),
			"args":     []any{"--verbose", int64(3), nil},
			"containers": []any{
				map[string]any{"name": "nginx", "image": "nginx:1", "env": []any{map[string]any{"name": "A", "value": "1"}}},
				"scalar",
			},
		},
		"data": map[string]any{"config.json": `{"server": {"host": "h"}, "list": [1, 2]}`, "bad": "{a: [", "n": "1"},
	}
}
