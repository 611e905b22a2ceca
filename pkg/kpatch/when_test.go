package kpatch

import (
	"errors"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/condition"
)

func TestWhenConditionsTheFileAndSections(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "# kpatch:when: object.spec.replicas > 2\n"+
		"[deployment.*]\n"+
		"labels.big: \"yes\"\n"+
		"\n"+
		"[deployment.*.containers.name=main]\n"+
		"# a plain comment\n"+
		"# kpatch:when:   has(object.metadata.labels) && object.metadata.labels.tier == 'gold'\n"+
		"resources.limits.cpu: 2\n")
	conds := p.Conditions()
	if len(conds) != 2 {
		t.Fatalf("Conditions = %d, want 2", len(conds))
	}
	file, sec := conds[0], conds[1]
	if file.Section != -1 || file.String() != "object.spec.replicas > 2" || file.Pos != (Position{File: "f.kpatch", Line: 1, Column: 16}) {
		t.Errorf("file condition = %d %q at %v", file.Section, file.String(), file.Pos)
	}
	if sec.Section != 1 || sec.Pos != (Position{File: "f.kpatch", Line: 7, Column: 18}) || sec.Header != "[deployment.*.containers.name=main]" {
		t.Errorf("section condition = %d at %v, header %q", sec.Section, sec.Pos, sec.Header)
	}
}

func TestWhenInAYAMLPatchFile(t *testing.T) {
	src := "- metadata:\n    when: \"request.operation == 'CREATE'\"\n- target: {kind: Deployment, name: web}\n  patch:\n    replicas: 2\n"
	p := mustPatch(t, "f.yaml", src)
	if c := p.Conditions(); len(c) != 1 || c[0].Section != -1 || c[0].Pos != (Position{File: "f.yaml", Line: 2, Column: 12}) {
		t.Fatalf("Conditions = %+v", c)
	}
	_, err := ParseAndCompile("f.yaml", []byte("- metadata:\n    when: \"object.spec.replicas >\"\n- target: {kind: Deployment, name: web}\n  patch:\n    replicas: 2\n"))
	if err == nil || !strings.Contains(err.Error(), "f.yaml:2:34: when: Syntax error") {
		t.Fatalf("err = %v", err)
	}
}

func TestWhenErrorsSayWhere(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"syntax", "# kpatch:when: object.spec.replicas >\n[deployment.web]\nreplicas: 1\n", "f.kpatch:1:38: when: Syntax error"},
		{"undeclared", "[deployment.web]\n# kpatch:when: object.spec.replicas > 2 && nope.x\nreplicas: 1\n", "f.kpatch:2:44: when: undeclared reference to 'nope'"},
		{"not boolean", "# kpatch:when: object.spec.replicas\n[deployment.web]\nreplicas: 1\n", "f.kpatch:1:16: when: "},
		{"podSpec outside @workload", "# kpatch:when: podSpec.hostNetwork == true\n[deployment.web]\nreplicas: 1\n", "f.kpatch:1:16: when: undeclared reference to 'podSpec'"},
		{"empty", "# kpatch:when:\n[deployment.web]\nreplicas: 1\n", "f.kpatch:1:15: when: expected a CEL expression"},
		{"twice", "# kpatch:when: true\n# kpatch:when: false\n[deployment.web]\nreplicas: 1\n", "f.kpatch:2:16: when: given twice; first at line 1"},
		{"section twice", "[deployment.web]\n# kpatch:when: true\n# kpatch:when: false\nreplicas: 1\n", "f.kpatch:3:16: when: given twice for the section; first at line 2"},
		{"after an entry", "[deployment.web]\nreplicas: 1\n# kpatch:when: true\n", "f.kpatch:3:10: a section's # kpatch:when: goes directly after its header, before its first entry (line 2)"},
		{"other metadata after a header", "[deployment.web]\n# kpatch:enabled: true\nreplicas: 1\n", "f.kpatch:2:1: file metadata (# kpatch:...) goes before the first header"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseAndCompile("f.kpatch", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	_, err := ParseAndCompile("f.kpatch", []byte("# kpatch:when: 1 + 'a' == 2\n[deployment.web]\nreplicas: 1\n"))
	if !errors.Is(err, condition.ErrInvalid) {
		t.Fatalf("err = %v, want condition.ErrInvalid", err)
	}
}

func TestWorkloadConditionsDeclareThePodTemplate(t *testing.T) {
	src := "# kpatch:when: podSpec.containers.exists(c, c.name == 'proxy')\n[@workload.*]\nserviceAccountName: mesh\n"
	if _, err := ParseAndCompile("f.kpatch", []byte(src)); err != nil {
		t.Fatal(err)
	}
	src = "[@workload.*]\n# kpatch:when: podMetadata.labels.app == 'web'\nserviceAccountName: mesh\n\n[deployment.web]\n# kpatch:when: podMetadata.labels.app == 'web'\nreplicas: 1\n"
	if _, err := ParseAndCompile("f.kpatch", []byte(src)); err == nil || !strings.Contains(err.Error(), "f.kpatch:6:16: when: undeclared reference to 'podMetadata'") {
		t.Fatalf("err = %v", err)
	}
}

func TestWithoutLeavesSectionsOut(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "[deployment.web]\nlabels.a: x\n\n[deployment.web]\n# kpatch:when: false\nlabels.b: ${required}\nlabels.c: y\n")
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}}
	out, err := p.Without([]bool{false, true}).Apply(obj, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labels := out["metadata"].(map[string]any)["labels"].(map[string]any)
	if labels["a"] != "x" || labels["c"] != nil {
		t.Fatalf("labels = %v, want a only", labels)
	}
	ref := RefOf(obj, "")
	if m := p.Without([]bool{false, true}).MissingFields(out, &ref, ApplyOptions{}); len(m) != 0 {
		t.Fatalf("a section left out reports its required fields: %v", m)
	}
	if m := p.MissingFields(out, &ref, ApplyOptions{}); len(m) != 1 {
		t.Fatalf("MissingFields = %v, want labels.b", m)
	}
	out, err = p.Apply(obj, ApplyOptions{})
	if err != nil || out["metadata"].(map[string]any)["labels"].(map[string]any)["c"] != "y" {
		t.Fatalf("the whole patch: %v, %v", out, err)
	}
}

func TestPodTemplate(t *testing.T) {
	tmpl := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": map[string]any{"hostNetwork": true}}
	cases := []struct {
		obj        map[string]any
		spec, meta bool
	}{
		{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"template": tmpl}}, true, true},
		{map[string]any{"apiVersion": "batch/v1", "kind": "CronJob", "spec": map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": tmpl}}}}, true, true},
		{map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": tmpl["metadata"], "spec": tmpl["spec"]}, true, true},
		{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment"}, false, false},
		{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": tmpl["metadata"]}, false, false},
	}
	for _, tc := range cases {
		spec, meta := PodTemplate(tc.obj)
		if (spec != nil) != tc.spec || (meta != nil) != tc.meta {
			t.Errorf("%v: spec %v, metadata %v", tc.obj["kind"], spec, meta)
		}
		if spec != nil && spec["hostNetwork"] != true || meta != nil && meta["labels"].(map[string]any)["app"] != "web" {
			t.Errorf("%v: spec %v, metadata %v", tc.obj["kind"], spec, meta)
		}
	}
}
