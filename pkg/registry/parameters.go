package registry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// ParametersKey is the ConfigMap key that holds the parameter schema of
// the ConfigMap's patch files. Without it, values.yaml is untyped.
const ParametersKey = "parameters.yaml"

// contextMarker starts the values context of a ConfigMap with a
// parameters.yaml (valuesContext).
const contextMarker = "#kpatch:parameters.yaml "

// valuesContext is what a ConfigMap gives its files besides their own
// text, as one string: its values.yaml alone without a parameters.yaml
// (what the last good store held before schemas), else a marker line with
// the schema's length, the schema, then values.yaml. A values.yaml that
// starts with the marker is written with the length "-" (no schema), so
// that every context reads back as it was written.
func valuesContext(cm *corev1.ConfigMap) string {
	values := cm.Data[ValuesKey]
	schema, ok := cm.Data[ParametersKey]
	switch {
	case ok:
		return contextMarker + strconv.Itoa(len(schema)) + "\n" + schema + values
	case strings.HasPrefix(values, contextMarker):
		return contextMarker + "-\n" + values
	}
	return values
}

// splitContext reads a values context back: the schema (hasSchema false
// when the ConfigMap has no parameters.yaml) and values.yaml.
func splitContext(content string) (schema string, hasSchema bool, values string) {
	rest, ok := strings.CutPrefix(content, contextMarker)
	if !ok {
		return "", false, content
	}
	n, rest, ok := strings.Cut(rest, "\n")
	if !ok {
		return "", false, content
	}
	if n == "-" {
		return "", false, rest
	}
	size, err := strconv.Atoi(n)
	if err != nil || size < 0 || size > len(rest) {
		return "", false, content
	}
	return rest[:size], true, rest[size:]
}

// parsedValues is what a ConfigMap's parameters.yaml and values.yaml give
// its files, parsed once per content.
type parsedValues struct {
	// vars is what files read without any annotation: values.yaml
	// resolved against the schema, defaults filled in.
	vars *kpatch.Variables
	err  error
	// schema is nil without a parameters.yaml.
	schema *parameters.Schema
	// base is values.yaml assigned against the schema: annotations are
	// resolved on top of it for each object.
	base *parameters.Values
	// missing are the parameters without a value in the ConfigMap (a
	// required one that values.yaml leaves out, or a default that reads
	// one): a Namespace's annotation may give it; the files that read one
	// are bound for each object.
	missing map[string]bool
	// given says that vars are given with the files (CompileFiles), not
	// read from a ConfigMap: the files are bound to them as they are,
	// and checked as they apply; built-ins in enabled: are not read
	// from the object.
	given bool
}

// parseValues parses the values context of a ConfigMap (valuesContext).
func parseValues(configMap, content string) *parsedValues {
	schemaSrc, hasSchema, values := splitContext(content)
	if !hasSchema {
		return parseUntyped(configMap, values)
	}
	pv := &parsedValues{}
	if pv.schema, pv.err = parameters.Parse(configMap+"/"+ParametersKey, []byte(schemaSrc)); pv.err != nil {
		return pv
	}
	layer, err := parameters.ParseValues(configMap+"/"+ValuesKey, []byte(values))
	if err != nil {
		pv.err = err
		return pv
	}
	if pv.base, pv.err = pv.schema.Assign(layer); pv.err != nil {
		return pv
	}
	vars, err := pv.base.Resolve()
	pv.vars, pv.err = vars, missingOnly(err, pv)
	return pv
}

// parseUntyped parses a values.yaml without a schema, as before schemas.
func parseUntyped(configMap, content string) *parsedValues {
	if content == "" {
		return &parsedValues{vars: &kpatch.Variables{}}
	}
	vars, err := kpatch.LoadVariables([]byte(content))
	if err != nil {
		return &parsedValues{err: fmt.Errorf("%s/%s: %w", configMap, ValuesKey, err)}
	}
	return &parsedValues{vars: vars}
}

// missingOnly records in pv the parameters that err finds without a
// value, and returns the errors of another kind: those refuse the files.
func missingOnly(err error, pv *parsedValues) error {
	if err == nil {
		return nil
	}
	var rest kpatch.ErrorList
	for _, e := range err.(kpatch.ErrorList) {
		var pe *parameters.Error
		if errors.As(e, &pe) && (errors.Is(pe, parameters.ErrRequired) || errors.Is(pe, parameters.ErrNoValue)) {
			if pv.missing == nil {
				pv.missing = map[string]bool{}
			}
			pv.missing[pe.Param] = true
			continue
		}
		rest = append(rest, e)
	}
	return rest.Err()
}

// bind binds a compiled file to the values of its ConfigMap. With a
// schema, a variable that reads no declared parameter is an error; a file
// that reads a parameter without a value in the ConfigMap (missing) is
// bound for each object instead, and its values are checked then. The
// fileValues is nil for a file that reads neither a schema's parameters
// nor built-ins: it is the same on every object.
func (pv *parsedValues) bind(p *kpatch.Patch) (*kpatch.Patch, *fileValues, error) {
	refs := p.File().References()
	if pv.given {
		bound := p.WithVariables(pv.vars)
		fv := newFileValues(pv, refs, nil)
		if fv != nil {
			fv.patch = bound
		}
		return bound, fv, nil
	}
	fv := newFileValues(pv, refs, conditionParams(p, pv.schema))
	if pv.schema != nil {
		if err := undeclared(pv.schema, refs); err != nil {
			return nil, nil, err
		}
	}
	if fv != nil && fv.incomplete {
		fv.patch = p.WithVariables(pv.vars)
		return fv.patch, fv, nil
	}
	bound, err := p.Bind(pv.vars)
	if err != nil {
		return nil, nil, err
	}
	if fv != nil {
		fv.patch = bound
	}
	return bound, fv, nil
}

// undeclared reports the variables of a file that read no parameter of
// the schema, each at its place.
func undeclared(schema *parameters.Schema, refs []kpatch.Reference) error {
	var errs kpatch.ErrorList
	for _, r := range refs {
		if r.Var.IsBuiltin() {
			continue
		}
		if _, ok := schema.ForRef(r.Var.String()); !ok {
			errs = append(errs, &kpatch.ParseError{Pos: r.Pos, Err: kpatch.ErrVariable,
				Msg: fmt.Sprintf("%s reads no parameter declared in %s", r.Var, ParametersKey)})
		}
	}
	return errs.Err()
}
