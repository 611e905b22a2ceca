package varflags

import (
	"fmt"

	"github.com/spf13/pflag"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// Flags are the --parameters, --values and --set flags that apply
// and lint share.
type Flags struct {
	Parameters string
	Files      []string
	Sets       []string
	Strings    []string
}

func (v *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&v.Parameters, "parameters", "", "parameter schema `FILE` (parameters.yaml): values are checked and typed against it, defaults filled in, as the registry does")
	fs.StringArrayVar(&v.Files, "values", nil, "YAML `FILE` with values: and features: maps (repeatable; later files win)")
	fs.StringArrayVar(&v.Sets, "set", nil, "set one variable, `values.NAME=V` or features.NAME=V; V is a YAML scalar (repeatable; wins over --values)")
	fs.StringArrayVar(&v.Strings, "set-string", nil, "set one variable to the text V, `values.NAME=V` (repeatable; wins over --set)")
}

// Empty reports whether no value is given (a schema alone gives none).
func (v *Flags) Empty() bool {
	return len(v.Files) == 0 && len(v.Sets) == 0 && len(v.Strings) == 0
}

// Given reports whether any of the flags is given.
func (v *Flags) Given() bool { return !v.Empty() || v.Parameters != "" }

// Load returns the variables the patch files read. Without a schema, it
// reads the values files in order, then applies the --set assignments,
// untyped; an error is a file that could not be read or a bad value.
// With a schema (--parameters), every value is checked and typed against
// it and the defaults are filled in, as the registry does: each problem,
// naming its parameter and where the value came from, goes to found, and
// the variables are nil then.
func (v *Flags) Load(src filesource.Source, found *lint.Findings) (*kpatch.Variables, error) {
	if v.Parameters != "" {
		schema, err := v.Schema(src, found)
		if schema == nil {
			return nil, err
		}
		return v.Resolve(src, schema, found)
	}
	vars := &kpatch.Variables{}
	for _, f := range v.Files {
		_, data, err := src.Read(f)
		if err != nil {
			return nil, err
		}
		fileVars, err := kpatch.LoadVariables(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		vars = vars.Merge(fileVars)
	}
	for _, s := range v.Sets {
		if err := vars.Set(s); err != nil {
			return nil, fmt.Errorf("--set %w", err)
		}
	}
	for _, s := range v.Strings {
		if err := vars.SetString(s); err != nil {
			return nil, fmt.Errorf("--set-string %w", err)
		}
	}
	return vars, nil
}

// Schema reads the --parameters file; its problems go to found, and the
// schema is nil then.
func (v *Flags) Schema(src filesource.Source, found *lint.Findings) (*parameters.Schema, error) {
	name, data, err := src.Read(v.Parameters)
	if err != nil {
		return nil, err
	}
	schema, err := parameters.Parse(name, data)
	if err != nil {
		found.Add(err)
		return nil, nil
	}
	return schema, nil
}

// Resolve reads the values as layers, lowest precedence
// first (the values files in order, then --set, then --set-string), and
// resolves them against the schema.
func (v *Flags) Resolve(src filesource.Source, schema *parameters.Schema, found *lint.Findings) (*kpatch.Variables, error) {
	layers := make([]parameters.Layer, 0, len(v.Files)+1)
	failed := false
	for _, f := range v.Files {
		name, data, err := src.Read(f)
		if err != nil {
			return nil, err
		}
		layer, err := parameters.ParseValues(name, data)
		if err != nil {
			found.Add(err)
			failed = true
		}
		layers = append(layers, layer)
	}
	flags, err := parameters.ParseFlags(v.Sets, v.Strings)
	if err != nil {
		found.Add(err)
		failed = true
	}
	if failed {
		return nil, nil
	}
	vars, err := schema.Resolve(append(layers, flags)...)
	if err != nil {
		found.Add(err)
		return nil, nil
	}
	return vars, nil
}

// LoadWithSchema reads the schema, if any, and the values, if any, as
// lint checks the files against them: without values, references are not
// checked (the variables are nil).
func (v *Flags) LoadWithSchema(src filesource.Source, found *lint.Findings) (*kpatch.Variables, *parameters.Schema, error) {
	if v.Parameters == "" {
		if v.Empty() {
			return nil, nil, nil
		}
		vars, err := v.Load(src, found)
		return vars, nil, err
	}
	schema, err := v.Schema(src, found)
	if schema == nil || v.Empty() {
		return nil, schema, err
	}
	vars, err := v.Resolve(src, schema, found)
	return vars, schema, err
}
