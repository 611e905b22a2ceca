package kpatch

import (
	"reflect"
	"testing"
)

func containerOf(t *testing.T, obj map[string]any, i int) map[string]any {
	t.Helper()
	return obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[i].(map[string]any)
}

// TestInsertionIdentityByMergeKey: a second mount of the same volume at
// another path is a new item (volumeMounts merge by mountPath); the same
// mount path updates the mount in place.
func TestInsertionIdentityByMergeKey(t *testing.T) {
	obj := mustObject(t, webDeployment+`        volumeMounts: # the sidecar's
        - {name: config, mountPath: /etc/web}
`)
	p := mustPatch(t, "f", `[deployment.web.containers[name=sidecar].volumeMounts[-]]
name: config
mountPath: /etc/other
readOnly: true

[deployment.web.containers[name=sidecar].volumeMounts[-]]
name: renamed
mountPath: /etc/web
`)
	out, err := p.Apply(obj, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"name": "renamed", "mountPath": "/etc/web"},
		map[string]any{"name": "config", "mountPath": "/etc/other", "readOnly": true},
	}
	if got := containerOf(t, out, 1)["volumeMounts"]; !reflect.DeepEqual(got, want) {
		t.Errorf("volumeMounts %v, want %v", got, want)
	}
}

// TestInsertionSurvivesDefaulting: a port inserted again after the API
// server added protocol: TCP updates the port instead of adding a twin,
// whether the item is built by a header or given whole.
func TestInsertionSurvivesDefaulting(t *testing.T) {
	header := mustPatch(t, "f", "[deployment.web.containers[name=app].ports[-]]\ncontainerPort: 9090\nname: metrics\n")
	whole := mustPatch(t, "f.yaml", "- target: deployment.web\n  patch:\n    containers[name=app].ports[-]: {containerPort: 9090, name: metrics}\n")
	for _, p := range []*Patch{header, whole} {
		once, err := p.Apply(mustObject(t, webDeployment), ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ports := containerOf(t, once, 0)["ports"].([]any)
		ports[1].(map[string]any)["protocol"] = "TCP" // what the API server defaults
		twice, err := p.Apply(once, ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := containerOf(t, twice, 0)["ports"].([]any); len(got) != 2 || !reflect.DeepEqual(got[1], map[string]any{"containerPort": int64(9090), "name": "metrics", "protocol": "TCP"}) {
			t.Errorf("%s: ports after the second pass: %v", p.Name(), got)
		}
	}
}

func TestTwin(t *testing.T) {
	list := []any{
		map[string]any{"name": "a", "mountPath": "/x", "port": int64(80)},
		map[string]any{"name": "b", "mountPath": "/y"},
		"--flag",
	}
	tests := []struct {
		item     any
		mergeKey string
		want     int
	}{
		{map[string]any{"name": "a", "mountPath": "/z"}, "mountPath", -1},
		{map[string]any{"name": "z", "mountPath": "/y"}, "mountPath", 1},
		{map[string]any{"name": "b"}, "mountPath", 1},           // no merge key in the item: by name
		{map[string]any{"port": float64(80)}, "port", 0},        // numbers compare by value
		{map[string]any{"name": "b", "mountPath": "/q"}, "", 1}, // no merge key: by name
		{map[string]any{"mountPath": "/x"}, "", -1},             // no name: by equality
		{"--flag", "", 2}, // scalars by equality
		{map[string]any{"name": "b", "mountPath": "/y"}, "", 1},      // equal
		{map[string]any{"name": nil, "mountPath": "/x"}, "name", -1}, // a null key is no key
	}
	for _, tt := range tests {
		if got := twin(list, tt.item, tt.mergeKey); got != tt.want {
			t.Errorf("twin(%v, %q) = %d, want %d", tt.item, tt.mergeKey, got, tt.want)
		}
	}
}

func TestMergeKeysOfInsertions(t *testing.T) {
	tests := map[string]string{
		"[deployment.web.containers[-]]\nname: x\n":                          "name",
		"[deployment.web.containers[name=app].volumeMounts[-]]\nname: x\n":   "mountPath",
		"[deployment.web.containers[name=app].ports[-]]\ncontainerPort: 1\n": "containerPort",
		"[deployment.web.containers[name=app].env[+0]]\nname: x\n":           "name",
		"[service.s.ports[-]]\nport: 80\n":                                   "port",
		"[deployment.web.tolerations[-]]\nkey: x\n":                          "",
		"[deployment.web]\ncontainers[name=app].args[-]: --x\n":              "",
		"[widget.w.spec.items[-]]\nname: x\n":                                "",
	}
	for src, want := range tests {
		p := mustPatch(t, "f", src)
		s := p.sections[0]
		if got := s.standIn(s.ops[0]).mergeKey; got != want {
			t.Errorf("%q: merge key %q, want %q", src, got, want)
		}
	}
}
