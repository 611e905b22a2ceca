package drift

import (
	"fmt"
	"strconv"
	"strings"
)

// The PolicyReport of a namespace's drift: the report of the policy
// working group's API, which Kyverno and Policy Reporter read.
const (
	PolicyReportAPIVersion = "wgpolicyk8s.io/v1alpha2"
	PolicyReportKind       = "PolicyReport"
	// PolicyReportName is the name of kpatch's report in each namespace.
	PolicyReportName = "kpatch-drift"
	// DefaultMaxResults bounds the results of one report.
	DefaultMaxResults = 200
	// maxReportFields bounds the fields one result names.
	maxReportFields = 20
	// TruncatedAnnotation, on a report, says that it holds the first of
	// its results only ("200 of 1234 results"), or that the scan itself
	// stopped at its bound ("scan truncated at --drift-max-objects").
	TruncatedAnnotation = "kpatch.dev/truncated"
	// VersionAnnotation, on a report, is the registry version of the
	// scan.
	VersionAnnotation = "kpatch.dev/registry-version"
)

// PolicyReport renders the drift of one namespace of r as a PolicyReport
// object (wgpolicyk8s.io/v1alpha2) named PolicyReportName: a result per
// stale object and file that would change it (policy kpatch, rule the
// file, result fail, source kpatch), its message and properties naming
// the fields and whether a reconcile may update the object, the object
// in resources. Its summary counts every result, its results are the
// first maxResults (DefaultMaxResults when 0), in the scan's order; when
// results are left out, or the scan was truncated, TruncatedAnnotation
// says so. A namespace without stale objects renders a report without
// results; the webhook deletes its report instead (docs/drift.md).
func PolicyReport(r *Report, namespace string, maxResults int) map[string]any {
	if maxResults <= 0 {
		maxResults = DefaultMaxResults
	}
	results := []any{}
	total := 0
	for _, f := range r.stale[namespace] {
		for _, c := range f.Files {
			if total++; len(results) < maxResults {
				results = append(results, policyResult(&f, c, r.start.Unix()))
			}
		}
	}
	annotations := map[string]any{VersionAnnotation: r.version}
	switch {
	case total > len(results):
		annotations[TruncatedAnnotation] = fmt.Sprintf("%d of %d results", len(results), total)
	case r.truncated:
		annotations[TruncatedAnnotation] = "scan truncated at --drift-max-objects"
	}
	return map[string]any{
		"apiVersion": PolicyReportAPIVersion,
		"kind":       PolicyReportKind,
		"metadata": map[string]any{
			"name":        PolicyReportName,
			"namespace":   namespace,
			"labels":      map[string]any{"app.kubernetes.io/managed-by": "kpatch"},
			"annotations": annotations,
		},
		"summary": map[string]any{"pass": int64(0), "fail": int64(total), "warn": int64(0), "error": int64(0), "skip": int64(0)},
		"results": results,
	}
}

// policyResult is the result of file change c on the object of f, at
// seconds since the epoch.
func policyResult(f *Finding, c FileChange, seconds int64) map[string]any {
	fields := c.Fields
	more := ""
	if len(fields) > maxReportFields {
		fields, more = fields[:maxReportFields], fmt.Sprintf(" and %d more", len(c.Fields)-maxReportFields)
	}
	list := strings.Join(fields, ", ") + more
	message := fmt.Sprintf("%s would change %s: %s", c.File, f.Ref, list)
	reconcilable := c.Reconcile && c.Immutable == ""
	if c.Immutable != "" {
		message += fmt.Sprintf("; not reconcilable: an UPDATE may not change %s", c.Immutable)
	}
	ref := f.Ref
	resource := map[string]any{"apiVersion": ref.Kind.APIVersion(), "kind": ref.Kind.Kind, "namespace": ref.Namespace, "name": ref.Name}
	if ref.UID != "" {
		resource["uid"] = ref.UID
	}
	return map[string]any{
		"source":    "kpatch",
		"policy":    "kpatch",
		"rule":      c.File,
		"category":  "drift",
		"result":    "fail",
		"scored":    true,
		"timestamp": map[string]any{"seconds": seconds, "nanos": int64(0)},
		"message":   message,
		"resources": []any{resource},
		"properties": map[string]any{
			"fields":       list,
			"reconcile":    strconv.FormatBool(c.Reconcile),
			"reconcilable": strconv.FormatBool(reconcilable),
		},
	}
}
