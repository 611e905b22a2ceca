package main

import (
	"errors"
	"path/filepath"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// relations applies the files' metadata (docs/parameters.md, "File
// metadata"): it returns the files in the order they apply (after the
// files they require), the disabled ones marked (patchFile.disabled;
// patchFiles.enabled leaves them out), and the relations of the files. A
// problem of the metadata (a requirement missing or disabled, a cycle,
// two conflicting files enabled, a variable of enabled: without a value)
// is an error of the run, as a compile error is. With evaluate false
// (lint without values), a file whose enabled: reads variables is neither
// enabled nor disabled: its relations are not checked.
//
// broken names the files that did not compile (reported already): they
// do not apply, and the files that require them fail.
func (fs patchFiles) relations(found *lint.Findings, evaluate bool, broken ...string) (patchFiles, *kpatch.Relations) {
	members := make([]kpatch.Member, len(fs), len(fs)+len(broken))
	states := make([]kpatch.State, len(fs), len(fs)+len(broken))
	for i, f := range fs {
		members[i] = f.member()
		states[i] = f.state(found, evaluate)
	}
	for _, name := range broken {
		members = append(members, patchFile{failed: name}.member())
		states = append(states, kpatch.Enabled)
	}
	rel := kpatch.Relate(members)
	for i := len(fs); i < len(members); i++ {
		rel.Errs[i] = errDoesNotCompile
	}
	errs := rel.Check(states)
	out := make(patchFiles, 0, len(fs))
	for _, i := range rel.Order {
		switch {
		case i >= len(fs):
		case errs[i] != nil:
			found.Add(errs[i])
		case states[i] == kpatch.Disabled:
			f := fs[i]
			f.disabled = f.patch.DisabledReason()
			out = append(out, f)
		default:
			out = append(out, fs[i])
		}
	}
	return out, rel
}

// errDoesNotCompile marks the files that relate is given by name alone.
var errDoesNotCompile = errors.New("does not compile")

// member is the file as metadata names it: its name without extension,
// in the group of its directory. Standard input has no name.
func (f patchFile) member() kpatch.Member {
	name := f.name()
	m := kpatch.Member{File: name}
	if name != filesource.StdinLabel {
		m.Group = filepath.Base(filepath.Dir(name))
		m.Name = kpatch.TrimPatchExtension(filepath.Base(name))
	}
	if f.patch != nil {
		m.Meta = f.patch.Metadata()
	}
	return m
}

// state evaluates the file's enabled: with the run's variables. A
// variable without a value is an error; the file is then left out.
func (f patchFile) state(found *lint.Findings, evaluate bool) kpatch.State {
	if f.patch == nil {
		return kpatch.Enabled
	}
	if e := f.patch.Metadata().Enabled; e != nil && e.Value.IsTemplate() && !evaluate {
		return kpatch.Unknown
	}
	on, err := f.patch.Enabled()
	switch {
	case err != nil:
		found.Add(err)
		return kpatch.Disabled
	case !on:
		return kpatch.Disabled
	}
	return kpatch.Enabled
}
