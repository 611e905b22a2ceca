// Package replacement implements kustomize's replacements over decoded
// objects (map[string]any): copying a field of one object into fields of
// others, in kustomize's own file format and with its semantics.
//
// A replacements file is a YAML map whose only key, replacements, holds
// the list a kustomization.yaml has under replacements. Parse compiles it
// once into an immutable *Replacements. Apply runs it over a stream of
// objects, as kustomize build does (the CLI); ApplyObject runs it on one
// object with the sources a caller gives (the webhook).
package replacement
