package apply

import (
	"context"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// TestMetaSurvivesWrappers: a file's operations, audit mode, conditions,
// reconcile, metadata and specificity are read through File.Meta, the
// same through the wrappers that leave a file out.
func TestMetaSurvivesWrappers(t *testing.T) {
	f := patchFile(t, "m.kpatch", "# kpatch:operations: UPDATE\n# kpatch:mode: audit\n# kpatch:layer: 3\n# kpatch:when: object.metadata.name == 'c'\n# kpatch:description: sets a\n# kpatch:reconcile: true\n[configmap.c]\ndata.a: y\n")
	for name, file := range map[string]File{"file": f, "failing": Failing(f, errTest), "disabling": Disabling(f, "off", true), "bound": f.WithValues(nil)} {
		m := file.Meta()
		if !m.Operations.Has("UPDATE") || m.Operations.Has("CREATE") || !m.Audit || !m.Conditional || !m.Reconcile || m.Owner != "" {
			t.Errorf("%s: Meta %+v, want UPDATE only, audit, conditional, reconcile, the admin's", name, m)
		}
		if layer, set := m.Layer(); layer != 3 || !set || m.Description() != "sets a" || m.Specificity.Compare(f.(PatchFile).Patch.Specificity()) != 0 {
			t.Errorf("%s: layer %d (%v), description %q, specificity %v: want the file's", name, layer, set, m.Description(), m.Specificity)
		}
	}
	r, err := replacement.Parse("r.yaml", []byte("replacements:\n- source: {kind: ConfigMap, name: src, fieldPath: data.a}\n  targets:\n  - select: {kind: ConfigMap, name: c}\n    fieldPaths: [data.a]\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := (&ReplacementsFile{Replacements: r}).Meta()
	if m.Operations != kpatch.AllOperations || m.Audit || m.Conditional || m.Reconcile || m.Metadata != nil || m.Specificity.Compare(r.Specificity()) != 0 {
		t.Errorf("replacements file: Meta %+v", m)
	}
}

// TestAdminConditionsFirst: the admin's conditions are evaluated before
// any file applies, each owner within a budget of its own: an owner whose
// files spent its budget leaves another's conditions evaluated.
func TestAdminConditionsFirst(t *testing.T) {
	const cond = "# kpatch:when: object.metadata.name.startsWith('c') && object.metadata.name.endsWith('c')\n"
	tenant := owned{patchFile(t, "t.kpatch", cond+"[configmap.c]\ndata.t: y\n"), "team"}
	admin := patchFile(t, "a.kpatch", cond+"[configmap.c]\ndata.a: y\n")
	var order []string
	obs := ObserverFunc(func(_ int, run FileRun, _, _ map[string]any) {
		if run.Conditions != nil {
			order = append(order, run.File.Name())
		}
	})
	run, err := RunObject(context.Background(), configMap("c", nil), []File{tenant, tenant, tenant, admin},
		&Options{Admission: Admission{CostBudget: 10}, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if got := runResults(run); got != "t.kpatch:patched t.kpatch:failed t.kpatch:failed a.kpatch:patched" {
		t.Errorf("results %s: the tenant's files spend their budget, the admin's file applies", got)
	}
	if len(order) == 0 {
		t.Error("the observer was told no conditions")
	}
}

// owned is a file of another owner than the admin.
type owned struct {
	File
	owner string
}

func (o owned) Meta() Meta {
	m := o.File.Meta()
	m.Owner = o.owner
	return m
}
