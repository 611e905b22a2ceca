package status

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"kpatch.dev/kpatch/pkg/drift"
)

// Status is what kpatch status prints: the drift of each namespace, the
// stable structure of -o json and -o yaml.
type Status struct {
	Namespaces []Namespace `json:"namespaces"`
}

// Namespace is the drift of one namespace.
type Namespace struct {
	Namespace string `json:"namespace"`
	// Source is where it was read: SourceReport or SourceScan.
	Source string `json:"source"`
	// RegistryVersion is the registry version of the webhook's scan (the
	// report's kpatch.dev/registry-version); "" for a scan of the CLI.
	RegistryVersion string `json:"registryVersion,omitempty"`
	// ScanTime is when the scan started, RFC 3339; "" when nothing is
	// stale (the report's results carry it).
	ScanTime string `json:"scanTime,omitempty"`
	// Truncated says what the report left out (kpatch.dev/truncated).
	Truncated string `json:"truncated,omitempty"`
	// Objects are the stale objects, in the scan's order.
	Objects []Object `json:"objects"`
}

// Where a Namespace was read.
const (
	SourceReport = "report"
	SourceScan   = "scan"
)

// Object is a stale object and the files that would change it.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid,omitempty"`
	Files      []File `json:"files"`
}

// File is one file that would change an object.
type File struct {
	File string `json:"file"`
	// Fields are the JSON pointers of the fields it changes; MoreFields
	// how many the report left out.
	Fields     []string `json:"fields"`
	MoreFields int      `json:"moreFields,omitempty"`
	// Reconcile says the file opts in to reconcile; Reconcilable that a
	// reconcile may update the object for it.
	Reconcile    bool `json:"reconcile"`
	Reconcilable bool `json:"reconcilable"`
	// Immutable is the field an UPDATE may not change, which keeps the
	// file's change out of the object; "" when an UPDATE may apply it.
	Immutable string `json:"immutable,omitempty"`
}

// immutableNote ends the message of a result whose change an UPDATE may
// not apply (drift.PolicyReport).
const immutableNote = "; not reconcilable: an UPDATE may not change "

// moreFields ends a report's field list that names the first fields only.
var moreFields = regexp.MustCompile(` and (\d+) more$`)

// FromPolicyReport reads the drift of one namespace from a PolicyReport as
// drift.PolicyReport renders it: the results of source kpatch, by object
// in their order, each object's files in theirs.
func FromPolicyReport(report map[string]any) (Namespace, error) {
	meta, _ := report["metadata"].(map[string]any)
	ns := Namespace{Source: SourceReport, Objects: []Object{}}
	ns.Namespace, _ = meta["namespace"].(string)
	annotations, _ := meta["annotations"].(map[string]any)
	ns.RegistryVersion, _ = annotations[drift.VersionAnnotation].(string)
	ns.Truncated, _ = annotations[drift.TruncatedAnnotation].(string)
	results, _ := report["results"].([]any)
	index := map[string]int{} // of an object's key in ns.Objects
	for i, r := range results {
		result, _ := r.(map[string]any)
		if result["source"] != "kpatch" {
			continue
		}
		obj, file, seconds, err := fromResult(result)
		if err != nil {
			return Namespace{}, fmt.Errorf("PolicyReport %s/%s: results[%d]: %w", ns.Namespace, meta["name"], i, err)
		}
		if ns.ScanTime == "" && seconds > 0 {
			ns.ScanTime = timeText(seconds)
		}
		key := obj.APIVersion + "/" + obj.Kind + "/" + obj.Name
		at, seen := index[key]
		if !seen {
			at, index[key] = len(ns.Objects), len(ns.Objects)
			ns.Objects = append(ns.Objects, obj)
		}
		ns.Objects[at].Files = append(ns.Objects[at].Files, file)
	}
	return ns, nil
}

// fromResult reads one result: the object of its resources, the file of
// its rule, its properties and message, its timestamp's seconds.
func fromResult(result map[string]any) (Object, File, int64, error) {
	resources, _ := result["resources"].([]any)
	if len(resources) != 1 {
		return Object{}, File{}, 0, fmt.Errorf("%d resources, want 1", len(resources))
	}
	res, _ := resources[0].(map[string]any)
	text := func(m map[string]any, key string) string { s, _ := m[key].(string); return s }
	obj := Object{APIVersion: text(res, "apiVersion"), Kind: text(res, "kind"), Name: text(res, "name"), UID: text(res, "uid")}
	props, _ := result["properties"].(map[string]any)
	file := File{File: text(result, "rule"), Fields: []string{},
		Reconcile: text(props, "reconcile") == "true", Reconcilable: text(props, "reconcilable") == "true"}
	if obj.Kind == "" || obj.Name == "" || file.File == "" {
		return Object{}, File{}, 0, fmt.Errorf("no kind, name or rule")
	}
	fields := text(props, "fields")
	if m := moreFields.FindStringSubmatchIndex(fields); m != nil {
		file.MoreFields, _ = strconv.Atoi(fields[m[2]:m[3]])
		fields = fields[:m[0]]
	}
	if fields != "" {
		file.Fields = strings.Split(fields, ", ")
	}
	if _, after, found := strings.Cut(text(result, "message"), immutableNote); found {
		file.Immutable = after
	}
	ts, _ := result["timestamp"].(map[string]any)
	return obj, file, int64Of(ts["seconds"]), nil
}

// int64Of is a JSON number as the report holds it: int64 as rendered,
// float64 or int64 as decoded.
func int64Of(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}
