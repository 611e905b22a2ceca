package lint

import (
	"errors"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
)

func TestFindingsSplitErrorLists(t *testing.T) {
	var f Findings
	f.Warn(errors.New("w"))
	if f.Failed() {
		t.Error("a warning fails nothing")
	}
	f.Add(kpatch.ErrorList{errors.New("a"), errors.New("b")})
	if !f.Failed() || len(f.List) != 3 {
		t.Errorf("failed %v, %d findings", f.Failed(), len(f.List))
	}
	var b strings.Builder
	f.Print(&b)
	if b.String() != "w\na\nb\n" {
		t.Errorf("printed %q", b.String())
	}
}

func TestUnmatchedTargets(t *testing.T) {
	p, err := kpatch.ParseAndCompile("p.kpatch", []byte("[deployment.web]\nreplicas: 1\n\n[deployment.wbe]\nreplicas: 2\n\n[*.web]\nmetadata.labels.a: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	objects := []kpatch.ObjectRef{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}
	got := UnmatchedTargets([]*kpatch.Patch{p}, objects, false)
	if len(got) != 1 || got[0].Error() != "p.kpatch:4:1: warning: target deployment.wbe matches no object of the input" {
		t.Fatalf("got %v", got)
	}
	var f Findings
	f.ReportUnmatched(UnmatchedTargets([]*kpatch.Patch{p}, objects, true))
	if !f.Failed() || !errors.Is(f.List[0].Err, errUnmatched) {
		t.Errorf("fatal: %v", f.List)
	}
}
