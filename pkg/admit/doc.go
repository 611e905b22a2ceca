// Package admit is admitting one object: the one policy of the webhook's
// Handler (pkg/admission) and of kpatch apply --admission, each an
// adapter of it. Admit leaves the namespaces that are never patched, finds
// the files that may target the object before it is decoded (none: it is
// never decoded), passes an UPDATE of an object being deleted, binds the
// files to the object's values, runs them through the one apply loop
// (pkg/apply) with the object's replacement sources and condition
// inputs, and gives the answer's material: the JSONPatch and the
// messages that the webhook turns into warnings or a denial. It reads the
// cluster through a Cluster: the webhook's informers, or the CLI's input
// (Input). It links no controller-runtime and no client-go REST client,
// informers or cache.
package admit
