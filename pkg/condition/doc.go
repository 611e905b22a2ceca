// Package condition compiles and evaluates the conditions of patch files:
// the Kubernetes CEL expressions of `# kpatch:when:` lines. A Condition is
// compiled once, when its registry is loaded, in the CEL environment of the
// API server's admission plugins (the same libraries, variables and
// per-call cost limit as a MutatingAdmissionPolicy's matchConditions), and
// evaluated for each admitted object within a Budget that bounds what all
// the conditions of one request may cost. Its worst-case cost is known
// when it compiles: one past the per-call limit does not compile, and the
// functions that build large results refuse, before building it, one
// larger than the limit allows.
package condition
