package admit

import (
	"errors"
	"strconv"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/condition"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// messages are what the webhook tells of a run: the problems of its
// files, the registry admin's first (adminFirst), one message per error
// (FailureMessages), then the ${required} fields nothing set
// (missingRequired); and whether a CEL budget was spent before a file's
// conditions.
func messages(run *apply.ObjectRun) (problems []apply.FileRun, out []string, spent bool) {
	problems = adminFirst(run.Problems())
	for _, f := range problems {
		spent = spent || condition.IsBudgetSpent(f.Err)
		out = append(out, FailureMessages(f.Err)...)
	}
	return problems, append(out, missingRequired(run)...), spent
}

// adminFirst orders the problems of a run for its warnings: the registry
// admin's files first, then the tenants', each in the order they
// applied, so that a bound on the warnings never hides an admin's file
// behind a tenant's.
func adminFirst(runs []apply.FileRun) []apply.FileRun {
	out := make([]apply.FileRun, 0, len(runs))
	for _, admin := range []bool{true, false} {
		for _, f := range runs {
			if (f.File.Meta().Owner == "") == admin {
				out = append(out, f)
			}
		}
	}
	return out
}

// FailureMessages describes apply errors, one message per error: file,
// line and reason, without the prefix.
func FailureMessages(err error) []string {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		return []string{err.Error()}
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		out = append(out, message(e, "not applied: "))
	}
	return out
}

// message describes one apply error: file, line, then what it says
// after how (an ApplyError), else the error.
func message(err error, how string) string {
	var ae *kpatch.ApplyError
	if errors.As(err, &ae) {
		return ae.Pos.File + ":" + strconv.Itoa(ae.Pos.Line) + ": " + how + ae.Msg
	}
	return err.Error()
}

// missingRequired describes the fields that the files which applied to
// the object mark ${required} and that the patched object does not hold,
// one message each: file, line, field. A file that failed on the object
// requires nothing of it.
func missingRequired(run *apply.ObjectRun) []string {
	var out []string
	for _, err := range run.Required() {
		out = append(out, message(err, ""))
	}
	return out
}
