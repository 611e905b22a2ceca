package parameters

import (
	"reflect"
	"slices"
	"testing"
)

func TestUsage(t *testing.T) {
	s := mustParse(t, issueSchema)
	u := s.Usage([]string{
		"values.image", "${values.replicas}", "values.db.host", "features.canary", "values.tlsSecret",
		"values.canary", "values.nope", "values.nope", "features.tier", "object.name", "namespace.labels.app.kubernetes.io/name", "object.uid",
	})
	var unused []string
	for _, p := range u.Unused {
		unused = append(unused, p.Name())
	}
	// app is used by tlsSecret's default
	if want := []string{"tier", "env", "ratio"}; !reflect.DeepEqual(unused, want) {
		t.Errorf("unused %v, want %v", unused, want)
	}
	if want := []string{"features.tier", "object.uid", "values.canary", "values.nope"}; !reflect.DeepEqual(u.Undeclared, want) {
		t.Errorf("undeclared %v, want %v", u.Undeclared, want)
	}
}

func TestBuiltins(t *testing.T) {
	b := &Builtins{
		ObjectName: "web", ObjectNamespace: "team-a",
		NamespaceLabels:      map[string]string{"app.kubernetes.io/name": "shop", "team": "a"},
		NamespaceAnnotations: map[string]string{"cost-centre": "42"},
	}
	tests := []struct {
		ref, want string
		ok        bool
	}{
		{"object.name", "web", true},
		{"object.namespace", "team-a", true},
		{"namespace.labels.team", "a", true},
		{"namespace.labels.app.kubernetes.io/name", "shop", true},
		{"namespace.annotations.cost-centre", "42", true},
		{"namespace.labels.missing", "", false},
		{"namespace.labels.", "", false},
		{"object.uid", "", false},
		{"values.x", "", false},
	}
	for _, tt := range tests {
		got, ok := b.Lookup(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Lookup(%q) = %q, %v", tt.ref, got, ok)
		}
		if IsBuiltin(tt.ref) != (tt.ok || tt.ref == "namespace.labels.missing") {
			t.Errorf("IsBuiltin(%q) = %v", tt.ref, IsBuiltin(tt.ref))
		}
	}
}

func TestInputs(t *testing.T) {
	s, err := Parse("parameters.yaml", []byte(`parameters:
- {name: app, type: string, default: web}
- {name: tls, type: string, default: "${values.app}-tls"}
- {name: url, type: string, default: "https://${values.tls}"}
- {name: tier, type: string}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Inputs("url", "nope"); !slices.Equal(got, []string{"app", "tls", "url"}) {
		t.Errorf("Inputs(url) = %v", got)
	}
	if got := s.Inputs("tier"); !slices.Equal(got, []string{"tier"}) {
		t.Errorf("Inputs(tier) = %v", got)
	}
	if got := (*Schema)(nil).Inputs("a"); got != nil {
		t.Errorf("nil schema: %v", got)
	}
}
