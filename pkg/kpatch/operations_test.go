package kpatch

import (
	"errors"
	"strings"
	"testing"
)

// TestParseOperations: the operations a file applies on, in .kpatch
// comment lines and YAML metadata entries, in any case, comma or space
// separated; every one when the file says nothing.
func TestParseOperations(t *testing.T) {
	tests := []struct {
		file, src string
		want      Operations
		names     string
	}{
		{"f.kpatch", "[deployment.web]\nreplicas: 1\n", AllOperations, "CREATE, UPDATE"},
		{"f.kpatch", "# kpatch:operations: CREATE\n[deployment.web]\nreplicas: 1\n", OperationCreate, "CREATE"},
		{"f.kpatch", "# kpatch:operations: update  # why\n[deployment.web]\nreplicas: 1\n", OperationUpdate, "UPDATE"},
		{"f.kpatch", "# kpatch:operations: CREATE,Update\n[deployment.web]\nreplicas: 1\n", AllOperations, "CREATE, UPDATE"},
		{"f.kpatch", "# kpatch:operations: UPDATE CREATE UPDATE\n[deployment.web]\nreplicas: 1\n", AllOperations, "CREATE, UPDATE"},
		{"f.yaml", "- metadata: {operations: [CREATE]}\n- target: deployment.web\n  patch: {replicas: 1}\n", OperationCreate, "CREATE"},
		{"f.yaml", "- metadata: {operations: \"create, update\"}\n- target: deployment.web\n  patch: {replicas: 1}\n", AllOperations, "CREATE, UPDATE"},
	}
	for _, tt := range tests {
		f, err := ParseAny(tt.file, []byte(tt.src))
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		p, err := Compile(f)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got := p.Operations(); got != tt.want || got.String() != tt.names {
			t.Errorf("%q: operations %v (%d), want %s", tt.src, got, got, tt.names)
		}
	}
}

// TestOperationsHas: a set holds the operations a request names; "" is a
// CREATE; the zero set holds both; DELETE and CONNECT are never held.
func TestOperationsHas(t *testing.T) {
	for _, tc := range []struct {
		set  Operations
		op   string
		want bool
	}{
		{OperationCreate, "CREATE", true}, {OperationCreate, "", true}, {OperationCreate, "UPDATE", false},
		{OperationUpdate, "UPDATE", true}, {OperationUpdate, "CREATE", false}, {OperationUpdate, "", false},
		{0, "CREATE", true}, {0, "UPDATE", true}, {AllOperations, "DELETE", false}, {AllOperations, "CONNECT", false},
	} {
		if got := tc.set.Has(tc.op); got != tc.want {
			t.Errorf("%v has %q: %v, want %v", tc.set, tc.op, got, tc.want)
		}
	}
}

// TestParseOperationsErrors: an operation that is not CREATE or UPDATE,
// none, or the key twice is a syntax error at its line and column.
func TestParseOperationsErrors(t *testing.T) {
	tests := []struct{ name, file, src, want string }{
		{"delete", "f.kpatch", "# kpatch:operations: CREATE, DELETE\n[deployment.web]\nreplicas: 1\n", `f.kpatch:1:30: operations: "DELETE" is not CREATE or UPDATE`},
		{"star", "f.kpatch", "# kpatch:operations: *\n[deployment.web]\nreplicas: 1\n", `f.kpatch:1:22: operations: "*" is not CREATE or UPDATE`},
		{"empty", "f.kpatch", "# kpatch:operations: ,\n[deployment.web]\nreplicas: 1\n", "f.kpatch:1:22: operations: expected CREATE, UPDATE or both"},
		{"twice", "f.kpatch", "# kpatch:operations: CREATE\n# kpatch:operations: UPDATE\n[deployment.web]\nreplicas: 1\n", "f.kpatch:2:22: operations: given twice"},
		{"yaml item", "f.yaml", "- metadata:\n    operations: [CREATE, connect]\n", `f.yaml:2:26: operations: "connect" is not CREATE or UPDATE`},
		{"yaml text", "f.yaml", "- metadata:\n    operations: CREATE DELETE\n", `f.yaml:2:24: operations: "DELETE" is not CREATE or UPDATE`},
		{"yaml empty list", "f.yaml", "- metadata: {operations: []}\n", "f.yaml:1:26: operations: expected a list of CREATE, UPDATE or both"},
		{"yaml map", "f.yaml", "- metadata: {operations: {a: b}}\n", "f.yaml:1:26: operations: expected a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAny(tt.file, []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error %v is not ErrSyntax", err)
			}
		})
	}
}
