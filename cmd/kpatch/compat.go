package main

// The types and functions that the apply loop of the commands
// (patchfiles.go, registry.go, explaintrace.go) builds on, as thin
// wrappers of the packages that hold them.

import (
	"io"

	"github.com/spf13/pflag"

	"kpatch.dev/kpatch/internal/explain"
	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/varflags"
	"kpatch.dev/kpatch/pkg/diff"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// findings are the problems one run of a command found (lint.Findings).
type findings struct{ lint.Findings }

func (f *findings) error(err error)   { f.Add(err) }
func (f *findings) warn(err error)    { f.Warn(err) }
func (f *findings) failed() bool      { return f.Failed() }
func (f *findings) print(w io.Writer) { f.Print(w) }

// fileSource reads the files that commands name (filesource.Source).
type fileSource struct{ filesource.Source }

// stdinSource reads paths relative to the working directory.
func stdinSource(stdin io.Reader) fileSource { return fileSource{filesource.FromStdin(stdin)} }

func (src fileSource) read(name string) (string, []byte, error) { return src.Read(name) }

// manifests are the input streams of a command (manifest.Set), with the
// documents that hold an object.
type manifests struct {
	*manifest.Set
	docs []*document
}

func (m *manifests) names() []string { return m.Names() }

// document is one object of an input stream (manifest.Document).
type document struct{ *manifest.Document }

func (d *document) items() []map[string]any { return d.Items() }

// readManifests reads the objects of every file ("-" is standard input).
func readManifests(files []string, src fileSource) (*manifests, error) {
	set, err := manifest.ReadFiles(files, src.Source)
	if err != nil {
		return nil, err
	}
	m := &manifests{Set: set}
	for _, d := range set.Docs {
		m.docs = append(m.docs, &document{d})
	}
	return m, nil
}

func (d *document) setItems(objs []map[string]any) { d.SetItems(objs) }

// variableFlags are the --parameters, --values and --set flags that apply
// and lint share (varflags.Flags).
type variableFlags struct{ varflags.Flags }

func (v *variableFlags) register(fs *pflag.FlagSet) { v.Register(fs) }
func (v *variableFlags) given() bool                { return v.Given() }

// objectReport is what the files did to one object (explain.ObjectReport).
type objectReport struct{ *explain.ObjectReport }

type (
	fileReport   = explain.FileReport
	missingField = explain.MissingField
)

func newObjectReport(ref kpatch.ObjectRef) *objectReport {
	return &objectReport{explain.NewObjectReport(ref)}
}

func (r *objectReport) add(f *fileReport) { r.Add(f) }

// fileOrder is where a file stands in the order the files apply
// (explain.FileOrder).
type fileOrder struct {
	file        string
	position    int
	key         *kpatch.OrderKey
	description string
}

func (o fileOrder) report(result string) *fileReport {
	return explain.FileOrder{File: o.file, Position: o.position, Key: o.key, Description: o.description}.Report(result)
}

// diffObjects and fieldChanges are what explain reports of a file that
// changed an object.
var (
	diffObjects  = diff.Changes
	fieldChanges = explain.FieldChanges
)
