package main

import (
	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// patchInput is where a run's patch files come from, the two sources of
// a registry: files given by path (-p) bound to variables, or, when
// registry is set, registry ConfigMap manifests (--registry).
type patchInput struct {
	files    []string
	vars     *kpatch.Variables
	registry *registryFlags
}

// load compiles the files into a registry, ordered and related as the
// webhook's are; the problems of its files (compile errors, metadata)
// go to found, in the order given. An error is a file that could not be
// read.
func (in *patchInput) load(src filesource.Source, found *lint.Findings) (*registry.Registry, error) {
	reg, err := in.compile(src, found)
	if err != nil {
		return nil, err
	}
	for _, f := range reg.Files() {
		if f.Err != nil {
			found.Add(f.Err)
		}
	}
	return reg, nil
}

// compile is load without reporting the problems of the files: found
// has those of the registry's manifests only.
func (in *patchInput) compile(src filesource.Source, found *lint.Findings) (*registry.Registry, error) {
	if in.registry != nil {
		return in.registry.load(src, found)
	}
	files := make([]registry.SourceFile, 0, len(in.files))
	for _, path := range in.files {
		name, data, err := src.Read(path)
		if err != nil {
			return nil, err
		}
		files = append(files, registry.SourceFile{Name: name, Data: data, Unnamed: name == filesource.StdinLabel})
	}
	return registry.CompileFiles(files, in.vars), nil
}
