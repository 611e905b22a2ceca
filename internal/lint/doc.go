// Package lint holds what the commands find wrong in patch files and
// their inputs: the findings of a run (errors, which fail it, and
// warnings, which do not) and the checks across files that apply, lint
// and test share: targets that match no object, fields marked ${required}
// that no file sets, overrides that change nothing, constructs that are
// not idempotent.
package lint
