package kustomize

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/replacement"
	kyamlutils "sigs.k8s.io/kustomize/kyaml/utils"
)

// fieldPathCorpus is pkg/replacement's corpus of field paths, the seeds of
// FuzzSplitFieldPath.
const fieldPathCorpus = "../../pkg/replacement/testdata/fuzz/FuzzFieldPath"

// FuzzSplitFieldPath holds pkg/replacement's SplitFieldPath to kustomize's
// own splitter, from the seeds and corpus of pkg/replacement's
// FuzzFieldPath.
func FuzzSplitFieldPath(f *testing.F) {
	for _, seed := range []string{
		"metadata.name",
		"spec.template.spec.containers.[name=nginx].image",
		"spec.template.spec.containers.*.env.[name=TARGET_ENV].value",
		`metadata.annotations.config\.kubernetes\.io/local-config`,
		"metadata.annotations.[config.kubernetes.io/local-config]",
		"data.[config.json].server.host",
		"a.[b.c=d.e].f",
		"[unclosed.x",
		"a..b",
		"",
	} {
		f.Add(seed)
	}
	for _, seed := range corpusStrings(f, fieldPathCorpus) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if got, want := replacement.SplitFieldPath(path), kyamlutils.SmarterPathSplitter(path, "."); !reflect.DeepEqual(got, want) {
			t.Fatalf("SplitFieldPath(%q) = %q, kustomize splits %q", path, got, want)
		}
	})
}

// corpusStrings reads the inputs of a corpus directory of a fuzz target
// that takes one string (files of `go test fuzz v1` then `string("…")`).
func corpusStrings(f *testing.F, dir string) []string {
	files, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	var out []string
	for _, file := range files {
		path := filepath.Join(dir, file.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		header, value, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		lit, ok := strings.CutPrefix(value, "string(")
		lit, ok2 := strings.CutSuffix(lit, ")")
		s, err := strconv.Unquote(lit)
		if header != "go test fuzz v1" || !ok || !ok2 || err != nil {
			f.Fatalf("%s: not a corpus file of one string", path)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		f.Fatalf("%s: no corpus", dir)
	}
	return out
}
