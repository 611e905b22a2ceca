package varflags

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
)

func dir(t *testing.T, files map[string]string) filesource.Source {
	t.Helper()
	d := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filesource.Source{Dir: d}
}

func TestLoadWithoutSchemaLayersTheFlags(t *testing.T) {
	src := dir(t, map[string]string{
		"a.yaml": "values: {n: 1, s: a, keep: k}\n",
		"b.yaml": "values: {s: b}\nfeatures: {f: true}\n",
	})
	v := &Flags{Files: []string{"a.yaml", "b.yaml"}, Sets: []string{"values.n=2", "values.s=set"}, Strings: []string{"values.s=010"}}
	vars, err := v.Load(src, &lint.Findings{})
	if err != nil {
		t.Fatal(err)
	}
	if vars.Values["n"] != int64(2) && vars.Values["n"] != 2.0 || vars.Values["s"] != "010" || vars.Values["keep"] != "k" || vars.Features["f"] != true {
		t.Errorf("values %v, features %v", vars.Values, vars.Features)
	}
}

func TestLoadWithSchemaTypesAndReports(t *testing.T) {
	src := dir(t, map[string]string{
		"parameters.yaml": "parameters:\n- {name: replicas, type: integer, default: 2}\n- {name: image, type: string, required: true}\n",
		"values.yaml":     "values: {replicas: three}\n",
	})
	var found lint.Findings
	v := &Flags{Parameters: "parameters.yaml", Files: []string{"values.yaml"}}
	vars, schema, err := v.LoadWithSchema(src, &found)
	if err != nil || schema == nil || vars != nil || !found.Failed() {
		t.Fatalf("vars %v, schema %v, err %v, findings %v", vars, schema, err, found.List)
	}
	var b strings.Builder
	found.Print(&b)
	if !strings.Contains(b.String(), "replicas") || !strings.Contains(b.String(), "image") {
		t.Errorf("findings:\n%s", b.String())
	}
	vars, schema, err = (&Flags{Parameters: "parameters.yaml"}).LoadWithSchema(src, &lint.Findings{})
	if err != nil || schema == nil || vars != nil {
		t.Errorf("a schema without values checks no references: vars %v, err %v", vars, err)
	}
}
