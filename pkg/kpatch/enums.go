package kpatch

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

//go:generate go run ./internal/enumgen -o enumvalues.go

// enumOf returns the values a string field of Go type t can hold, sorted,
// or nil when t is not an enum type of k8s.io/api and the field takes any
// string.
//
// The values are the constants k8s.io/api declares for the type
// (enumvalues.go). They are the set the API server's validation holds
// these fields to, checked against kube-apiserver for 24 of the types
// (core/v1 PullPolicy, RestartPolicy, DNSPolicy, Protocol, ServiceType,
// TaintEffect, ..., apps, batch, networking, policy, storage, discovery):
// every value outside them is refused as an unsupported value. Some
// values are accepted only with a feature gate or with another field
// (toleration operators Lt and Gt, dnsPolicy None with dnsConfig); they
// pass here and the API server judges them. A value that an API server
// newer than the k8s.io/api kpatch is built with adds is refused until
// kpatch is built with it.
func enumOf(t reflect.Type) []string {
	values, ok := enumValues[t.PkgPath()+"."+t.Name()]
	if !ok {
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

// EnumValues returns the values a string field of Go type t can hold,
// sorted, or nil when t is not an enum type of k8s.io/api: the set the
// compile-time checks hold values to, for the checks of a result.
func EnumValues(t reflect.Type) []string { return enumOf(t) }
