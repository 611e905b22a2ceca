package main

import (
	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// patchInput is where a run's patch files come from: files bound to
// variables, or, when registry is set, registry ConfigMap manifests.
type patchInput struct {
	files    []string
	vars     *kpatch.Variables
	registry *registryFlags
}

// load returns the files that compiled and are enabled, in the order
// they apply (patchFiles.ordered, then requires: metadata moves a file
// after those it requires); their problems go to found. An error is a
// file that could not be read.
func (in *patchInput) load(src filesource.Source, found *lint.Findings) (patchFiles, error) {
	files, err := in.loadAll(src, found)
	return files.enabled(), err
}

// loadAll is load, except that the disabled files stay in the order,
// marked (patchFile.disabled): what explain lists.
func (in *patchInput) loadAll(src filesource.Source, found *lint.Findings) (patchFiles, error) {
	if in.registry != nil {
		return in.registry.load(src, found)
	}
	files, err := loadPatches(in.files, src, in.vars, found)
	files = files.ordered()
	if err != nil || found.Failed() {
		return files, err // nothing applies: the metadata need not be related
	}
	out, _ := files.relations(found, true)
	return out, nil
}

// compiled is the registry the run's files were loaded from, as the
// webhook's compiler built it; nil for patch files.
func (in *patchInput) compiled() *registry.Registry {
	if in.registry == nil {
		return nil
	}
	return in.registry.built
}
