package kpatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func wholeVars() *Variables {
	return &Variables{Values: map[string]any{
		"env":      []any{map[string]any{"name": "LOG_LEVEL", "value": "info"}},
		"res":      map[string]any{"limits": map[string]any{"cpu": "1"}},
		"replicas": int64(3),
	}}
}

func TestWholeNodeSubstitution(t *testing.T) {
	for name, src := range map[string]string{
		"web.kpatch": "[deployment.web]\nreplicas: ${values.replicas}\n\n[deployment.web.containers.name=app]\nenv: ${values.env}\nresources: ${values.res}\n",
		"web.yaml":   "- target: deployment.web\n  patch:\n    replicas: ${values.replicas}\n    containers[name=app].env: ${values.env}\n    containers[name=app].resources: ${values.res}\n",
	} {
		t.Run(name, func(t *testing.T) {
			vars := wholeVars()
			p, err := mustPatch(t, name, src).Bind(vars)
			if err != nil {
				t.Fatal(err)
			}
			obj := mustObject(t, webDeployment)
			out, err := p.Apply(obj, ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			spec := out["spec"].(map[string]any)
			if spec["replicas"] != int64(3) {
				t.Errorf("replicas %#v, want the integer 3", spec["replicas"])
			}
			c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			if !reflect.DeepEqual(c["env"], wholeVars().Values["env"]) || !reflect.DeepEqual(c["resources"], wholeVars().Values["res"]) {
				t.Errorf("container %v", c)
			}
			c["env"].([]any)[0].(map[string]any)["value"] = "changed" // the object owns its copy
			if !reflect.DeepEqual(vars, wholeVars()) {
				t.Errorf("the variables changed with the object: %v", vars.Values)
			}
		})
	}
}

func TestWholeNodeErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"[deployment.web]\nlabels.a: \"${values.env}\"\n", "substituted only as a whole value"},
		{"[deployment.web]\nlabels.a: x-${values.res}\n", "substituted only as a whole value"},
		{"[deployment.web]\nreplicas: ${values.env}\n", "not a list"},
		{"[deployment.web.containers.name=app]\nenv: ${values.res}\n", "not a map"},
	} {
		_, err := mustPatch(t, "f.kpatch", tt.src).Bind(wholeVars())
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrVariable) && !errors.Is(err, ErrValue) {
			t.Errorf("%q: %v, want %q", tt.src, err, tt.want)
		}
	}
}
