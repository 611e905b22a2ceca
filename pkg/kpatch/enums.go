package kpatch

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

//go:generate go run ./internal/enumgen -o enumvalues.go

// openEnums are the +enum types whose constants are not every value the
// API server accepts, with why; their fields take any string.
var openEnums = map[string]string{}

// enumOf returns the values a string field of Go type t can hold, sorted,
// or nil when it takes any string: t is not an enum type of k8s.io/api,
// or one whose constants the API server does not hold it to.
func enumOf(t reflect.Type) []string {
	key := t.PkgPath() + "." + t.Name()
	values, ok := enumValues[key]
	if !ok || openEnums[key] != "" {
		return nil
	}
	values = slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" })
	slices.Sort(values)
	return values
}

// enumProblem reports a value outside the values of an enum field, with
// the value it most likely means. The empty string passes: it leaves the
// choice to the API server's default, as an absent field does.
func (n *typeNode) enumProblem(s string) *problem {
	if n.enum == nil || s == "" || slices.Contains(n.enum, s) {
		return nil
	}
	return errorf(ErrValue, "%s is not one of %s%s", strconv.Quote(s), strings.Join(n.enum, ", "), didYouMean(s, n.enum))
}
