// Package status is the command kpatch status (also kubectl kpatch
// status): the objects of a cluster that the registry would change now,
// per namespace, and the files that would change them. It reads the
// cluster with the user's kubeconfig, as kubectl does: the drift reports
// the webhook writes (PolicyReports, drift.PolicyReport), or, with
// --scan, the registry ConfigMaps and the objects of one namespace, which
// it admits itself as the webhook's drift scan does (drift.Scanner). It
// is the one command of the CLI that talks to a cluster (docs/drift.md).
package status
