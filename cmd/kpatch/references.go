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
// order, each file in the order of its syntax tree: the templates of
// entries (Value.Parts), and the strings of structured values and merge
// patches of YAML patch files, which hold their variables as text.
func fileReferences(files []*kpatch.File) []reference {
	var refs []reference
	for _, f := range files {
		at := func(line, col int) kpatch.Position { return kpatch.Position{File: f.Name, Line: line, Column: col} }
		for _, m := range f.Merges {
			refs = appendTreeRefs(refs, m.Patch, at(m.Line, m.Col))
		}
		for _, s := range f.Sections {
			for _, e := range s.Entries {
				pos := at(e.Line, e.ValueCol)
				for _, part := range e.Value.Parts {
					if part.Var != nil {
						refs = append(refs, reference{ref: part.Var.String(), pos: pos})
					}
				}
				refs = appendTreeRefs(refs, e.Value.Tree, pos)
			}
		}
	}
	for i := range refs {
		refs[i].ref = strings.TrimSuffix(strings.TrimPrefix(refs[i].ref, "${"), "}")
	}
	return refs
}

// appendTreeRefs appends the variables of the strings of a structured
// value, all placed at pos.
func appendTreeRefs(refs []reference, v any, pos kpatch.Position) []reference {
	switch x := v.(type) {
	case string:
		for _, r := range templateRefs(x) {
			refs = append(refs, reference{ref: r, pos: pos})
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			refs = appendTreeRefs(refs, x[k], pos)
		}
	case []any:
		for _, e := range x {
			refs = appendTreeRefs(refs, e, pos)
		}
	}
	return refs
}

// templateRefs returns the variables of a text as patch files write them,
// ${scope.name}, without the braces; $${ is a literal ${. A variable that
// is not closed ends the text (the engine reports it).
func templateRefs(s string) []string {
	var refs []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return refs
		}
		if i > 0 && s[i-1] == '$' {
			s = s[i+2:]
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return refs
		}
		refs = append(refs, s[i+2:i+end])
		s = s[i+end+1:]
	}
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
