package kpatchfmt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// errLayout is a file that the formatter could not lay out without
// changing what it means; it refuses rather than write it.
var errLayout = errors.New("cannot format without changing the file")

// lineKind tells the lines of a .kpatch file apart for the formatter.
type lineKind uint8

const (
	blankLine lineKind = iota
	commentLine
	headerLine
	entryLine
)

// layoutLine is one line of the formatted file.
type layoutLine struct {
	kind lineKind
	text string
}

// Format returns a .kpatch file in the canonical layout of the
// engine's printer ((*kpatch.File).String: one header a section, one entry
// a line, a blank line between sections, no indentation) with every
// comment kept: a comment line stays above the header or entry it was
// above, an inline comment stays on its line after one space. Blank lines
// inside a section are kept, one where there were several. Lines end in
// \n, without a byte order mark. A file that does not parse is an error
// (an ErrorList of *kpatch.ParseError).
func Format(name string, src []byte) ([]byte, error) {
	f, err := kpatch.Parse(name, src)
	if err != nil {
		return nil, err
	}
	lines, err := layoutLines(f, sourceLines(src))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, l := range separateSections(lines) {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.Bytes(), checkSameFile(f, b.Bytes())
}

// sourceLines splits a file into lines as the parser does.
func sourceLines(src []byte) []string {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	text := strings.TrimSuffix(string(src), "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// layoutLines returns the file's lines in canonical form: headers and
// entries as the printer prints them, with their inline comments.
func layoutLines(f *kpatch.File, src []string) ([]layoutLine, error) {
	printed := make(map[int]layoutLine) // by source line number
	for _, s := range f.Sections {
		canonical := strings.Split((&kpatch.File{Sections: []*kpatch.Section{s}}).String(), "\n")
		printed[s.Line] = layoutLine{headerLine, withComment(canonical[0], headerComment(src[s.Line-1]))}
		for i, e := range s.Entries {
			printed[e.Line] = layoutLine{entryLine, withComment(canonical[i+1], entryComment(src[e.Line-1], e))}
		}
	}
	out := make([]layoutLine, 0, len(src))
	for i, text := range src {
		body := strings.TrimSpace(text)
		switch l, ok := printed[i+1]; {
		case ok:
			out = append(out, l)
		case body == "":
			out = append(out, layoutLine{kind: blankLine})
		case body[0] == '#':
			out = append(out, layoutLine{commentLine, body})
		default:
			return nil, fmt.Errorf("%s:%d: %w: the line is neither a header, an entry nor a comment", f.Name, i+1, errLayout)
		}
	}
	return out, nil
}

// withComment appends an inline comment, if any, to a printed line.
func withComment(line, comment string) string {
	if comment == "" {
		return line
	}
	return line + " " + comment
}

// entryComment returns the inline comment of an entry's line: what
// follows the value, which the parser leaves out of Value.Raw.
func entryComment(line string, e *kpatch.Entry) string {
	end := min(e.ValueCol-1+len(e.Value.Raw), len(line))
	return inlineComment(line[end:])
}

// headerComment returns the inline comment of a header's line.
func headerComment(line string) string {
	body := strings.TrimLeft(line, " \t")
	n := kpatch.HeaderLength(body)
	if n < 0 {
		n = len(body)
	}
	return inlineComment(body[n:])
}

// inlineComment returns rest, the text after a header or a value, when it
// is a comment, without the blanks around it.
func inlineComment(rest string) string {
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "#") {
		return rest
	}
	return ""
}

// separateSections puts exactly one blank line before every section but
// the first, above the comment lines that lead into its header; it keeps
// one blank line where there were several inside a section, none right
// after a header, at the start or at the end.
func separateSections(lines []layoutLine) []layoutLine {
	var out []layoutLine
	for _, l := range lines {
		if l.kind == headerLine {
			lead := len(out)
			for lead > 0 && out[lead-1].kind == commentLine {
				lead--
			}
			if lead > 0 && out[lead-1].kind != blankLine {
				out = append(out[:lead], append([]layoutLine{{kind: blankLine}}, out[lead:]...)...)
			}
		}
		if l.kind == blankLine {
			if len(out) == 0 || out[len(out)-1].kind == blankLine || out[len(out)-1].kind == headerLine {
				continue
			}
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1].kind == blankLine {
		out = out[:len(out)-1]
	}
	return out
}

// checkSameFile makes sure the formatted text parses to the same syntax
// tree as the file it came from.
func checkSameFile(f *kpatch.File, formatted []byte) error {
	g, err := kpatch.Parse(f.Name, formatted)
	if err != nil || g.String() != f.String() {
		return fmt.Errorf("%s: %w (the printed file does not parse back to the same patches)", f.Name, errLayout)
	}
	return nil
}
