package lint

import (
	"encoding/json"
	"errors"
	"io"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// jsonReport is the findings as lint -o json writes them.
type jsonReport struct {
	Findings []jsonFinding `json:"findings"`
}

// jsonFinding is one finding: its line of text, whether it is a warning,
// and for a contested field or useless overrides every file involved.
type jsonFinding struct {
	Severity string        `json:"severity"` // error or warning
	Message  string        `json:"message"`
	Conflict *jsonConflict `json:"conflict,omitempty"`
	Useless  *jsonUseless  `json:"useless,omitempty"`
}

// jsonConflict is a kpatch.FieldConflict: every write of the field in the
// order the files apply, the one that wins, and the pairs in conflict.
type jsonConflict struct {
	Target string      `json:"target"`
	Path   string      `json:"path"`
	Writes []jsonWrite `json:"writes"`
	Winner jsonWrite   `json:"winner"`
	// Pairs are the writes in conflict, as indexes into Writes: an
	// earlier write of another file and another value, then the later
	// one.
	Pairs [][2]int `json:"pairs"`
}

// jsonWrite is one write of a field.
type jsonWrite struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Target string `json:"target"`
	Value  any    `json:"value"`
}

// jsonUseless is a kpatch.UselessField: every entry that changes nothing.
type jsonUseless struct {
	Target  string      `json:"target"`
	Path    string      `json:"path"`
	Value   any         `json:"value"`
	Entries []jsonWrite `json:"entries"`
}

// PrintJSON writes the findings as one JSON document: each with its
// severity and its line of text, a contested field with every write and
// every pair in conflict, useless overrides with every entry.
func (f *Findings) PrintJSON(w io.Writer) error {
	out := jsonReport{Findings: make([]jsonFinding, 0, len(f.List))}
	for _, p := range f.List {
		jf := jsonFinding{Severity: "error", Message: p.Err.Error()}
		if p.Warning {
			jf.Severity = "warning"
		}
		var fc *kpatch.FieldConflict
		if errors.As(p.Err, &fc) {
			jf.Conflict = conflictJSON(fc)
		}
		var uf *kpatch.UselessField
		if errors.As(p.Err, &uf) {
			jf.Useless = uselessJSON(uf.Target, uf.Path, uf.Value, uf.Entries)
		}
		var uo *kpatch.UselessOverride
		if jf.Useless == nil && errors.As(p.Err, &uo) {
			jf.Useless = uselessJSON(uo.Target, uo.Path, uo.Value, []*kpatch.UselessOverride{uo})
		}
		out.Findings = append(out.Findings, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func conflictJSON(c *kpatch.FieldConflict) *jsonConflict {
	out := &jsonConflict{Target: c.Target.String(), Path: c.Path, Writes: make([]jsonWrite, len(c.Writes)), Pairs: make([][2]int, 0, c.Pairs)}
	for i, w := range c.Writes {
		out.Writes[i] = jsonWrite{File: w.Pos.File, Line: w.Pos.Line, Column: w.Pos.Column, Target: w.Target.String(), Value: w.Value}
	}
	out.Winner = out.Writes[len(out.Writes)-1]
	c.EachPair(func(earlier, later int) { out.Pairs = append(out.Pairs, [2]int{earlier, later}) })
	return out
}

func uselessJSON(t kpatch.Target, path string, value any, entries []*kpatch.UselessOverride) *jsonUseless {
	out := &jsonUseless{Target: t.String(), Path: path, Value: value, Entries: make([]jsonWrite, len(entries))}
	for i, e := range entries {
		out.Entries[i] = jsonWrite{File: e.Pos.File, Line: e.Pos.Line, Column: e.Pos.Column, Target: e.Target.String(), Value: e.Value}
	}
	return out
}
