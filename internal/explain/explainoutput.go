package explain

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Write prints the report as text, JSON or YAML.
func Write(w io.Writer, r *Report, format string) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(r, "", "    ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "yaml":
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		enc.CompactSeqIndent()
		if err := enc.Encode(r); err != nil {
			return err
		}
		return enc.Close()
	}
	return writeExplainText(w, r)
}

// resultNotes say in words why a file left the object as it was.
var resultNotes = map[string]string{
	Unchanged:  " (matched; every value was already there)",
	Unmatched:  " (no section's target matches the object)",
	WouldPatch: " (audit mode: the object is left as it was)",
	Unmet:      " (its conditions leave it out of the object)",
}

// writeExplainText prints one block per object: a line naming it, then a
// line per file (its position, layer and specificity, name and result)
// with its changes or errors below it.
func writeExplainText(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for i, o := range r.Objects {
		if i > 0 {
			bw.WriteByte('\n')
		}
		fmt.Fprintf(bw, "%s %s (%s)\n", o.Kind, objectName(o), o.APIVersion)
		if len(o.Files) == 0 {
			bw.WriteString("  no patch file\n")
		}
		for _, f := range o.Files {
			note := resultNotes[f.Result]
			if f.Reason != "" {
				note = " (" + f.Reason + ")"
			}
			fmt.Fprintf(bw, "  %d. %s%s: %s%s\n", f.Position, orderText(f), f.File, f.Result, note)
			if f.Description != "" && f.Result != Unmatched {
				fmt.Fprintf(bw, "       # %s\n", f.Description)
			}
			for _, c := range f.Conditions {
				fmt.Fprintf(bw, "       %s\n", c)
			}
			for _, c := range f.Changes {
				fmt.Fprintf(bw, "       %s\n", changeText(c))
			}
			for _, e := range f.Errors {
				fmt.Fprintf(bw, "       %s\n", e)
			}
		}
		for _, m := range o.MissingRequired {
			fmt.Fprintf(bw, "  required and not set: %s (${required} at %s:%d:%d)\n", m.Path, m.File, m.Line, m.Column)
		}
		if len(o.Applied) > 0 {
			fmt.Fprintf(bw, "  applied: %s\n", strings.Join(o.Applied, ", "))
		}
		if len(o.WouldApply) > 0 {
			fmt.Fprintf(bw, "  would apply: %s\n", strings.Join(o.WouldApply, ", "))
		}
	}
	return bw.Flush()
}

// orderText is what placed a patch file: "[layer N, specificity] ".
func orderText(f *FileReport) string {
	if f.Layer == nil {
		return ""
	}
	return fmt.Sprintf("[layer %d, %s] ", *f.Layer, f.Specificity)
}

// objectName is "namespace/name", or the name alone.
func objectName(o *ObjectReport) string {
	name := o.Name
	if name == "" && o.GenerateName != "" {
		name = o.GenerateName + "*" // named as in messages: kpatch.ObjectRef
	}
	if o.Namespace == "" {
		return name
	}
	return o.Namespace + "/" + name
}

// changeText is one change in a line: "+ path: new", "~ path: old -> new"
// or "- path: old", values in JSON.
func changeText(c *FieldChange) string {
	switch c.Op {
	case opAdd:
		return "+ " + c.Path + ": " + jsonText(c.New)
	case opRemove:
		return "- " + c.Path + ": " + jsonText(c.Old)
	}
	return "~ " + c.Path + ": " + jsonText(c.Old) + " -> " + jsonText(c.New)
}

// jsonText prints a value as compact JSON, without escaping HTML.
func jsonText(v *any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(*v)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
