package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoticesAreCurrent: THIRD_PARTY_NOTICES is what `make notices`
// writes for the dependencies of today's go.mod.
func TestNoticesAreCurrent(t *testing.T) {
	if err := run([]string{"-root", "../..", "-check", "../../THIRD_PARTY_NOTICES"}, nil); err != nil {
		t.Fatal(err)
	}
}

// modCacheFile returns a file of a module that the kpatch module depends
// on, from the module cache.
func modCacheFile(t *testing.T, rel string) []byte {
	t.Helper()
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(cache)), rel))
	if err != nil {
		t.Skipf("not in the module cache (go mod download in the kpatch module): %v", err)
	}
	return b
}

// TestGenerate builds the notices of a module whose one dependency is a
// local module (a replace), with the license files the cases give it.
func TestGenerate(t *testing.T) {
	mit := modCacheFile(t, "github.com/beorn7/perks@v1.0.1/LICENSE")
	ccBySA := modCacheFile(t, "github.com/opencontainers/go-digest@v1.0.0/LICENSE.docs")
	for _, tc := range []struct {
		name    string
		files   map[string][]byte
		wantErr string
		want    []string
	}{{
		name:    "no license file",
		files:   map[string][]byte{"README": []byte("hello\n")},
		wantErr: "example.com/dep@(replaced by ../dep) (",
	}, {
		name:    "only the license of the documentation",
		files:   map[string][]byte{"LICENSE.docs": ccBySA},
		wantErr: "no license file",
	}, {
		name:    "a license that is not allowed",
		files:   map[string][]byte{"LICENSE": ccBySA},
		wantErr: "license CC-BY-SA-4.0 is not among the allowed ones",
	}, {
		name:    "a text that is no license",
		files:   map[string][]byte{"LICENSE": []byte("All rights reserved.\n")},
		wantErr: "no license recognised",
	}, {
		name:  "MIT and a notice",
		files: map[string][]byte{"LICENSE": mit, "NOTICE": []byte("dep\nCopyright 2026 Example\n"), "LICENSE.docs": ccBySA},
		want: []string{
			"Go standard library                   BSD-3-Clause\nexample.com/dep (replaced by ../dep)  MIT\n",
			"example.com/dep@(replaced by ../dep): LICENSE\n---",
			"example.com/dep@(replaced by ../dep): NOTICE\n---",
			"\ndep\nCopyright 2026 Example\n",
			"Permission is hereby granted",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(name string, data []byte) {
				t.Helper()
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("app/go.mod", []byte("module example.com/app\n\ngo 1.26\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n"))
			write("app/main.go", []byte("package main\n\nimport \"example.com/dep\"\n\nfunc main() { dep.F() }\n"))
			write("dep/go.mod", []byte("module example.com/dep\n\ngo 1.26\n"))
			write("dep/dep.go", []byte("package dep\n\n// F does nothing.\nfunc F() {}\n"))
			for name, data := range tc.files {
				write("dep/"+name, data)
			}
			write("goroot/LICENSE", modCacheFile(t, "golang.org/x/text@v0.42.0/LICENSE"))
			got, err := Generate(filepath.Join(root, "app"), filepath.Join(root, "goroot"), []string{"."}, []string{"linux/amd64", "darwin/arm64"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("the notices lack %q:\n%s", w, got)
				}
			}
			if strings.Contains(string(got), "Attribution-ShareAlike") {
				t.Error("the notices hold the license of the documentation")
			}
		})
	}
}

func TestNormalizeMergesCopies(t *testing.T) {
	a := normalize("\nCopyright 2026\r\nline two   \n\n\n")
	b := normalize("Copyright 2026\nline two\n")
	if a != b || a != "Copyright 2026\nline two\n" {
		t.Errorf("%q and %q", a, b)
	}
}
