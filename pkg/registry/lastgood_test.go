package registry

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestCompilerRefusesAStoredVersionTheRegistryNeverHeld: when a file's
// current content is refused, its stored version applies only if it came
// from this very ConfigMap (uid), before its current version, and this
// compiler compiled it or the API server vouched for it. A refused
// version does not apply, says why, and leaves the store.
func TestCompilerRefusesAStoredVersionTheRegistryNeverHeld(t *testing.T) {
	ref := FileRef{ConfigMap: "a", Key: "f.kpatch"}
	planted := "[deployment.web]\nreplicas: 99\n"
	before := configMap("a", map[string]string{"f.kpatch": goodFile}).ResourceVersion
	cases := map[string]struct {
		stored StoredFile
		want   string // in the refusal
	}{
		"never compiled, not vouched":              {NewStoredFile(planted, "", "uid-a", before), "no replica is known to have compiled it"},
		"of a ConfigMap deleted and created again": {vouch(NewStoredFile(planted, "", "uid-old", before)), "stored from ConfigMap uid uid-old"},
		"without a uid":                            {vouch(NewStoredFile(planted, "", "", before)), "records no ConfigMap uid"},
		"from the future":                          {vouch(NewStoredFile(planted, "", "uid-a", "999999999")), `not before the ConfigMap's`},
		"at no resourceVersion":                    {vouch(NewStoredFile(planted, "", "uid-a", "")), `not before the ConfigMap's`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var c Compiler
			c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": goodFile})}, nil)
			b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": brokenFile})}, NewLastGood(map[FileRef]StoredFile{ref: tc.stored}))
			if got := replicas(t, b.Registry); got != "-" {
				t.Errorf("replicas %s: a version the registry never held applied", got)
			}
			f := b.Registry.Files()[0]
			if f.LastGood || !errors.Is(f.LastGoodErr, ErrLastGoodRefused) || !strings.Contains(f.LastGoodErr.Error(), tc.want) {
				t.Errorf("file %+v, want a refusal saying %q", f, tc.want)
			}
			if len(b.Problems) != 1 || !errors.Is(b.Problems[0].LastGoodErr, ErrLastGoodRefused) {
				t.Errorf("problems %+v", b.Problems)
			}
			if _, kept := b.LastGood.Get(ref); b.LastGood == nil || kept {
				t.Errorf("the store keeps the refused version: %v", b.LastGood)
			}
		})
	}
}

// TestCompilerTrustsWhatItCompiled: the version this compiler compiled
// as the file's content applies without a voucher; so does an older one
// within the history, not one beyond it.
func TestCompilerTrustsWhatItCompiled(t *testing.T) {
	var c Compiler
	ref := FileRef{ConfigMap: "a", Key: "f.kpatch"}
	var first StoredFile
	for i := range historyLen + 1 {
		b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": fmt.Sprintf("[deployment.web]\nreplicas: %d\n", i+1)})}, nil)
		if i == 0 {
			first, _ = b.LastGood.Get(ref)
		}
	}
	second := NewStoredFile("[deployment.web]\nreplicas: 2\n", "", "uid-a", first.ResourceVersion)
	if !c.Compiled(ref, second) || c.Compiled(ref, first) {
		t.Errorf("history: the second version %v, the first %v; want the last %d only", c.Compiled(ref, second), c.Compiled(ref, first), historyLen)
	}
	broken := []corev1.ConfigMap{configMap("a", map[string]string{"f.kpatch": brokenFile})}
	if got := replicas(t, c.Build(broken, NewLastGood(map[FileRef]StoredFile{ref: second})).Registry); got != "2" {
		t.Errorf("replicas %s, want the compiled version's 2", got)
	}
	if got := replicas(t, c.Build(broken, NewLastGood(map[FileRef]StoredFile{ref: first})).Registry); got != "-" {
		t.Errorf("replicas %s: a version beyond the history applied without a voucher", got)
	}
	// of a ConfigMap of another uid, what this compiler compiled does not count
	other := configMap("a", map[string]string{"f.kpatch": brokenFile})
	other.UID = "uid-new"
	if got := replicas(t, c.Build([]corev1.ConfigMap{other}, NewLastGood(map[FileRef]StoredFile{ref: second})).Registry); got != "-" {
		t.Errorf("replicas %s: the version of a deleted ConfigMap applied to the new one", got)
	}
}

// TestStoredVersionRecordsItsConfigMap: the store is asked to hold the
// uid and resourceVersion of the ConfigMap a version came from, and a new
// uid replaces the version even when the content is the same.
func TestStoredVersionRecordsItsConfigMap(t *testing.T) {
	var c Compiler
	ref := FileRef{ConfigMap: "a", Key: "f.kpatch"}
	cm := configMap("a", map[string]string{"f.kpatch": goodFile})
	stored := c.Build([]corev1.ConfigMap{cm}, nil).LastGood
	if f, _ := stored.Get(ref); f.UID != "uid-a" || f.ResourceVersion != cm.ResourceVersion || f.Vouched {
		t.Errorf("stored %+v", f)
	}
	again := configMap("a", map[string]string{"f.kpatch": goodFile})
	again.UID = "uid-new"
	b := c.Build([]corev1.ConfigMap{again}, stored)
	if f, _ := b.LastGood.Get(ref); b.LastGood == nil || f.UID != "uid-new" || f.ResourceVersion != again.ResourceVersion {
		t.Errorf("after the ConfigMap was created again: %+v", b.LastGood)
	}
}

func vouch(f StoredFile) StoredFile {
	f.Vouched = true
	return f
}
