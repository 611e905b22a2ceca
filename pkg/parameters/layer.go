package parameters

import (
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/fileerr"
	"kpatch.dev/kpatch/pkg/variables"
)

// AnnotationPrefix starts the annotation keys that set parameters:
// values.kpatch.dev/NAME on a Namespace, or on an object for parameters
// declared fromObject: true.
const AnnotationPrefix = "values.kpatch.dev/"

// Assignment is one value of a Layer.
type Assignment struct {
	// Scope is "values" or "features"; empty when the parameter's type
	// decides (annotations name a parameter without its scope).
	Scope string
	// Path is the parameter's name, then keys inside an object parameter.
	Path []string
	// Value is the value: string, int64, float64, bool, nil, []any or
	// map[string]any (other Go numbers are converted).
	Value any
	// Text marks a Value that is a string to convert to the parameter's
	// type (annotations, --set-string): "3" is 3 for an integer.
	Text bool
	// Texts are the texts the scalars of a typed Value were written as
	// (variables.TextsOf: 1.0 was "1.0"), so that a string field receives
	// them as written; nil when unknown.
	Texts any
	// Source is where the value came from, for errors.
	Source Source
}

// Layer is one source of values. Layers are given lowest precedence
// first; a parameter's default is below every layer.
type Layer struct {
	Assignments []Assignment
	// SkipUndeclared skips names that the schema does not declare instead
	// of rejecting them: annotations of a Namespace are shared by every
	// registry ConfigMap, each with its own schema.
	SkipUndeclared bool
	// FromObjectOnly skips parameters not declared fromObject: true: an
	// object's own annotations may set only those.
	FromObjectOnly bool
}

// ParseValues reads a values file: a map with the maps values: (every
// parameter that is not a boolean) and features: (booleans). name is the
// file's name in sources; each value's source is its key's position.
// Scalars are read as Kubernetes reads YAML (yes and no are booleans).
func ParseValues(name string, src []byte) (Layer, error) {
	f := &valuesFile{name: name}
	root, yerr := parseYAML(name, src)
	switch {
	case yerr != nil:
		f.errs.add(yerr)
	case root == nil:
	case deref(root).Kind != yaml.MappingNode:
		f.errs.addf(f.at(root), "", ErrSyntax, "a values file is a map with the maps values and features")
	default:
		root = deref(root)
		seen := map[string]bool{}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k := root.Content[i]
			switch scope := k.Value; {
			case scope != "values" && scope != "features":
				f.errs.addf(f.at(k), "", ErrSyntax, "unknown key %s; expected the maps values and features", quoteText(scope))
			case seen[scope]:
				f.errs.addf(f.at(k), "", ErrDuplicate, "key %s is given twice", scope)
			default:
				seen[scope] = true
				f.scope(scope, deref(root.Content[i+1]))
			}
		}
	}
	if len(f.errs.List) > 0 {
		sortBySource(f.errs.List)
		return Layer{}, f.errs.Err()
	}
	return f.layer, nil
}

// valuesFile collects the assignments and errors of a values file.
type valuesFile struct {
	name   string
	layer  Layer
	errs   errorList
	reader valueReader
}

func (f *valuesFile) at(n *yaml.Node) Source {
	return Source{Name: f.name, Line: n.Line, Column: n.Column}
}

// scope reads the map under values: or features:, one assignment a key.
func (f *valuesFile) scope(scope string, m *yaml.Node) {
	if m.ShortTag() == "!!null" {
		return
	}
	if m.Kind != yaml.MappingNode {
		f.errs.addf(f.at(m), "", ErrSyntax, "%s is a map of names to values", scope)
		return
	}
	seen := map[string]bool{}
	for j := 0; j+1 < len(m.Content); j += 2 {
		key, err := mapKey(m.Content[j])
		if err == nil && seen[key] {
			err = &nodeError{m.Content[j], problemf(ErrDuplicate, "given twice")}
		}
		var val any
		if err == nil {
			val, err = f.reader.value(m.Content[j+1])
		}
		if err != nil {
			f.errs.add(err.at(f.at(err.node), key))
			continue
		}
		seen[key] = true
		f.layer.Assignments = append(f.layer.Assignments, Assignment{Scope: scope, Path: []string{key}, Value: val, Texts: variables.TextsOf(m.Content[j+1]), Source: f.at(m.Content[j])})
	}
}

// ParseSet reads a --set flag, "values.NAME=V" or "features.NAME=V", with
// V a YAML scalar as patch files read it. NAME may be dotted to reach into
// an object parameter. The source is "--set values.NAME".
func ParseSet(assignment string) (Assignment, error) {
	var scratch variables.Variables
	if err := scratch.Set(assignment); err != nil {
		return Assignment{}, &Error{Source: Source{Name: "--set"}, Err: ErrSyntax, Msg: err.Error()}
	}
	name, _, _ := strings.Cut(assignment, "=")
	ref, p := parseReference(name) // Set accepted it: the same rules
	if p != nil {
		return Assignment{}, &Error{Source: Source{Name: "--set"}, Err: ErrSyntax, Msg: quoteText(assignment) + ": " + p.msg}
	}
	m := scratch.Values
	if ref.Scope == "features" {
		m = scratch.Features
	}
	var val any = m
	for _, k := range ref.Path {
		val = val.(map[string]any)[k]
	}
	return Assignment{Scope: ref.Scope, Path: ref.Path, Value: val, Texts: scratch.TextsAt(ref.Scope, ref.Path), Source: Source{Name: "--set " + name}}, nil
}

// ParseSetString reads a --set-string flag, "values.NAME=V" or
// "features.NAME=V", with V text that is converted to the parameter's
// type. The source is "--set-string values.NAME".
func ParseSetString(assignment string) (Assignment, error) {
	src := Source{Name: "--set-string"}
	name, text, ok := strings.Cut(assignment, "=")
	if !ok {
		return Assignment{}, &Error{Source: src, Err: ErrSyntax, Msg: quoteText(assignment) + ": expected values.NAME=VALUE or features.NAME=VALUE"}
	}
	ref, p := parseReference(name)
	if p != nil {
		return Assignment{}, &Error{Source: src, Err: ErrSyntax, Msg: quoteText(assignment) + ": " + p.msg}
	}
	return Assignment{Scope: ref.Scope, Path: ref.Path, Value: text, Text: true, Source: Source{Name: "--set-string " + name}}, nil
}

// ParseFlags reads the --set flags, then the --set-string flags, which win
// over them, into one layer.
func ParseFlags(sets, setStrings []string) (Layer, error) {
	var (
		layer Layer
		errs  fileerr.List
	)
	for _, s := range sets {
		a, err := ParseSet(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		layer.Assignments = append(layer.Assignments, a)
	}
	for _, s := range setStrings {
		a, err := ParseSetString(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		layer.Assignments = append(layer.Assignments, a)
	}
	return layer, errs.Err()
}

// NamespaceAnnotations is the layer of a Namespace's annotations
// values.kpatch.dev/NAME. Names the schema does not declare are skipped
// (another registry ConfigMap may declare them); a value is text,
// converted to the parameter's type. The source of each value is
// "namespace NAMESPACE annotation values.kpatch.dev/NAME".
func NamespaceAnnotations(namespace string, annotations map[string]string) Layer {
	l := annotationLayer("namespace "+namespace, annotations)
	l.SkipUndeclared = true
	return l
}

// ObjectAnnotations is the layer of an object's own annotations
// values.kpatch.dev/NAME: only parameters declared fromObject: true are
// read, the others are skipped. object describes the object in sources,
// such as "Deployment team-a/web".
func ObjectAnnotations(object string, annotations map[string]string) Layer {
	l := annotationLayer(object, annotations)
	l.SkipUndeclared, l.FromObjectOnly = true, true
	return l
}

func annotationLayer(owner string, annotations map[string]string) Layer {
	var l Layer
	for _, key := range slices.Sorted(maps.Keys(annotations)) {
		name, ok := strings.CutPrefix(key, AnnotationPrefix)
		if !ok || name == "" {
			continue
		}
		l.Assignments = append(l.Assignments, Assignment{
			Path:   strings.Split(name, "."),
			Value:  annotations[key],
			Text:   true,
			Source: Source{Name: owner + " annotation " + key},
		})
	}
	return l
}
