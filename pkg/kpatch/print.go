package kpatch

import "strings"

// String prints the file in canonical form: one header a section, one
// entry a line, a blank line between sections. Parsing the result gives
// the same syntax tree, positions aside.
func (f *File) String() string {
	var b strings.Builder
	for i, s := range f.Sections {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[" + s.Target.String())
		for j := range s.Path {
			s.Path[j].write(&b, false)
		}
		b.WriteString("]\n")
		for _, e := range s.Entries {
			b.WriteString(e.Key.String())
			if e.IfAbsent {
				b.WriteByte('?')
			}
			b.WriteByte(':')
			if e.Value.Raw != "" {
				b.WriteString(" " + e.Value.Raw)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}
