// Package drift is finding the objects the registry would change now:
// objects created or last updated before a file was added or edited,
// which carry an older version of the registry, or none.
//
// A Scanner lists the objects of the kinds and namespaces it is given,
// page by page (Lister), admits each as an UPDATE by the webhook's
// ServiceAccount (Admitter) and keeps the ones whose answer would change
// them, with the files and fields (Finding), in a Report: never the
// objects themselves, so memory stays flat in the number of objects. A
// Report becomes metrics (metrics.Metrics.DriftScanned) and a
// PolicyReport per namespace (PolicyReport). A Schedule runs the scan
// every interval and after each registry change, debounced. A Reconciler
// updates, within a rate and one at a time per namespace, the objects of
// files marked `# kpatch:reconcile: true`, through the API server, so
// that the change comes from the admission path (docs/drift.md).
package drift
