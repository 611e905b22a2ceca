package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// messy is a .kpatch file in no particular layout, with comments of every
// kind; tidy is how fmt prints it.
const (
	messy = "\r\n# registry: shop\r\n\r\n\r\n  [deployment.web]   # the web tier\r\n" +
		"    replicas:   3  # three\r\n\r\n\r\n# the main container\r\n  containers.name=main.image: app:1 \r\n" +
		"# about the service\r\n[service.web]\r\n\r\nspec.type:\tNodePort\r\n[configmap.[a.b]]\r\ndata.k:  # empty\r\n# trailing words\r\n\r\n"
	tidy = "# registry: shop\n\n[deployment.web] # the web tier\nreplicas: 3 # three\n\n# the main container\n" +
		"containers.name=main.image: app:1\n\n# about the service\n[service.web]\nspec.type: NodePort\n\n" +
		"[configmap.[a.b]]\ndata.k: # empty\n# trailing words\n"
)

func TestFmtPrintsCanonicalLayoutWithComments(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"m.kpatch": messy}, "", "fmt", "m.kpatch")
	if code != 0 || stdout != tidy {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, tidy)
	}
	code, stdout, _ = runCLI(t, nil, messy, "fmt", "-")
	if code != 0 || stdout != tidy {
		t.Errorf("from stdin: exit %d, stdout:\n%s", code, stdout)
	}
}

func TestFmtDiff(t *testing.T) {
	lf := strings.ReplaceAll(messy, "\r\n", "\n")
	code, stdout, stderr := runCLI(t, map[string]string{"m.kpatch": lf, "t.kpatch": tidy}, "", "fmt", "-d", "t.kpatch", "m.kpatch")
	if code != 1 || !strings.HasPrefix(stdout, "--- m.kpatch\n+++ m.kpatch\n@@ ") ||
		!strings.Contains(stdout, "\n-    replicas:   3  # three\n") || !strings.Contains(stdout, "\n+replicas: 3 # three\n") ||
		!strings.Contains(stdout, "\n # the main container\n") {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	if data, _ := os.ReadFile("m.kpatch"); string(data) != lf {
		t.Errorf("-d changed the file")
	}
	if code, stdout, _ := runCLI(t, map[string]string{"t.kpatch": tidy}, "", "fmt", "-d", "t.kpatch"); code != 0 || stdout != "" {
		t.Errorf("a formatted file: exit %d, stdout %q", code, stdout)
	}
}

func TestFmtWrite(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"m.kpatch": messy, "t.kpatch": tidy}, "", "fmt", "-w", "m.kpatch", "t.kpatch")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, name := range []string{"m.kpatch", "t.kpatch"} {
		if data, _ := os.ReadFile(name); string(data) != tidy {
			t.Errorf("%s after -w:\n%s", name, data)
		}
	}
}

func TestFmtRefusesWhatItCannotFormat(t *testing.T) {
	files := map[string]string{"bad.kpatch": "# keep\n[deployment.web]\nno separator\n", "p.yaml": "- target: configmap.c\n  patch: {data.a: b}\n"}
	code, stdout, stderr := runCLI(t, files, "", "fmt", "-w", "bad.kpatch", "p.yaml")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "bad.kpatch:3:1: ") || !strings.Contains(stderr, "p.yaml: fmt formats .kpatch files") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if data, _ := os.ReadFile("bad.kpatch"); string(data) != files["bad.kpatch"] {
		t.Errorf("a file that does not parse was rewritten:\n%s", data)
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
		once, err := formatKpatch(name, src)
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
		if twice, err := formatKpatch(name, once); err != nil || string(twice) != string(once) {
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
		once, err := formatKpatch("f.kpatch", src)
		if errors.Is(err, errLayout) && !printerRoundTrips(file) {
			return
		}
		if err != nil {
			t.Fatalf("a file that parses is refused: %v\n%q", err, src)
		}
		if g, err := kpatch.Parse("f.kpatch", once); err != nil || g.String() != file.String() {
			t.Fatalf("meaning changed (%v):\n%q\n%q", err, src, once)
		}
		if twice, err := formatKpatch("f.kpatch", once); err != nil || string(twice) != string(once) {
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

// TestFmtKeepsSelectorSpelling: a selector stays bare or bracketed as it
// was written; quotes only where the value needs them.
func TestFmtKeepsSelectorSpelling(t *testing.T) {
	src := "[deployment.app.containers.name=main]\nimage: x\n\n" +
		"[deployment.app.containers[name=main].env[name=\"A B\"]]\nvalue: \"1\"\n\n" +
		"[deployment.app.containers[-name=side]]\nname: init\n\n" +
		"[service.app.ports.name=http-web]\nport: 80\n"
	code, stdout, stderr := runCLI(t, map[string]string{"s.kpatch": src}, "", "fmt", "s.kpatch")
	if code != 0 || stdout != src {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, src)
	}
}
