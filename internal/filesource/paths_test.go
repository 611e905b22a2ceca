package filesource

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExpandTakesWhatADirectoryGives(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.kpatch", "b.yaml", "values.yaml", "parameters.yaml", "notes.txt", "sub/c.kpatch"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := Source{Dir: dir}
	got, err := src.Expand([]string{".", "notes.txt", StdinName}, Patches, false)
	want := []string{"a.kpatch", "b.yaml", "notes.txt", StdinName}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v (values.yaml and parameters.yaml are not patch files)", got, err, want)
	}
	got, _ = src.Expand([]string{"."}, Patches, true)
	if !slices.Contains(got, filepath.Join("sub", "c.kpatch")) {
		t.Errorf("recursive: got %v", got)
	}
	if _, err := src.Expand([]string{"sub"}, Manifests, false); err == nil || !strings.Contains(err.Error(), "sub: no file ending in .yaml, .yml, .json in the directory (-R reads its subdirectories)") {
		t.Errorf("a directory that gives nothing: %v", err)
	}
	if _, err := src.Expand([]string{"missing"}, Manifests, false); err == nil || err.Error() != "missing: no such file or directory" {
		t.Errorf("a missing file: %v", err)
	}
}

func TestReadNamesStandardInput(t *testing.T) {
	name, data, err := FromStdin(strings.NewReader("x")).Read(StdinName)
	if name != StdinLabel || string(data) != "x" || err != nil {
		t.Errorf("got %q, %q, %v", name, data, err)
	}
}

func TestStdinOnce(t *testing.T) {
	if err := StdinOnce([]string{"a", StdinName}, []string{"b"}); err != nil {
		t.Error(err)
	}
	if err := StdinOnce([]string{StdinName}, []string{StdinName}); !errors.Is(err, ErrStdinTwice) {
		t.Errorf("got %v", err)
	}
}
