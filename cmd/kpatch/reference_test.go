package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra/doc"
)

var update = flag.Bool("update", false, "rewrite the CLI reference in docs/cli from the commands")

// referenceDir holds the CLI reference: one Markdown page a command.
const referenceDir = "../../docs/cli"

// TestCLIReference keeps docs/cli equal to the reference generated from
// the commands; go test ./cmd/kpatch -run TestCLIReference -update
// rewrites it.
func TestCLIReference(t *testing.T) {
	generated := t.TempDir()
	root := newRootCommand(streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	if err := doc.GenMarkdownTree(root, generated); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.RemoveAll(referenceDir); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(referenceDir, os.DirFS(generated)); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, got := pages(t, generated), pages(t, referenceDir)
	for name, page := range want {
		switch current, ok := got[name]; {
		case !ok:
			t.Errorf("docs/cli/%s is missing", name)
		case current != page:
			t.Errorf("docs/cli/%s is out of date", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/cli/%s documents no command", name)
		}
	}
	if t.Failed() {
		t.Log("regenerate with: go test ./cmd/kpatch -run TestCLIReference -update")
	}
}

// pages reads the Markdown files of a directory by name.
func pages(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := make(map[string]string)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}
