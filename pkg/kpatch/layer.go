package kpatch

import (
	"bytes"
	"strconv"
	"strings"
)

// layerDirective is the file metadata line that sets a file's layer:
// `# kpatch:layer: N`, among the comments before the first header (of a
// .kpatch file: read with the other metadata, metadataparse.go) or entry
// (of a YAML patch file: read here; its metadata entry may say layer:
// instead).
const layerDirective = "kpatch:layer:"

// FileLayer is the layer a file gives itself with a `# kpatch:layer: N`
// line.
type FileLayer struct {
	// Value is the layer, an integer (negative allowed).
	Value int
	// Set says that the file has the line; without it a file takes its
	// registry ConfigMap's label kpatch.dev/layer, else layer 0.
	Set bool
	// Line is where the line is.
	Line int
}

// Layer returns the layer the file gives itself, if any.
func (p *Patch) Layer() FileLayer { return p.file.Metadata.Layer }

// readLayer reads the `# kpatch:layer: N` line among the comments and
// blank lines that start src. It reports a value that is not an integer
// and a second such line.
func readLayer(name string, src []byte) (FileLayer, *ParseError) {
	var out FileLayer
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	for lineNo := 1; len(src) > 0; lineNo++ {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		text := strings.TrimSpace(string(line))
		if text == "" || text == "---" {
			continue
		}
		if text[0] != '#' {
			break
		}
		body := strings.TrimSpace(text[1:])
		if !strings.HasPrefix(body, layerDirective) {
			continue
		}
		col := bytes.Index(line, []byte(layerDirective)) + 1
		value := strings.TrimSpace(body[len(layerDirective):])
		n, err := strconv.Atoi(value)
		switch {
		case out.Set:
			return out, layerError(name, lineNo, col, "a second %s line; the first is at line %d", layerDirective, out.Line)
		case err != nil:
			return out, layerError(name, lineNo, col, "%s wants an integer, not %q", layerDirective, value)
		}
		out = FileLayer{Value: n, Set: true, Line: lineNo}
	}
	return out, nil
}

func layerError(name string, line, col int, format string, args ...any) *ParseError {
	return errorf(ErrSyntax, format, args...).at(line, col).parseError(name)
}

// readLayer reads the layer line of a YAML patch file, a comment before
// its first entry (or its metadata entry's layer:), keeping its problem
// with the file's others.
func (p *yamlParser) readLayer(src []byte) FileLayer {
	l, err := readLayer(p.file.Name, src)
	if err != nil {
		p.errs = append(p.errs, err)
	}
	return l
}
