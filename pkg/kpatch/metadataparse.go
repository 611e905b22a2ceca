package kpatch

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// MetadataPrefix starts a metadata comment line of a .kpatch file, after
// the '#': `# kpatch:KEY: VALUE`.
const MetadataPrefix = "kpatch:"

// metaField reads one metadata key: from the text after `# kpatch:KEY: `
// (pos is where it starts), or from the value node of a YAML patch file's
// metadata entry.
type metaField struct {
	text func(m *Metadata, text string, pos Position) *ParseError
	node func(m *Metadata, n *yaml.Node, pos Position) *ParseError
}

// metaFields are the metadata keys, in .kpatch comment lines and in YAML
// metadata entries alike. Any other key is an error.
var metaFields = map[string]metaField{
	ModeKey:       {text: modeText, node: modeNode},
	"enabled":     {text: enabledText, node: enabledNode},
	"requires":    {text: namesText(func(m *Metadata) *[]FileName { return &m.Requires }), node: namesNode(func(m *Metadata) *[]FileName { return &m.Requires })},
	"conflicts":   {text: namesText(func(m *Metadata) *[]FileName { return &m.Conflicts }), node: namesNode(func(m *Metadata) *[]FileName { return &m.Conflicts })},
	"description": {text: descriptionText, node: descriptionNode},
	"layer":       {text: layerText, node: layerNode},
	WhenKey:       {text: whenText, node: whenNode},
	OperationsKey: {text: operationsText, node: operationsNode},
	ReconcileKey:  {text: reconcileText, node: reconcileNode},
}

// metaKeys lists the metadata keys for messages.
func metaKeys() string { return strings.Join(slices.Sorted(maps.Keys(metaFields)), ", ") }

// comment reads a comment line of a .kpatch file: a metadata line
// (`# kpatch:` and a letter) before the first header, or a section's
// `# kpatch:when:` after its header, else nothing.
func (p *lineParser) comment(lineNo int, body string, col int) {
	rest := strings.TrimLeft(body[1:], " \t")
	after, ok := strings.CutPrefix(rest, MetadataPrefix)
	if !ok || after == "" || !isLetter(after[0]) {
		return // a plain comment
	}
	keyCol := col + len(body) - len(after)
	if p.seenHeader {
		if p.sectionWhen(lineNo, after, keyCol) || p.sectionForeach(lineNo, after, keyCol) {
			return
		}
		p.report(lineNo, errorAt(col, ErrSyntax, "file metadata (# %s...) goes before the first header", MetadataPrefix))
		return
	}
	key, value, found := strings.Cut(after, ":")
	if !found {
		p.report(lineNo, errorAt(keyCol, ErrSyntax, "expected # %sKEY: VALUE", MetadataPrefix))
		return
	}
	field, known := metaFields[key]
	if !known {
		p.report(lineNo, errorAt(keyCol, ErrSyntax, "unknown file metadata %q; expected %s", key, metaKeys()))
		return
	}
	text := strings.TrimLeft(value, " \t")
	pos := Position{File: p.file.Name, Line: lineNo, Column: keyCol + len(key) + 1 + len(value) - len(text)}
	if err := field.text(&p.file.Metadata, text, pos); err != nil {
		p.errs = append(p.errs, err)
	}
}

func enabledText(m *Metadata, text string, pos Position) *ParseError {
	v, err := parseValue(text, pos.Column)
	if err != nil {
		return err.at(pos.Line, err.col).parseError(pos.File)
	}
	return setEnabled(m, v, pos)
}

func enabledNode(m *Metadata, n *yaml.Node, pos Position) *ParseError {
	if n.Kind != yaml.ScalarNode {
		return metaError(pos, ErrSyntax, "enabled: expected a boolean, a text or ${...}")
	}
	v, err := yamlValue(n)
	if err != nil {
		return err.orAt(pos.Line, pos.Column).parseError(pos.File)
	}
	return setEnabled(m, v, pos)
}

func setEnabled(m *Metadata, v Value, pos Position) *ParseError {
	switch {
	case m.Enabled != nil:
		return metaError(pos, ErrSyntax, "enabled: given twice; first at line %d", m.Enabled.Pos.Line)
	case v.Parts == nil && v.Scalar == nil:
		return metaError(pos, ErrSyntax, "enabled: expected a value, such as ${features.NAME}")
	case v.readsItem():
		return metaError(pos, ErrVariable, "enabled: reads ${item}, the list item an entry applies in; a file's metadata has none")
	}
	m.Enabled = &MetaValue{Value: v, Pos: pos}
	return nil
}

// namesText reads `NAME...`: names separated by spaces or commas, which
// add to the list of the field (a key may be given on several lines).
func namesText(list func(*Metadata) *[]FileName) func(*Metadata, string, Position) *ParseError {
	return func(m *Metadata, text string, pos Position) *ParseError {
		added := false
		err := eachName(text, pos, func(name string, at Position) *ParseError {
			added = true
			return addName(list(m), name, at)
		})
		if err == nil && !added {
			return metaError(pos, ErrSyntax, "expected the names of files, without their extension")
		}
		return err
	}
}

// eachName calls f with each name of a metadata text (its comment left
// out), separated by spaces or commas, and where it stands; it stops at
// the first error.
func eachName(text string, pos Position, f func(name string, at Position) *ParseError) *ParseError {
	text = stripComment(text)
	start := 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && !isNameSeparator(text[i]) {
			continue
		}
		if i > start {
			at := pos
			at.Column += start
			if err := f(text[start:i], at); err != nil {
				return err
			}
		}
		start = i + 1
	}
	return nil
}

// namesNode reads a list of names, or a text of names as namesText does.
func namesNode(list func(*Metadata) *[]FileName) func(*Metadata, *yaml.Node, Position) *ParseError {
	return func(m *Metadata, n *yaml.Node, pos Position) *ParseError {
		if n.Kind == yaml.ScalarNode {
			return namesText(list)(m, n.Value, Position{File: pos.File, Line: n.Line, Column: n.Column})
		}
		if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
			return metaError(pos, ErrSyntax, "expected a list of file names, without their extension")
		}
		for _, item := range n.Content {
			at := Position{File: pos.File, Line: item.Line, Column: item.Column}
			if item.Kind != yaml.ScalarNode {
				return metaError(at, ErrSyntax, "expected a file name, without its extension")
			}
			if err := addName(list(m), item.Value, at); err != nil {
				return err
			}
		}
		return nil
	}
}

func isNameSeparator(c byte) bool { return c == ' ' || c == '\t' || c == ',' }

// addName checks a file name: NAME or GROUP/NAME, each of letters,
// digits, '-', '_' and '.', without the file's extension.
func addName(list *[]FileName, name string, pos Position) *ParseError {
	group, base, qualified := strings.Cut(name, "/")
	if !qualified {
		group, base = "", name
	}
	if !validNamePart(base) || qualified && !validNamePart(group) {
		return metaError(pos, ErrSyntax, "invalid file name %q: expected NAME or GROUP/NAME (letters, digits, '-', '_', '.')", name)
	}
	if trimmed := TrimPatchExtension(base); trimmed != base {
		return metaError(pos, ErrSyntax, "a file is named without its extension: write %q", strings.TrimSuffix(name, base)+trimmed)
	}
	*list = append(*list, FileName{Name: name, Pos: pos})
	return nil
}

func validNamePart(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// TrimPatchExtension returns a patch file's name without its extension
// (.kpatch, .yaml, .yml): the name that metadata gives it.
func TrimPatchExtension(name string) string {
	for _, ext := range []string{".kpatch", ".yaml", ".yml"} {
		if s, ok := strings.CutSuffix(name, ext); ok {
			return s
		}
	}
	return name
}

func descriptionText(m *Metadata, text string, _ Position) *ParseError {
	if m.Description != "" && text != "" {
		m.Description += " "
	}
	m.Description += strings.TrimSpace(text)
	return nil
}

func descriptionNode(m *Metadata, n *yaml.Node, pos Position) *ParseError {
	if n.Kind != yaml.ScalarNode {
		return metaError(pos, ErrSyntax, "description: expected a text")
	}
	return descriptionText(m, n.Value, pos)
}

// isMetadataEntry reports whether an item of a YAML patch file is its
// metadata entry: a map with the key metadata.
func isMetadataEntry(item *yaml.Node) bool {
	if item.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value == "metadata" {
			return true
		}
	}
	return false
}

// metadata reads the metadata entry of a YAML patch file, the item at
// index i: `- metadata: {enabled: ..., requires: [...], ...}`, first.
func (p *yamlParser) metadata(item *yaml.Node, i int) {
	if i != 0 {
		p.fail(item, errorf(ErrSyntax, "the metadata entry is the first entry of the file"))
		return
	}
	var md *yaml.Node
	for j := 0; j+1 < len(item.Content); j += 2 {
		if k := item.Content[j]; k.Value == "metadata" {
			md = item.Content[j+1]
		} else {
			p.fail(k, errorf(ErrSyntax, "unknown key %q in the metadata entry; it holds metadata: alone", k.Value))
		}
	}
	if md.Kind != yaml.MappingNode {
		p.fail(md, errorf(ErrSyntax, "metadata: expected a map of %s", metaKeys()))
		return
	}
	seen := map[string]bool{}
	for j := 0; j+1 < len(md.Content); j += 2 {
		k, v := md.Content[j], md.Content[j+1]
		field, known := metaFields[k.Value]
		switch {
		case !known:
			p.fail(k, errorf(ErrSyntax, "unknown file metadata %q; expected %s", k.Value, metaKeys()))
			continue
		case seen[k.Value]:
			p.fail(k, errorf(ErrSyntax, "%s: given twice", k.Value))
			continue
		}
		seen[k.Value] = true
		if err := field.node(&p.file.Metadata, v, Position{File: p.file.Name, Line: v.Line, Column: v.Column}); err != nil {
			p.errs = append(p.errs, err)
		}
	}
}

func layerText(m *Metadata, text string, pos Position) *ParseError {
	value := stripComment(text)
	n, err := strconv.Atoi(strings.TrimSpace(value))
	switch {
	case m.Layer.Set:
		return metaError(pos, ErrSyntax, "layer: given twice; first at line %d", m.Layer.Line)
	case err != nil:
		return metaError(pos, ErrSyntax, "layer: expected an integer, not %q", strings.TrimSpace(value))
	}
	m.Layer = FileLayer{Value: n, Set: true, Line: pos.Line}
	return nil
}

func layerNode(m *Metadata, n *yaml.Node, pos Position) *ParseError {
	if n.Kind != yaml.ScalarNode {
		return metaError(pos, ErrSyntax, "layer: expected an integer")
	}
	return layerText(m, n.Value, Position{File: pos.File, Line: n.Line, Column: n.Column})
}
