package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/apply"
)

// requestFlags set the request that the files' conditions read offline
// (# kpatch:when:): by default each object is a CREATE of itself by an
// unnamed user, not a dry run.
type requestFlags struct {
	operation string
	user      string
	groups    []string
}

func (r *requestFlags) register(f *pflag.FlagSet) {
	f.StringVar(&r.operation, "request-operation", "CREATE", "`OPERATION` of the request that conditions (# kpatch:when:) read: CREATE or UPDATE (oldObject is null)")
	f.StringVar(&r.user, "request-user", "", "`USER` name of the request that conditions read (request.userInfo.username); unnamed by default")
	f.StringSliceVar(&r.groups, "request-groups", nil, "`GROUP`s of the request's user that conditions read (request.userInfo.groups); comma-separated, repeatable")
}

// request is the request of the flags: a template whose kind, name and
// namespace are each object's own.
func (r *requestFlags) request() (*admissionv1.AdmissionRequest, error) {
	op := admissionv1.Operation(strings.ToUpper(r.operation))
	if op != admissionv1.Create && op != admissionv1.Update {
		return nil, usageErrorf("--request-operation must be CREATE or UPDATE, not %q", r.operation)
	}
	return &admissionv1.AdmissionRequest{Operation: op, UserInfo: authenticationv1.UserInfo{Username: r.user, Groups: r.groups}}, nil
}

// admissionOf is what the conditions of a run over objs read: req (nil:
// a CREATE by an unnamed user), each object's own kind, name and
// namespace, and as namespaceObject the Namespace of the same name among
// objs (admit.Input, as --admission reads them).
func admissionOf(objs []map[string]any, req *admissionv1.AdmissionRequest) apply.Admission {
	in, _ := admit.NewInput(objs, "", "") // a Namespace that is not valid counts for nothing
	return apply.Admission{Request: req, Objects: in.Conditions()}
}

// reportRequired reports the fields that the files that applied to each
// object mark ${required} and that nothing set (apply.ObjectRun.Required):
// a section that its condition left out reports none.
func reportRequired(runs []*apply.ObjectRun, found *lint.Findings) {
	for _, r := range runs {
		for _, err := range r.Required() {
			found.Add(err)
		}
	}
}

// conditionText says what one condition gave on an object, for kpatch
// explain.
func conditionText(c apply.ConditionRun) string {
	where := fmt.Sprintf("line %d", c.Condition.Pos.Line)
	if c.Condition.Header != "" {
		where += ", " + c.Condition.Header
	}
	if c.Item != "" {
		where += ", item " + c.Item
	}
	switch {
	case c.Err != nil:
		return fmt.Sprintf("when (%s): %s: error: %v", where, c.Condition.String(), c.Err)
	case c.Held:
		return fmt.Sprintf("when (%s): %s: held", where, c.Condition.String())
	}
	return fmt.Sprintf("when (%s): %s: did not hold", where, c.Condition.String())
}

// operationOf is the operation of req that the apply loop holds the
// files' operations (# kpatch:operations:) to; "" (no request) is CREATE.
func operationOf(req *admissionv1.AdmissionRequest) string {
	if req == nil {
		return ""
	}
	return string(req.Operation)
}
