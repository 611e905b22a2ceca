package kpatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseMetadataComments(t *testing.T) {
	src := "# a plain comment\n" +
		"# kpatch: also a plain comment\n" +
		"# kpatch:enabled: ${features.canary}  # why\n" +
		"# kpatch:requires: base, team-a/common\n" +
		"# kpatch:requires: extra\n" +
		"#kpatch:conflicts: legacy\n" +
		"# kpatch:description: Adds the canary\n" +
		"# kpatch:description: sidecar.\n" +
		"# kpatch:reconcile: true  # roll it out\n" +
		"[deployment.web]\n" +
		"replicas: 2\n" +
		"# kpatch is mentioned here, harmlessly\n"
	f, err := ParseString("web.kpatch", src)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Metadata
	if m.Enabled == nil || m.Enabled.Value.Parts[0].Var.String() != "${features.canary}" || m.Enabled.Pos != (Position{File: "web.kpatch", Line: 3, Column: 19}) {
		t.Errorf("enabled = %+v", m.Enabled)
	}
	if got := names(m.Requires); !reflect.DeepEqual(got, []string{"base", "team-a/common", "extra"}) {
		t.Errorf("requires = %v", got)
	}
	if m.Requires[1].Pos != (Position{File: "web.kpatch", Line: 4, Column: 26}) {
		t.Errorf("requires[1] at %v", m.Requires[1].Pos)
	}
	if got := names(m.Conflicts); !reflect.DeepEqual(got, []string{"legacy"}) {
		t.Errorf("conflicts = %v", got)
	}
	if m.Description != "Adds the canary sidecar." {
		t.Errorf("description = %q", m.Description)
	}
	if !m.Reconcile || m.ReconcilePos != (Position{File: "web.kpatch", Line: 9, Column: 21}) {
		t.Errorf("reconcile = %v at %v", m.Reconcile, m.ReconcilePos)
	}
}

func names(list []FileName) []string {
	var out []string
	for _, n := range list {
		out = append(out, n.Name)
	}
	return out
}

func TestParseMetadataErrors(t *testing.T) {
	tests := []struct{ name, file, src, want string }{
		{"unknown key", "f.kpatch", "# kpatch:enable: true\n", `f.kpatch:1:10: unknown file metadata "enable"; expected conflicts, description, enabled, layer, mode, operations, reconcile, requires`},
		{"after the header", "f.kpatch", "[deployment.web]\n# kpatch:enabled: true\nreplicas: 1\n", "f.kpatch:2:1: file metadata (# kpatch:...) goes before the first header"},
		{"no separator", "f.kpatch", "# kpatch:enabled true\n", "f.kpatch:1:10: expected # kpatch:KEY: VALUE"},
		{"enabled twice", "f.kpatch", "# kpatch:enabled: true\n# kpatch:enabled: false\n", "f.kpatch:2:19: enabled: given twice; first at line 1"},
		{"enabled empty", "f.kpatch", "# kpatch:enabled:\n", "expected a value"},
		{"extension", "f.kpatch", "# kpatch:requires: base.kpatch\n", `f.kpatch:1:20: a file is named without its extension: write "base"`},
		{"bad name", "f.kpatch", "# kpatch:requires: a/b/c\n", `invalid file name "a/b/c"`},
		{"no names", "f.kpatch", "# kpatch:conflicts: ,\n", "expected the names of files"},
		{"bad variable", "f.kpatch", "# kpatch:enabled: ${feature.x}\n", "f.kpatch:1:19:"},
		{"yaml not first", "f.yaml", "- target: deployment.web\n  patch: {replicas: 1}\n- metadata: {enabled: true}\n", "f.yaml:3:3: the metadata entry is the first entry of the file"},
		{"yaml unknown key", "f.yaml", "- metadata: {enabled: true, weight: 2}\n", `f.yaml:1:29: unknown file metadata "weight"`},
		{"yaml with target", "f.yaml", "- metadata: {}\n  target: deployment.web\n", `f.yaml:2:3: unknown key "target" in the metadata entry`},
		{"yaml requires map", "f.yaml", "- metadata: {requires: {a: b}}\n", "f.yaml:1:24: expected a list of file names"},
		{"yaml enabled list", "f.yaml", "- metadata: {enabled: [1]}\n", "f.yaml:1:23: enabled: expected a boolean"},
		{"reconcile maybe", "f.kpatch", "# kpatch:reconcile: maybe\n", `f.kpatch:1:21: reconcile: expected true or false, not "maybe"`},
		{"reconcile empty", "f.kpatch", "# kpatch:reconcile:\n", `f.kpatch:1:20: reconcile: expected true or false, not ""`},
		{"reconcile capital", "f.kpatch", "# kpatch:reconcile: True\n", `f.kpatch:1:21: reconcile: expected true or false, not "True"`},
		{"reconcile twice", "f.kpatch", "# kpatch:reconcile: true\n# kpatch:reconcile: false\n", "f.kpatch:2:21: reconcile: given twice; first at line 1"},
		{"yaml reconcile list", "f.yaml", "- metadata: {reconcile: [true]}\n", "f.yaml:1:25: reconcile: expected true or false"},
		{"yaml reconcile yes", "f.yaml", "- metadata:\n    reconcile: yes\n", `f.yaml:2:16: reconcile: expected true or false, not "yes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAny(tt.file, []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error %v is not ErrSyntax", err)
			}
		})
	}
}

func TestParseYAMLMetadata(t *testing.T) {
	src := "- metadata:\n" +
		"    enabled: ${values.tier}\n" +
		"    requires: [base, common]\n" +
		"    conflicts: legacy old\n" +
		"    description: The tier's limits.\n" +
		"    reconcile: true\n" +
		"- target: deployment.web\n" +
		"  patch: {replicas: 2}\n"
	f, err := ParseYAML("limits.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Metadata
	if m.Enabled == nil || m.Enabled.Pos != (Position{File: "limits.yaml", Line: 2, Column: 14}) || !reflect.DeepEqual(names(m.Requires), []string{"base", "common"}) ||
		!reflect.DeepEqual(names(m.Conflicts), []string{"legacy", "old"}) || m.Description != "The tier's limits." || len(f.Sections) != 1 {
		t.Errorf("metadata = %+v, sections %d", m, len(f.Sections))
	}
	if m.Requires[1].Pos != (Position{File: "limits.yaml", Line: 3, Column: 22}) {
		t.Errorf("requires[1] at %v", m.Requires[1].Pos)
	}
	if !m.Reconcile || m.ReconcilePos != (Position{File: "limits.yaml", Line: 6, Column: 16}) {
		t.Errorf("reconcile = %v at %v", m.Reconcile, m.ReconcilePos)
	}
}

func TestPatchEnabled(t *testing.T) {
	tests := []struct {
		enabled string
		vars    *Variables
		want    bool
	}{
		{"true", nil, true},
		{"false", nil, false},
		{"disabled", nil, false},
		{"0", nil, false},
		{`"yes"`, nil, true},
		{"${features.x}", &Variables{Features: map[string]any{"x": true}}, true},
		{"${features.x}", &Variables{Features: map[string]any{"x": false}}, false},
		{"${values.tier}", &Variables{Values: map[string]any{"tier": "No"}}, false},
		{"${values.n}", &Variables{Values: map[string]any{"n": int64(2)}}, true},
		{"${values.n}", &Variables{Values: map[string]any{"n": 0.0}}, false},
		{"on-${values.tier}", &Variables{Values: map[string]any{"tier": ""}}, true},
	}
	for _, tt := range tests {
		p := mustPatch(t, "f.kpatch", "# kpatch:enabled: "+tt.enabled+"\n[deployment.web]\nreplicas: 1\n").WithVariables(tt.vars)
		got, err := p.Enabled()
		if err != nil || got != tt.want {
			t.Errorf("enabled: %s with %+v = %v, %v; want %v", tt.enabled, tt.vars, got, err, tt.want)
		}
	}
	p := mustPatch(t, "f.kpatch", "[deployment.web]\nreplicas: 1\n")
	if ok, err := p.Enabled(); !ok || err != nil {
		t.Errorf("a file without enabled: %v, %v", ok, err)
	}
}

func TestPatchEnabledUndefined(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "# kpatch:enabled: ${features.x}\n[deployment.web]\nreplicas: 1\n")
	_, err := p.WithVariables(&Variables{}).Enabled()
	if err == nil || err.Error() != "f.kpatch:1:19: enabled: variable ${features.x} is not defined" || !errors.Is(err, ErrVariable) {
		t.Errorf("Enabled: %v", err)
	}
	if _, err := p.Bind(&Variables{}); err == nil || !strings.Contains(err.Error(), "f.kpatch:1:19: enabled:") {
		t.Errorf("Bind: %v", err)
	}
	if refs := p.File().References(); len(refs) != 1 || refs[0].Pos.Line != 1 {
		t.Errorf("References: %+v", refs)
	}
	q := mustPatch(t, "f.kpatch", "# kpatch:enabled: ${namespace.labels.tier}\n[deployment.web]\nreplicas: 1\n")
	if _, err := q.Bind(&Variables{}); err != nil {
		t.Errorf("Bind without built-ins: %v", err)
	}
}

// members parses metadata for Relate: each file's .kpatch header lines.
func members(t *testing.T, files ...[2]string) []Member {
	t.Helper()
	var out []Member
	for _, f := range files {
		parsed, err := ParseString(f[0], f[1]+"[deployment.web]\nreplicas: 1\n")
		if err != nil {
			t.Fatal(err)
		}
		group, name, _ := strings.Cut(f[0], "/")
		out = append(out, Member{Group: group, Name: TrimPatchExtension(name), File: f[0], Meta: &parsed.Metadata})
	}
	return out
}

func TestRelateOrder(t *testing.T) {
	ms := members(t,
		[2]string{"cm/a.kpatch", "# kpatch:requires: c\n"},
		[2]string{"cm/b.kpatch", "# kpatch:requires: a\n"},
		[2]string{"cm/c.kpatch", ""},
		[2]string{"cm/d.kpatch", ""},
		[2]string{"other/e.kpatch", "# kpatch:requires: cm/d\n"},
	)
	r := Relate(ms)
	if want := []int{2, 0, 1, 3, 4}; !reflect.DeepEqual(r.Order, want) {
		t.Errorf("order %v, want %v", r.Order, want)
	}
	for i, err := range r.Check(make([]State, len(ms))) {
		if err != nil {
			t.Errorf("%d: %v", i, err)
		}
	}
}

func TestRelateErrors(t *testing.T) {
	ms := members(t,
		[2]string{"cm/a.kpatch", "# kpatch:requires: b\n"},
		[2]string{"cm/b.kpatch", "# kpatch:requires: c\n"},
		[2]string{"cm/c.kpatch", "# kpatch:requires: a\n"},
		[2]string{"cm/d.kpatch", "# kpatch:requires: nothere d\n"},
		[2]string{"x/e.kpatch", ""},
		[2]string{"y/e.kpatch", ""},
		[2]string{"z/f.kpatch", "# kpatch:requires: e\n"},
	)
	errs := Relate(ms).Check(make([]State, len(ms)))
	want := []string{
		"cm/a.kpatch:1:20: requires form a cycle: cm/a.kpatch -> cm/b.kpatch -> cm/c.kpatch -> cm/a.kpatch",
		"cm/b.kpatch:1:20: requires form a cycle: cm/b.kpatch -> cm/c.kpatch -> cm/a.kpatch -> cm/b.kpatch",
		"cm/c.kpatch:1:20: requires form a cycle: cm/c.kpatch -> cm/a.kpatch -> cm/b.kpatch -> cm/c.kpatch",
		"cm/d.kpatch:1:20: requires nothere, which names no patch file\ncm/d.kpatch:1:28: requires itself",
		"",
		"",
		"z/f.kpatch:1:20: requires e, which names several files (x/e.kpatch, y/e.kpatch); write GROUP/NAME",
	}
	for i, err := range errs {
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want[i] {
			t.Errorf("%s: %q\nwant %q", ms[i].File, got, want[i])
		}
	}
	if !errors.Is(errs[0], ErrRequiresCycle) || !errors.Is(errs[3], ErrRequirement) {
		t.Errorf("sentinels: %v, %v", errs[0], errs[3])
	}
}

func TestRelateStates(t *testing.T) {
	ms := members(t,
		[2]string{"cm/base.kpatch", "# kpatch:enabled: false\n"},
		[2]string{"cm/team.kpatch", "# kpatch:requires: base\n"},
		[2]string{"cm/new.kpatch", ""},
		[2]string{"cm/old.kpatch", "# kpatch:conflicts: new\n"},
		[2]string{"cm/later.kpatch", "# kpatch:requires: team\n"},
	)
	r := Relate(ms)
	errs := r.Check([]State{Disabled, Enabled, Enabled, Enabled, Enabled})
	want := []string{
		"",
		"cm/team.kpatch:1:20: requires cm/base.kpatch, which is disabled (enabled: false at line 1)",
		"",
		"cm/old.kpatch:1:21: cm/old.kpatch and cm/new.kpatch conflict, and both are enabled: cm/new.kpatch applies, cm/old.kpatch does not",
		"cm/later.kpatch:1:20: requires cm/team.kpatch, which does not apply",
	}
	for i, err := range errs {
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want[i] {
			t.Errorf("%s: %q\nwant %q", ms[i].File, got, want[i])
		}
	}
	if !errors.Is(errs[3], ErrFileConflict) {
		t.Errorf("conflict: %v", errs[3])
	}
	// unknown states are left for later; a disabled conflict is none
	for i, err := range r.Check([]State{Unknown, Enabled, Disabled, Enabled, Unknown}) {
		if err != nil {
			t.Errorf("%s: %v", ms[i].File, err)
		}
	}
}

func TestRelationsBuildsOn(t *testing.T) {
	r := Relate(members(t,
		[2]string{"cm/a.kpatch", ""},
		[2]string{"cm/b.kpatch", "# kpatch:requires: a\n"},
		[2]string{"cm/c.kpatch", "# kpatch:requires: b\n"},
	))
	if !r.BuildsOn("cm/c.kpatch", "cm/a.kpatch") || !r.BuildsOn("cm/b.kpatch", "cm/a.kpatch") || r.BuildsOn("cm/a.kpatch", "cm/c.kpatch") || r.BuildsOn("cm/x", "cm/a.kpatch") {
		t.Error("BuildsOn")
	}
}

// TestPatchReconcile: a compiled file reconciles when its metadata say
// reconcile: true, and not when they say false or nothing.
func TestPatchReconcile(t *testing.T) {
	for meta, want := range map[string]bool{"": false, "# kpatch:reconcile: false\n": false, "# kpatch:reconcile: true\n": true} {
		p, err := ParseAndCompile("f.kpatch", []byte(meta+"[deployment.web]\nreplicas: 2\n"))
		if err != nil || p.Reconcile() != want {
			t.Errorf("%q: Reconcile() = %v (%v), want %v", meta, p != nil && p.Reconcile(), err, want)
		}
	}
}
