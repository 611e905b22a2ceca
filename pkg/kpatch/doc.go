// Package kpatch parses, compiles and applies .kpatch patch files to
// Kubernetes objects held as unstructured maps.
//
// A file is parsed once into a syntax tree (Parse), compiled into an
// immutable Patch (Compile), and applied any number of times, concurrently,
// to objects of type map[string]any (Apply). The input object is never
// modified; each file is atomic on each object it matches.
//
// The format and every rule this package implements are described in
// docs/format.md at the root of the repository.
package kpatch
