package yamledit_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/objecttest"
	"kpatch.dev/kpatch/internal/yamledit"
)

// BenchmarkRewriteDocument writes back a Deployment of n containers with
// comments and blank lines, whose every container changed, and reads the
// result back to check it, at n and 10n.
func BenchmarkRewriteDocument(b *testing.B) {
	for _, n := range []int{10, 100} {
		text := []byte(objecttest.DeploymentText(n, 1))
		f, err := manifest.ReadFile("bench.yaml", text)
		if err != nil {
			b.Fatal(err)
		}
		orig := f.Documents()[0].Obj
		g, err := manifest.ReadFile("bench.yaml", []byte(objecttest.DeploymentText(n, 2)))
		if err != nil {
			b.Fatal(err)
		}
		patched := g.Documents()[0].Obj
		b.Run(fmt.Sprintf("containers=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := yamledit.SpliceDocument(text, orig, patched); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSpliceRandomChanges edits random documents, written in several
// layouts, into random other objects: the edited text must read back as
// the new object, edited in place (no coarser writer needed).
func TestSpliceRandomChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 600 {
		var base, target map[string]any
		if i%2 == 0 {
			base, target = objecttest.Deployment(r), objecttest.Deployment(r)
		} else {
			base = objecttest.Widget(r)
			target = objecttest.Mutate(r, objecttest.DeepCopy(base), 0).(map[string]any)
			objecttest.RestoreIdentity(target)
		}
		var n yaml.Node
		if err := n.Encode(base); err != nil {
			t.Fatal(err)
		}
		text, err := yamledit.EncodeInLayout(&n, 2+2*(i%2), i%3 == 0)
		if err != nil {
			t.Fatal(err)
		}
		f, err := manifest.ReadFile("x", text)
		if err != nil {
			t.Fatal(err)
		}
		out, err := yamledit.SpliceDocument(text, f.Documents()[0].Obj, target)
		if err != nil || !yamledit.DecodesTo(out, target) {
			t.Fatalf("%d: err %v:\n%s\n--- out:\n%s\ntarget %s", i, err, text, out, brief(target))
		}
	}
}

// FuzzSplice edits any YAML document into a random change of its object:
// an edit in place must read back as the changed object.
func FuzzSplice(f *testing.F) {
	f.Add(objecttest.Written, uint64(1))
	f.Add("a: 1\nb:\n- x\n- {y: 2}\nc: |\n  text\n# end\n", uint64(2))
	f.Add("l:\n  - name: a # a\n    v: [1, 2]\n\n  - name: b\nm: {k: 'v'}\n", uint64(3))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		if len(text) > 4096 {
			return
		}
		file, err := manifest.ReadFile("fuzz.yaml", []byte(text))
		if err != nil || len(file.Parts) != 1 || file.Parts[0].Doc.Obj == nil {
			return
		}
		doc := file.Parts[0].Doc
		target, ok := objecttest.Mutate(rand.New(rand.NewPCG(seed, seed)), objecttest.DeepCopy(doc.Obj), 1).(map[string]any)
		if !ok {
			return
		}
		out, err := yamledit.SpliceDocument(doc.Text, doc.Obj, target)
		if err == nil && !yamledit.DecodesTo(out, target) {
			t.Fatalf("the edited text does not read back as the object:\n%s\n--- out:\n%s\ntarget %s", text, out, brief(target))
		}
	})
}

// brief prints a value as JSON for a message.
func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
