package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// variableFlags are the --parameters, --values and --set flags that apply
// and lint share.
type variableFlags struct {
	parameters string
	files      []string
	sets       []string
	strings    []string
}

func (v *variableFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&v.parameters, "parameters", "", "parameter schema `FILE` (parameters.yaml): values are checked and typed against it, defaults filled in, as the registry does")
	fs.StringArrayVar(&v.files, "values", nil, "YAML `FILE` with values: and features: maps (repeatable; later files win)")
	fs.StringArrayVar(&v.sets, "set", nil, "set one variable, `values.NAME=V` or features.NAME=V; V is a YAML scalar (repeatable; wins over --values)")
	fs.StringArrayVar(&v.strings, "set-string", nil, "set one variable to the text V, `values.NAME=V` (repeatable; wins over --set)")
}

// empty reports whether no value is given (a schema alone gives none).
func (v *variableFlags) empty() bool {
	return len(v.files) == 0 && len(v.sets) == 0 && len(v.strings) == 0
}

// given reports whether any of the flags is given.
func (v *variableFlags) given() bool { return !v.empty() || v.parameters != "" }

// load returns the variables the patch files read. Without a schema, it
// reads the values files in order, then applies the --set assignments,
// untyped; an error is a file that could not be read or a bad value.
// With a schema (--parameters), every value is checked and typed against
// it and the defaults are filled in, as the registry does: each problem,
// naming its parameter and where the value came from, goes to found, and
// the variables are nil then.
func (v *variableFlags) load(src fileSource, found *findings) (*kpatch.Variables, error) {
	if v.parameters != "" {
		schema, err := v.schema(src, found)
		if schema == nil {
			return nil, err
		}
		return v.resolve(src, schema, found)
	}
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

// schema reads the --parameters file; its problems go to found, and the
// schema is nil then.
func (v *variableFlags) schema(src fileSource, found *findings) (*parameters.Schema, error) {
	name, data, err := src.read(v.parameters)
	if err != nil {
		return nil, err
	}
	schema, err := parameters.Parse(name, data)
	if err != nil {
		found.error(err)
		return nil, nil
	}
	return schema, nil
}

// resolve reads the values as layers, lowest precedence
// first (the values files in order, then --set, then --set-string), and
// resolves them against the schema.
func (v *variableFlags) resolve(src fileSource, schema *parameters.Schema, found *findings) (*kpatch.Variables, error) {
	layers := make([]parameters.Layer, 0, len(v.files)+1)
	failed := false
	for _, f := range v.files {
		name, data, err := src.read(f)
		if err != nil {
			return nil, err
		}
		layer, err := parameters.ParseValues(name, data)
		if err != nil {
			found.error(err)
			failed = true
		}
		layers = append(layers, layer)
	}
	flags, err := parameters.ParseFlags(v.sets, v.strings)
	if err != nil {
		found.error(err)
		failed = true
	}
	if failed {
		return nil, nil
	}
	vars, err := schema.Resolve(append(layers, flags)...)
	if err != nil {
		found.error(err)
		return nil, nil
	}
	return vars, nil
}
