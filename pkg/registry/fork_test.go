package registry

import (
	"reflect"
	"testing"
)

func TestForkBuildsACandidateAndLeavesTheCompiler(t *testing.T) {
	var c Compiler
	cms := syntheticRegistry(1000, false)
	first := c.Build(cms, nil)
	stored := first.LastGood

	candidate := syntheticRegistry(1000, false)
	candidate[3].Data["f00301.kpatch"] = brokenFile
	f := c.Fork()
	b := f.Build(candidate, nil)
	if b.Compiled != 1 {
		t.Errorf("the fork's build of a one-key edit compiled %d files, want 1", b.Compiled)
	}
	var refused []string
	for _, file := range b.Registry.Files() {
		if file.Err != nil {
			refused = append(refused, file.Ref.String())
		}
	}
	if len(refused) != 1 || refused[0] != "cm-003/f00301.kpatch" {
		t.Errorf("the candidate refuses %v, want cm-003/f00301.kpatch", refused)
	}
	// the compiler saw nothing: the same ConfigMaps compile nothing and
	// report nothing, and the broken edit, once applied, is reported
	if again := c.Build(cms, stored); again.Compiled != 0 || len(again.Problems) != 0 {
		t.Errorf("after a fork, the compiler's next build compiled %d files and reported %v", again.Compiled, again.Problems)
	}
	if edited := c.Build(candidate, stored); len(edited.Problems) != 1 || !edited.Problems[0].LastGood {
		t.Errorf("the broken edit, applied after a fork, reports %+v", edited.Problems)
	}
}

// TestForkCopiesEveryField fails when Compiler gains a field: Fork must
// then say what a fork takes of it.
func TestForkCopiesEveryField(t *testing.T) {
	want := []string{"Limits", "RegistryNamespace", "Tenancy", "mu", "generation", "files", "values", "cmValues"}
	var got []string
	for f := range reflect.TypeFor[Compiler]().Fields() {
		got = append(got, f.Name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compiler's fields are %v; Fork copies %v: update Fork and this list", got, want)
	}
}
