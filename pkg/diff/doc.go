// Package diff derives the patch that turns Kubernetes objects into
// others: the smallest .kpatch file (or YAML patch file) whose entries,
// applied by the kpatch engine to each object of BASE, give the object of
// TARGET with the same API group, kind, namespace and name. Scalars that
// changed become entries, list items are addressed by their key (the
// patchMergeKey of a built-in kind, else name, else their index), a value
// is written whole only where no smaller change reaches it. Every printed
// patch is checked: applied to BASE it must give TARGET.
package diff
