package apply

import (
	"context"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// TestMetaSurvivesWrappers: a file's operations, audit mode and
// conditions are read through File.Meta, the same through the wrappers
// that leave a file out.
func TestMetaSurvivesWrappers(t *testing.T) {
	f := patchFile(t, "m.kpatch", "# kpatch:operations: UPDATE\n# kpatch:mode: audit\n# kpatch:when: object.metadata.name == 'c'\n[configmap.c]\ndata.a: y\n")
	want := Meta{Operations: kpatch.OperationUpdate, Audit: true, Conditional: true}
	for name, file := range map[string]File{"file": f, "failing": Failing(f, errTest), "disabling": Disabling(f, "off", true), "bound": f.WithValues(nil)} {
		if got := file.Meta(); got != want {
			t.Errorf("%s: Meta %+v, want %+v", name, got, want)
		}
	}
	if got := (&ReplacementsFile{}).Meta(); got != (Meta{Operations: kpatch.AllOperations}) {
		t.Errorf("replacements file: Meta %+v", got)
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
