package parameters

import (
	"errors"
	"slices"
	"testing"

	"kpatch.dev/kpatch/pkg/fileerr"
)

// FuzzParseSchema checks that any input parses or fails with positioned
// errors naming their cause, in file order, and that a schema that parses
// resolves its defaults without panicking.
func FuzzParseSchema(f *testing.F) {
	f.Add([]byte(issueSchema))
	f.Add([]byte("parameters:\n- {name: a, type: string, default: '${values.b}'}\n- {name: b, type: string, default: '${values.a}'}\n"))
	f.Add([]byte("parameters:\n- &x {name: a, type: object, default: {k: [1, 2.5, yes]}}\n- {name: b, type: integer, default: '${values.a.k}'}\n"))
	f.Add([]byte("parameters:\n- {name: n, type: number, minimum: -1e3, maximum: 0x10, enum: [1, 2], default: 2}\n"))
	f.Add([]byte("parameters:\n- {name: s, type: string, pattern: '^a+$', default: \"$${x}\", fromObject: true}\n- name: f\n  type: boolean\n  required: true\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Parse("parameters.yaml", src)
		if err != nil {
			checkPositioned(t, err)
			return
		}
		var refs []string
		for _, p := range s.Parameters() {
			refs = append(refs, p.Ref())
			p.Default()
			p.Enum()
		}
		if u := s.Usage(refs); len(u.Unused) != 0 || len(u.Undeclared) != 0 {
			t.Fatalf("every parameter is used, yet %v", u)
		}
		vars, err := s.Resolve()
		if vars == nil {
			t.Fatal("no variables")
		}
		for _, e := range flatten(err) {
			var pe *Error
			if !errors.As(e, &pe) || pe.Param == "" || pe.Err == nil {
				t.Fatalf("a resolve error without parameter or cause: %#v", e)
			}
		}
	})
}

func checkPositioned(t *testing.T, err error) {
	t.Helper()
	var list fileerr.List
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %T is not a non-empty ErrorList", err)
	}
	for _, e := range list {
		var pe *Error
		if !errors.As(e, &pe) || pe.Source.Line < 1 || pe.Source.Column < 1 || pe.Err == nil {
			t.Fatalf("error without position or cause: %#v", e)
		}
	}
	if !slices.IsSortedFunc(list, func(a, b error) int {
		sa, sb := a.(*Error).Source, b.(*Error).Source
		if sa.Line != sb.Line {
			return sa.Line - sb.Line
		}
		return sa.Column - sb.Column
	}) {
		t.Fatalf("errors out of order: %v", err)
	}
}

// FuzzResolveValues reads any values file and any annotation text for
// every parameter of a schema: no panic, and every error names its
// parameter's source and its cause.
func FuzzResolveValues(f *testing.F) {
	f.Add([]byte("values:\n  image: nginx\n  replicas: 3\nfeatures:\n  canary: yes\n"), "3")
	f.Add([]byte("values: {image: 1.10, db: {a: [1, {b: .inf}]}}\n"), `[{"name": "A"}]`)
	f.Add([]byte("features: {canary: 1}\nvalues: {env: x}\n"), "1e400")
	s, err := Parse("parameters.yaml", []byte(issueSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte, text string) {
		l, err := ParseValues("values.yaml", src)
		if err != nil {
			checkPositioned(t, err)
			return
		}
		annotations := map[string]string{}
		for _, name := range s.Names() {
			annotations[AnnotationPrefix+name] = text
		}
		vars, err := s.Resolve(l, NamespaceAnnotations("n", annotations), ObjectAnnotations("o", annotations))
		if vars == nil {
			t.Fatal("no variables")
		}
		for _, e := range flatten(err) {
			var pe *Error
			if !errors.As(e, &pe) || pe.Source.Name == "" || pe.Err == nil {
				t.Fatalf("an error without source or cause: %#v", e)
			}
		}
		var none *Schema
		if _, err := none.Resolve(l); err != nil {
			checkPositioned(t, err)
		}
	})
}
