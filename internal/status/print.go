package status

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Output formats of -o: text when absent.
const (
	OutputJSON = "json"
	OutputYAML = "yaml"
)

// Print writes s in format ("" text, OutputJSON, OutputYAML).
func Print(w io.Writer, s *Status, format string) error {
	switch format {
	case OutputJSON:
		out, err := json.MarshalIndent(s, "", "    ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", out)
		return err
	case OutputYAML:
		out, err := yaml.Marshal(s)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	}
	var b strings.Builder
	for _, ns := range s.Namespaces {
		printNamespace(&b, &ns)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// printNamespace writes the text of one namespace: a line that counts
// its stale objects and says where they were read, then each object and,
// under it, each file with the fields it changes.
//
//	shop: 1 stale object (report, registry version 3f2a9c0d1e2b, scan of 2026-11-29T04:00:00Z)
//	  Deployment web (apps/v1)
//	    app.kpatch: /spec/replicas, /spec/template/spec/containers/0/image
func printNamespace(b *strings.Builder, ns *Namespace) {
	about := []string{ns.Source}
	if ns.RegistryVersion != "" {
		about = append(about, "registry version "+ns.RegistryVersion)
	}
	if ns.ScanTime != "" {
		about = append(about, "scan of "+ns.ScanTime)
	}
	switch n := len(ns.Objects); n {
	case 0:
		fmt.Fprintf(b, "%s: no stale objects (%s)\n", ns.Namespace, strings.Join(about, ", "))
	default:
		fmt.Fprintf(b, "%s: %d stale %s (%s)\n", ns.Namespace, n, plural(n, "object", "objects"), strings.Join(about, ", "))
	}
	if ns.Truncated != "" {
		fmt.Fprintf(b, "  truncated: %s\n", ns.Truncated)
	}
	for _, o := range ns.Objects {
		fmt.Fprintf(b, "  %s %s (%s)\n", o.Kind, o.Name, o.APIVersion)
		for _, f := range o.Files {
			fmt.Fprintf(b, "    %s: %s%s\n", f.File, fieldsText(&f), fileNote(&f))
		}
	}
}

// fieldsText lists the fields a file changes.
func fieldsText(f *File) string {
	text := strings.Join(f.Fields, ", ")
	switch {
	case text == "" && f.MoreFields == 0:
		return "the object"
	case f.MoreFields > 0:
		text += fmt.Sprintf(" and %d more", f.MoreFields)
	}
	return text
}

// fileNote says whether a reconcile may update the object for the file.
func fileNote(f *File) string {
	switch {
	case f.Immutable != "":
		return " (not reconcilable: an UPDATE may not change " + f.Immutable + ")"
	case f.Reconcilable:
		return " (reconcile)"
	}
	return ""
}

func plural(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}

// timeText is a time in seconds since the epoch, RFC 3339 in UTC.
func timeText(seconds int64) string { return time.Unix(seconds, 0).UTC().Format(time.RFC3339) }
