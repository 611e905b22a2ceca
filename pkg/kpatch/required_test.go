package kpatch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const requiredDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers:
      - name: main
        image: app:1.0
      - name: side
        image: side
`

// TestRequiredSetsNothing: an entry written ${required} writes nothing,
// never the literal text; the other entries of the file apply.
func TestRequiredSetsNothing(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"base.kpatch", "[deployment.*]\nreplicas: ${required}\nlabels.a: b\nannotations.x: \"${required}\"\n"},
		{"base.yaml", "- target: deployment.*\n  patch:\n    replicas: $required\n    labels.a: b\n    annotations.x: \"${required}\"\n"},
	} {
		p := mustPatch(t, c.name, c.src)
		obj := mustObject(t, requiredDeployment)
		out, err := p.Apply(obj, ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(printed(t, out), "required") {
			t.Errorf("%s: the marker reached the object:\n%s", c.name, printed(t, out))
		}
		if !p.Required() {
			t.Errorf("%s: Required() is false", c.name)
		}
		ref := RefOf(out, "")
		errs := p.MissingRequired(out, &ref, ApplyOptions{})
		if len(errs) != 2 || !errors.Is(errs[0], ErrRequired) {
			t.Fatalf("%s: %v", c.name, errs)
		}
		if want := c.name + ":2:1: Deployment shop/web: spec.replicas is ${required}: a later layer or the object itself must set it, and nothing did"; c.name == "base.kpatch" && errs[0].Error() != want {
			t.Errorf("got  %s\nwant %s", errs[0], want)
		}
		later := mustPatch(t, "later.kpatch", "[deployment.web]\nreplicas: 3\nannotations.x: y\n")
		out, _ = later.Apply(out, ApplyOptions{})
		if errs := CheckRequired(out, ref, []*Patch{p, later}, ApplyOptions{}); len(errs) != 0 {
			t.Errorf("%s: set by a later file, still missing: %v", c.name, errs)
		}
	}
}

// TestRequiredPaths: selectors, every item, image parts, allContainers.
func TestRequiredPaths(t *testing.T) {
	for _, c := range []struct {
		entry   string
		missing bool
	}{
		{"containers[name=main].image: ${required}", false},
		{"containers[name=main].image.tag: ${required}", false},
		{"containers[name=side].image.tag: ${required}", true},
		{"containers[name=nope].image: ${required}", true},
		{"containers[*].image: ${required}", false},
		{"containers.imagePullPolicy: ${required}", true},
		{"containers.0.image.repository: ${required}", false},
		{"containers.5.image: ${required}", true},
		{"allContainers[name=side].image: ${required}", false},
		{"allContainers[name=side].image.tag: ${required}", true},
		{"allContainers.image: ${required}", false},
		{"initContainers[*].image: ${required}", false},
		{"initContainers.image: ${required}", false},
		{"initContainers.env[name=A].value: ${required}", false},
		{"containers.env.value: ${required}", false},
		{"containers.env[name=A].value: ${required}", true},
		{"serviceAccountName: ${required}", true},
	} {
		p := mustPatch(t, "f.kpatch", "[deployment.web]\n"+c.entry+"\n")
		obj := mustObject(t, requiredDeployment)
		ref := RefOf(obj, "")
		if errs := p.MissingRequired(obj, &ref, ApplyOptions{}); (len(errs) > 0) != c.missing {
			t.Errorf("%s: missing %v, want %v", c.entry, errs, c.missing)
		}
	}
}

// TestRequiredOnlyWhereTheTargetMatches: a section whose target does not
// match the object requires nothing of it.
func TestRequiredOnlyWhereTheTargetMatches(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "[deployment.api]\nreplicas: ${required}\n[configmap.*]\ndata.x: ${required}\n")
	obj := mustObject(t, requiredDeployment)
	ref := RefOf(obj, "")
	if errs := p.MissingRequired(obj, &ref, ApplyOptions{}); len(errs) != 0 {
		t.Errorf("%v", errs)
	}
}

func TestRequiredErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a.kpatch", "[deployment.web]\nreplicaz: ${required}\n", `has no field "replicaz"`},
		{"a.kpatch", "[deployment.web.containers[-]]\nname: x\nimage: ${required}\n", "${required} marks a field of the object"},
		{"a.kpatch", "[deployment.web]\ncontainers[name=main].args[-]: ${required}\n", "${required} marks a field of the object"},
		{"a.kpatch", "[deployment.web]\nimage: x-${required}\n", "unknown variable ${required}"},
		{"a.yaml", "- target: deployment.web\n  patch:\n    resources: {limits: {cpu: $required}}\n", "$required stands alone"},
		{"a.yaml", "- target: deployment.web\n  type: strategic\n  patch: {spec: {replicas: $required}}\n", "$required stands alone"},
	} {
		_, err := ParseAndCompile(c.name, []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}

func printed(t *testing.T, obj map[string]any) string {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
