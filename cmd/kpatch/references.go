package main

import (
	"fmt"
	"strings"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// reference is one variable a patch file reads, as "values.NAME" or
// "features.NAME" (NAME may be dotted), and where.
type reference struct {
	ref string
	pos kpatch.Position
}

// syntaxTrees returns the syntax trees of the patches.
func syntaxTrees(patches []*kpatch.Patch) []*kpatch.File {
	files := make([]*kpatch.File, len(patches))
	for i, p := range patches {
		files[i] = p.File()
	}
	return files
}

// fileReferences collects the variables the files read, file by file in
// order, each file in the order of its syntax tree (kpatch.File.References).
func fileReferences(files []*kpatch.File) []reference {
	var refs []reference
	for _, f := range files {
		for _, r := range f.References() {
			refs = append(refs, reference{ref: strings.TrimSuffix(strings.TrimPrefix(r.Var.String(), "${"), "}"), pos: r.Pos})
		}
	}
	return refs
}

// errUsage is the cause of the warnings that compare a schema with the
// files that read it.
var errUsage = fmt.Errorf("parameter usage")

// usageWarning is a declared parameter that no file reads, or a variable
// that reads no declared parameter: a warning of lint.
type usageWarning struct {
	at  string
	msg string
}

func (w *usageWarning) Error() string { return w.at + ": warning: " + w.msg }
func (w *usageWarning) Unwrap() error { return errUsage }

// reportUsage warns about the declared parameters that no reference
// reads, at their declarations, and about each reference that reads no
// declared parameter, where it is written.
func reportUsage(schema *parameters.Schema, schemaFile string, refs []reference, found *findings) {
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.ref
	}
	u := schema.Usage(names)
	for _, p := range u.Unused {
		found.warn(&usageWarning{at: p.Source().String(), msg: fmt.Sprintf("parameter %q is declared, and no patch file reads ${%s}", p.Name(), p.Ref())})
	}
	undeclared := make(map[string]bool, len(u.Undeclared))
	for _, r := range u.Undeclared {
		undeclared[r] = true
	}
	for _, r := range refs {
		if !undeclared[r.ref] {
			continue
		}
		msg := fmt.Sprintf("${%s} reads no parameter declared in %s", r.ref, schemaFile)
		if _, name, _ := strings.Cut(r.ref, "."); name != "" {
			name, _, _ = strings.Cut(name, ".")
			if p, ok := schema.Lookup(name); ok {
				msg += fmt.Sprintf(": %s is a%s %s, read as ${%s}", name, article(string(p.Type())), p.Type(), p.Ref())
			}
		}
		found.warn(&usageWarning{at: r.pos.String(), msg: msg})
	}
}

// article is the indefinite article of a word: "a" or "an".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}
