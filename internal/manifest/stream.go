package manifest

import (
	"bytes"

	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/internal/yamledit"
	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// File is one input file as written: its documents and the
// separators before them.
type File struct {
	name  string
	Parts []*Part
}

// Part is a document of a file and the separator line before it
// (none before the first document), both as written.
type Part struct {
	separator []byte
	Doc       *Document // obj is nil for an empty document
}

// ReadFile splits a YAML stream into its documents, as kubectl
// does: at lines that start with --- followed by nothing but blanks or a
// comment. Each document is decoded; its text is kept.
func ReadFile(name string, data []byte) (*File, error) {
	f := &File{name: name}
	n := 0
	for _, p := range splitStream(data) {
		d := &Document{file: name, line: p.line, Text: p.text, json: isJSONText(p.text)}
		if len(p.text) > 0 {
			n++
		}
		d.number = n
		obj, err := decodeDocument(d)
		if err != nil {
			return nil, err
		}
		d.Obj, d.orig = obj, obj
		f.Parts = append(f.Parts, &Part{separator: p.separator, Doc: d})
	}
	return f, nil
}

// Documents returns the documents that hold an object.
func (f *File) Documents() []*Document {
	var docs []*Document
	for _, p := range f.Parts {
		if p.Doc.Obj != nil {
			docs = append(docs, p.Doc)
		}
	}
	return docs
}

// yaml returns the file as apply prints it: as written, but for the
// documents whose objects the patches changed.
func (f *File) yaml() ([]byte, error) {
	var b bytes.Buffer
	for _, p := range f.Parts {
		b.Write(p.separator)
		text, err := p.Doc.yaml()
		if err != nil {
			return nil, err
		}
		b.Write(text)
	}
	return b.Bytes(), nil
}

// yaml returns the document as apply prints it: its text where its object
// did not change, else the text rewritten where the object changed. A
// JSON document is printed from its object, in YAML.
func (d *Document) yaml() ([]byte, error) {
	switch {
	case d.Obj == nil:
		return d.Text, nil
	case d.json:
		return yaml.Marshal(d.Obj)
	case jsonvalue.Equal(d.orig, d.Obj):
		return d.Text, nil
	}
	return yamledit.Rewrite(d.Text, d.orig, d.Obj)
}

// rawPart is a separator line and the document text after it, which
// starts at line (counted from 1 in the stream).
type rawPart struct {
	separator, text []byte
	line            int
}

// splitStream splits a YAML stream at its document separators.
func splitStream(data []byte) []rawPart {
	parts := []rawPart{{line: 1}}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		if isSeparator(line) {
			parts = append(parts, rawPart{separator: line, line: n + 1})
			continue
		}
		last := &parts[len(parts)-1]
		last.text = append(last.text, line...)
	}
	if len(parts) > 1 && parts[0].text == nil {
		parts = parts[1:] // the stream starts with a separator
	}
	return parts
}

// isSeparator reports whether a line separates two documents: --- and
// then only blanks or a comment.
func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

// startsWithSeparator reports whether a stream's first line is a
// separator.
func startsWithSeparator(text []byte) bool {
	line, _, _ := bytes.Cut(text, []byte("\n"))
	return isSeparator(line)
}

// isJSONText reports whether a document is written in JSON.
func isJSONText(text []byte) bool {
	t := bytes.TrimSpace(text)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}
