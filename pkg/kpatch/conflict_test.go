package kpatch

import (
	"strings"
	"testing"
)

func TestConflicts(t *testing.T) {
	compile := func(name, src string) *Patch { return mustPatch(t, name, src) }
	a := compile("a.kpatch", "[deployment.web]\nreplicas: 3\nlabels.team: x\n[deployment.web.containers.name=main]\nresources.limits.cpu: 500m\n")
	b := compile("b.yaml", `- target: deployment.*
  type: strategic
  patch:
    metadata: {labels: {team: x}}
    spec:
      replicas: 5
      template:
        spec:
          containers:
          - name: main
            resources: {limits: {cpu: "1"}}
          - name: other
            resources: {limits: {cpu: 500m}}
`)
	c := compile("c.kpatch", "[deployment.api]\nreplicas: 9\n[deployment(example.com).web]\nreplicas: 7\n")
	got := Conflicts([]*Patch{a, b, c})
	var lines []string
	for _, x := range got {
		lines = append(lines, x.Error())
	}
	want := []string{
		`a.kpatch:2:1: spec.replicas set to 3, but b.yaml:1:3 sets it to 5 (the later file wins)`,
		`a.kpatch:5:1: spec.template.spec.containers[name="main"].resources.limits.cpu set to "500m", but b.yaml:1:3 sets it to "1" (the later file wins)`,
		`b.yaml:1:3: spec.replicas set to 5, but c.kpatch:2:1 sets it to 9 (the later file wins)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("conflicts:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if n := len(Conflicts([]*Patch{a, a})); n != 0 {
		t.Errorf("a file conflicts with itself: %d", n)
	}
}
