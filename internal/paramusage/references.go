package paramusage

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

// Reference is one variable a patch file reads, as "values.NAME" or
// "features.NAME" (NAME may be dotted), and where; text is how the file
// writes it: ${values.NAME}, or params.NAME in CEL.
type Reference struct {
	ref  string
	text string
	pos  kpatch.Position
}

// SyntaxTrees returns the syntax trees of the patches.
func SyntaxTrees(patches []*kpatch.Patch) []*kpatch.File {
	files := make([]*kpatch.File, len(patches))
	for i, p := range patches {
		files[i] = p.File()
	}
	return files
}

// References collects the variables the files read, file by file in
// order, each file in the order of its syntax tree (kpatch.File.References).
func References(files []*kpatch.File) []Reference {
	var refs []Reference
	for _, f := range files {
		for _, r := range f.References() {
			ref := strings.TrimSuffix(strings.TrimPrefix(r.Var.String(), "${"), "}")
			refs = append(refs, Reference{ref: ref, text: "${" + ref + "}", pos: r.Pos})
		}
	}
	return refs
}

// ExpressionReferences are the parameters the patches' CEL reads as
// params (kpatch.Patch.ParamReads: conditions, ${cel: } values, foreach
// lists), as References at the expression: params.NAME reads
// ${values.NAME}; params as a whole, or by a computed key, reads every
// parameter of the schema (nil: none).
func ExpressionReferences(patches []*kpatch.Patch, schema *parameters.Schema) []Reference {
	var refs []Reference
	for _, p := range patches {
		for _, r := range p.ParamReads() {
			if !r.Whole {
				refs = append(refs, Reference{ref: "values." + r.Name, text: "params." + r.Name, pos: r.Pos})
				continue
			}
			if schema == nil {
				continue
			}
			for _, name := range schema.Names() {
				refs = append(refs, Reference{ref: "values." + name, text: "params", pos: r.Pos})
			}
		}
	}
	return refs
}

// Compile compiles the syntax trees that compile, for
// ExpressionReferences; a tree that does not is left out (its
// ${values.NAME} still count, from References).
func Compile(trees []*kpatch.File) []*kpatch.Patch {
	var patches []*kpatch.Patch
	for _, f := range trees {
		if p, err := kpatch.Compile(f); err == nil {
			patches = append(patches, p)
		}
	}
	return patches
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

// Report warns about the declared parameters that no reference
// reads, at their declarations, and about each reference that reads no
// declared parameter, where it is written.
func Report(schema *parameters.Schema, schemaFile string, refs []Reference, found *lint.Findings) {
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.ref
	}
	u := schema.Usage(names)
	for _, p := range u.Unused {
		found.Warn(&usageWarning{at: p.Source().String(), msg: fmt.Sprintf("parameter %q is declared, and no patch file reads ${%s}", p.Name(), p.Ref())})
	}
	undeclared := make(map[string]bool, len(u.Undeclared))
	for _, r := range u.Undeclared {
		undeclared[r] = true
	}
	for _, r := range refs {
		if !undeclared[r.ref] {
			continue
		}
		msg := fmt.Sprintf("%s reads no parameter declared in %s", r.text, schemaFile)
		if _, name, _ := strings.Cut(r.ref, "."); name != "" {
			name, _, _ = strings.Cut(name, ".")
			if p, ok := schema.Lookup(name); ok {
				msg += fmt.Sprintf(": %s is a%s %s, read as ${%s}", name, article(string(p.Type())), p.Type(), p.Ref())
			}
		}
		found.Warn(&usageWarning{at: r.pos.String(), msg: msg})
	}
}

// article is the indefinite article of a word: "a" or "an".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}

// Table prints the schema as a table, with the files that read
// each parameter.
func Table(w io.Writer, schema *parameters.Schema, refs []Reference) error {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tDEFAULT\tREQUIRED\tDESCRIPTION\tUSED BY")
	for _, p := range schema.Parameters() {
		def := "<none>"
		if v, ok := p.Default(); ok {
			def = defaultText(v)
		}
		required := "no"
		if p.Required() {
			required = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name(), p.Type(), def, required,
			strings.Join(strings.Fields(p.Description()), " "), usedBy(schema, p, refs))
	}
	return tw.Flush()
}

// usedBy lists the files whose references read the parameter, each once,
// in the order of the files; <none> when no file reads it.
func usedBy(schema *parameters.Schema, p *parameters.Parameter, refs []Reference) string {
	var files []string
	for _, r := range refs {
		if q, ok := schema.ForRef(r.ref); ok && q.Name() == p.Name() && !slices.Contains(files, r.pos.File) {
			files = append(files, r.pos.File)
		}
	}
	if len(files) == 0 {
		return "<none>"
	}
	return strings.Join(files, ",")
}

// defaultText prints a default: text as it is, anything else as JSON.
func defaultText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
