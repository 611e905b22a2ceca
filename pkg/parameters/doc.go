// Package parameters is the typed parameter schema of a set of patch
// files: the parameters.yaml of a registry ConfigMap or of the CLI.
//
// Parse compiles a parameters.yaml into an immutable Schema. Values come
// in Layers, lowest precedence first: a values file (ParseValues), --set
// and --set-string flags (ParseSet, ParseSetString), a Namespace's
// annotations (NamespaceAnnotations) and an object's annotations
// (ObjectAnnotations). Schema.Resolve validates every value against its
// declaration, converts text to the declared type, fills in defaults (which
// may use other parameters) and returns the variables.Variables the engine
// reads: boolean parameters are features (${features.NAME}), every other
// type a value (${values.NAME}).
//
// A nil *Schema is no schema: its Resolve merges the layers into an untyped
// bag of values and features, the behaviour of patch files without a
// parameters.yaml.
//
// Every error is an *Error naming the parameter and where the value came
// from, collected into a fileerr.List; test causes with errors.Is
// against the sentinels of this package.
package parameters
