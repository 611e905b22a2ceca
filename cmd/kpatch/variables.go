package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// variableFlags are the --values and --set flags that apply and lint share.
type variableFlags struct {
	files   []string
	sets    []string
	strings []string
}

func (v *variableFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&v.files, "values", nil, "YAML `FILE` with values: and features: maps (repeatable; later files win)")
	fs.StringArrayVar(&v.sets, "set", nil, "set one variable, `values.NAME=V` or features.NAME=V; V is a YAML scalar (repeatable; wins over --values)")
	fs.StringArrayVar(&v.strings, "set-string", nil, "set one variable to the text V, `values.NAME=V` (repeatable; wins over --set)")
}

func (v *variableFlags) empty() bool {
	return len(v.files) == 0 && len(v.sets) == 0 && len(v.strings) == 0
}

// load reads the files in order, then applies the --set assignments.
func (v *variableFlags) load(src fileSource) (*kpatch.Variables, error) {
	vars := &kpatch.Variables{}
	for _, f := range v.files {
		_, data, err := src.read(f)
		if err != nil {
			return nil, err
		}
		fileVars, err := kpatch.LoadVariables(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		vars = vars.Merge(fileVars)
	}
	for _, s := range v.sets {
		if err := vars.Set(s); err != nil {
			return nil, fmt.Errorf("--set %w", err)
		}
	}
	for _, s := range v.strings {
		if err := vars.SetString(s); err != nil {
			return nil, fmt.Errorf("--set-string %w", err)
		}
	}
	return vars, nil
}

// loadPatches parses and compiles every file ("-" is standard input, a
// .kpatch file) and binds it to vars. Every problem of a file goes to
// found; the files that compiled are returned. An error is a file that
// could not be read.
func loadPatches(files []string, src fileSource, vars *kpatch.Variables, found *findings) ([]*kpatch.Patch, error) {
	var patches []*kpatch.Patch
	for _, path := range files {
		name, data, err := src.read(path)
		if err != nil {
			return nil, err
		}
		p, err := kpatch.ParseAndCompile(name, data)
		if err != nil {
			found.error(err)
			continue
		}
		patches = append(patches, p.WithVariables(vars))
	}
	return patches, nil
}
