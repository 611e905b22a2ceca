package kpatch

import "testing"

func TestSuggestKind(t *testing.T) {
	tests := []struct{ name, kind, why string }{
		{"deployments", "deployment", "plural"},
		{"Ingresses", "ingress", "plural"},
		{"networkpolicies", "networkpolicy", "plural"},
		{"deploy", "deployment", "short name"},
		{"svc", "service", "short name"},
		{"crds", "customresourcedefinition", "short name"},
		{"deploymnet", "deployment", "near miss"},
		{"ingres", "ingress", "near miss"},
		{"endpoint", "endpoints", "near miss"},
		{"configmpas", "configmap", "near miss"},
		{"widget", "", ""},
		{"rule", "", ""}, // four letters: too close to too much
		{"certificate", "", ""},
		{"servicemonitor", "", ""},
	}
	for _, tt := range tests {
		kind, why, ok := suggestKind(tt.name)
		if kind != tt.kind || why != tt.why || ok != (tt.kind != "") {
			t.Errorf("suggestKind(%q) = %q, %q, %v; want %q, %q", tt.name, kind, why, ok, tt.kind, tt.why)
		}
	}
}

func TestNearMiss(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"deployment", "deploymnet", true}, {"deployment", "deploymen", true}, {"deployment", "deployments", true},
		{"deployment", "deplXyment", true}, {"deployment", "deployment", false}, {"deployment", "depl", false},
		{"deployment", "dpeloyment", true}, {"deployment", "dpelyoment", false}, {"abc", "acb", true}, {"", "a", true},
	} {
		if got := nearMiss(tt.a, tt.b); got != tt.want {
			t.Errorf("nearMiss(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

// BenchmarkSuggestKind looks up a custom resource's kind, which resembles
// no built-in kind: every kind and plural is compared.
func BenchmarkSuggestKind(b *testing.B) {
	suggestKind("warmup")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := suggestKind("servicemonitor"); ok {
			b.Fatal("servicemonitor is not a built-in kind")
		}
	}
}
