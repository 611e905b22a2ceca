package kpatchfmt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// BenchmarkFmt formats a file of n sections with comments, at n and 10n.
func BenchmarkFmt(b *testing.B) {
	for _, n := range []int{100, 1000} {
		var src strings.Builder
		for i := range n {
			fmt.Fprintf(&src, "  # section %d\n[deployment.app-%d]   # inline\n  replicas:  %d\n\n\n containers.name=main.image: app:%d # tag\n", i, i, i, i)
		}
		b.Run(fmt.Sprintf("sections=%d", n), func(b *testing.B) {
			b.SetBytes(int64(src.Len()))
			for b.Loop() {
				if _, err := Format("b.kpatch", []byte(src.String())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFmtCorpus formats every .kpatch file of the conformance corpus that
// parses: the result parses to the same patches, keeps every comment, and
// formatting it again changes nothing.
func TestFmtCorpus(t *testing.T) {
	files, err := filepath.Glob("../../test/conformance/testdata/*/*.kpatch")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := kpatch.Parse(name, src)
		if err != nil {
			continue
		}
		once, err := Format(name, src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		g, err := kpatch.Parse(name, once)
		if err != nil || g.String() != f.String() {
			t.Errorf("%s: formatted file means something else (%v):\n%s", name, err, once)
		}
		if want, got := comments(string(src)), comments(string(once)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: comments %q, want %q", name, got, want)
		}
		if twice, err := Format(name, once); err != nil || string(twice) != string(once) {
			t.Errorf("%s: formatting twice changes the file:\n%s\n---\n%s", name, once, twice)
		}
	}
}

// comments returns the comments of a file in order: every text from a "#"
// that starts a line or follows a blank, outside quotes (good enough for
// the corpus, whose quoted values hold no blank before a "#").
func comments(src string) []string {
	var out []string
	src = strings.TrimPrefix(strings.ReplaceAll(src, "\r", ""), "\ufeff")
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			out = append(out, line)
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 && !strings.Contains(line[:i], `"`) && !strings.Contains(line[:i], "'") {
			out = append(out, strings.TrimSpace(line[i:]))
		} else if i := strings.Index(line, "\t#"); i >= 0 {
			out = append(out, strings.TrimSpace(line[i:]))
		}
	}
	return out
}

// FuzzFmt: for any file that parses, fmt keeps the meaning and is
// idempotent, or refuses with errLayout where the engine's printer does not
// round-trip (a value holding a carriage return: testdata/fuzz/FuzzFmt).
// The seeds are the corpus's .kpatch files.
func FuzzFmt(f *testing.F) {
	f.Add([]byte(messy))
	files, _ := filepath.Glob("../../test/conformance/testdata/*/*.kpatch")
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := kpatch.Parse("f.kpatch", src)
		if err != nil {
			return
		}
		once, err := Format("f.kpatch", src)
		if errors.Is(err, errLayout) && !printerRoundTrips(file) {
			return
		}
		if err != nil {
			t.Fatalf("a file that parses is refused: %v\n%q", err, src)
		}
		if g, err := kpatch.Parse("f.kpatch", once); err != nil || g.String() != file.String() {
			t.Fatalf("meaning changed (%v):\n%q\n%q", err, src, once)
		}
		if twice, err := Format("f.kpatch", once); err != nil || string(twice) != string(once) {
			t.Fatalf("not idempotent (%v):\n%q\n%q", err, once, twice)
		}
	})
}

// printerRoundTrips reports whether the engine's printer prints the file
// as something that parses back to it.
func printerRoundTrips(f *kpatch.File) bool {
	g, err := kpatch.ParseString(f.Name, f.String())
	return err == nil && g.String() == f.String()
}

// messy is a file in every layout but the canonical one, and tidy the
// same file formatted.
const (
	messy = "\r\n# registry: shop\r\n\r\n\r\n  [deployment.web]   # the web tier\r\n" +
		"    replicas:   3  # three\r\n\r\n\r\n# the main container\r\n  containers.name=main.image: app:1 \r\n" +
		"# about the service\r\n[service.web]\r\n\r\nspec.type:\tNodePort\r\n[configmap.[a.b]]\r\ndata.k:  # empty\r\n# trailing words\r\n\r\n"
	tidy = "# registry: shop\n\n[deployment.web] # the web tier\nreplicas: 3 # three\n\n# the main container\n" +
		"containers.name=main.image: app:1\n\n# about the service\n[service.web]\nspec.type: NodePort\n\n" +
		"[configmap.[a.b]]\ndata.k: # empty\n# trailing words\n"
)

func TestFormatKeepsComments(t *testing.T) {
	out, err := Format("m.kpatch", []byte(messy))
	if err != nil || string(out) != tidy {
		t.Errorf("err %v, got:\n%s\nwant:\n%s", err, out, tidy)
	}
}

// TestFormatKeepsMetadata: file metadata lines, reconcile: among them,
// are kept as written, and the formatted file says what the file said.
func TestFormatKeepsMetadata(t *testing.T) {
	const src = "# kpatch:mode: audit\n# kpatch:reconcile:   true # roll it out\n\n  [deployment.web]\nreplicas:  2\n"
	const want = "# kpatch:mode: audit\n# kpatch:reconcile:   true # roll it out\n\n[deployment.web]\nreplicas: 2\n"
	out, err := Format("m.kpatch", []byte(src))
	if err != nil || string(out) != want {
		t.Fatalf("err %v, got:\n%s\nwant:\n%s", err, out, want)
	}
	f, err := kpatch.Parse("m.kpatch", out)
	if err != nil || !f.Metadata.Reconcile || f.Metadata.Mode.Value != kpatch.ModeAudit {
		t.Errorf("formatted file: err %v, metadata %+v: want reconcile and audit", err, f.Metadata)
	}
}

// TestFormatKeepsItem: ${item.PATH} values and a per-item condition are
// kept as written (the condition as its text, the values normalised as
// any value), and the formatted file means the same.
func TestFormatKeepsItem(t *testing.T) {
	const src = "[pod.*.containers[*]]\n  # kpatch:when:   has(item.securityContext)\nsecurityContext.privileged:   ${item.securityContext.privileged}\nargs[-]:  \"--image=${item.image}\"\n\n[pod.*.volumes.*[delete]]\n# kpatch:when: has(item.hostPath)\n"
	const want = "[pod.*.containers[*]]\n# kpatch:when:   has(item.securityContext)\nsecurityContext.privileged: ${item.securityContext.privileged}\nargs[-]: \"--image=${item.image}\"\n\n[pod.*.volumes[*][delete]]\n# kpatch:when: has(item.hostPath)\n"
	out, err := Format("i.kpatch", []byte(src))
	if err != nil || string(out) != want {
		t.Fatalf("err %v, got:\n%s\nwant:\n%s", err, out, want)
	}
	p, err := kpatch.ParseAndCompile("i.kpatch", out)
	if err != nil || len(p.Conditions()) != 2 || !p.Conditions()[0].Item || !p.Conditions()[1].Item {
		t.Errorf("formatted file: %v; want two per-item conditions", err)
	}
}

// TestFormatKeepsCEL: ${cel: EXPR} values keep their text inside the
// braces byte for byte (spaces, braces, quotes), foreach lines are kept as
// comments are, and keys with variables in brackets stay bracketed.
func TestFormatKeepsCEL(t *testing.T) {
	const src = "[pod.*]\n  # kpatch:foreach:   object.spec.containers\n# kpatch:when: item.name != 'x'\nannotations[a.example/${item.name}]?:   ${cel:   {'k': '}'}['k']  +  item.name }\nlabels.n:  \"v-${cel: object.metadata.name}\"\n"
	const want = "[pod.*]\n# kpatch:foreach:   object.spec.containers\n# kpatch:when: item.name != 'x'\nannotations[a.example/${item.name}]?: ${cel:   {'k': '}'}['k']  +  item.name }\nlabels.n: \"v-${cel: object.metadata.name}\"\n"
	out, err := Format("c.kpatch", []byte(src))
	if err != nil || string(out) != want {
		t.Fatalf("err %v, got:\n%s\nwant:\n%s", err, out, want)
	}
	if _, err := kpatch.ParseAndCompile("c.kpatch", out); err != nil {
		t.Errorf("formatted file: %v", err)
	}
}
