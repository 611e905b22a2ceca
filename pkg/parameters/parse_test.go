package parameters

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"kpatch.dev/kpatch/pkg/fileerr"
)

const issueSchema = `parameters:
- {name: image, type: string, required: true, description: "the image"}
- {name: replicas, type: integer, default: 2, minimum: 1, maximum: 50}
- {name: tier, type: string, enum: [gold, silver], default: silver, fromObject: true}
- {name: tlsSecret, type: string, default: "${values.app}-tls"}
- {name: app, type: string, default: web, pattern: "^[a-z-]+$"}
- {name: env, type: array}
- {name: canary, type: boolean, default: false}
- {name: ratio, type: number, minimum: 0, maximum: 1}
- {name: db, type: object, default: {host: db, port: 5432}}
`

func mustParse(t testing.TB, src string) *Schema {
	t.Helper()
	s, err := Parse("parameters.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseDeclarations(t *testing.T) {
	s := mustParse(t, issueSchema)
	if got, want := s.Names(), []string{"image", "replicas", "tier", "tlsSecret", "app", "env", "canary", "ratio", "db"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	image, _ := s.Lookup("image")
	if !image.Required() || image.Type() != String || image.Description() != "the image" || image.Ref() != "values.image" || image.Source().String() != "parameters.yaml:2:3" {
		t.Errorf("image: %+v", image)
	}
	if _, ok := image.Default(); ok {
		t.Error("image has no default")
	}
	replicas, _ := s.Lookup("replicas")
	if d, _ := replicas.Default(); d != int64(2) {
		t.Errorf("replicas default %#v", d)
	}
	if lo, _ := replicas.Minimum(); lo != int64(1) {
		t.Errorf("replicas minimum %#v", lo)
	}
	if hi, _ := replicas.Maximum(); hi != int64(50) {
		t.Errorf("replicas maximum %#v", hi)
	}
	ratio, _ := s.Lookup("ratio")
	if lo, _ := ratio.Minimum(); lo != float64(0) {
		t.Errorf("a number's bounds are float64: %#v", lo)
	}
	tier, _ := s.Lookup("tier")
	if !tier.FromObject() || !reflect.DeepEqual(tier.Enum(), []any{"gold", "silver"}) {
		t.Errorf("tier: %v %v", tier.FromObject(), tier.Enum())
	}
	tier.Enum()[0] = "changed"
	if tier.Enum()[0] != "gold" {
		t.Error("Enum returns the schema's own slice")
	}
	tls, _ := s.Lookup("tlsSecret")
	if d, _ := tls.Default(); d != "${values.app}-tls" {
		t.Errorf("a template default is returned as written: %#v", d)
	}
	app, _ := s.Lookup("app")
	if app.Pattern() != "^[a-z-]+$" {
		t.Errorf("pattern %q", app.Pattern())
	}
	canary, _ := s.Lookup("canary")
	if canary.Ref() != "features.canary" || canary.Type().Scope() != "features" {
		t.Errorf("a boolean is a feature: %s", canary.Ref())
	}
	db, _ := s.Lookup("db")
	d, _ := db.Default()
	d.(map[string]any)["host"] = "changed"
	if d2, _ := db.Default(); d2.(map[string]any)["host"] != "db" {
		t.Error("Default returns the schema's own map")
	}
	for _, ref := range []string{"values.db.host", "${features.canary}"} {
		if _, ok := s.ForRef(ref); !ok {
			t.Errorf("ForRef(%q) found nothing", ref)
		}
	}
	for _, ref := range []string{"values.canary", "features.app", "values.nope", "values"} {
		if p, ok := s.ForRef(ref); ok {
			t.Errorf("ForRef(%q) = %s", ref, p)
		}
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# nothing\n", "parameters:\n", "parameters: []\n"} {
		s := mustParse(t, src)
		if len(s.Parameters()) != 0 {
			t.Errorf("%q declares %v", src, s.Names())
		}
	}
}

// TestParseErrors checks every error of a schema: position, parameter,
// message and cause.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		cause     error
	}{
		{"not YAML at a line", "parameters:\n  a: b\n c: d\n", []string{`parameters.yaml:2:1: invalid YAML: did not find expected key`}, ErrSyntax},
		{"not YAML", "parameters:\n- {name: a\n", []string{`parameters.yaml:1:1: invalid YAML: did not find expected ',' or '}'`}, ErrSyntax},
		{"not a map", "- a\n", []string{`parameters.yaml:1:1: a parameter schema is a map with the list parameters:`}, ErrSyntax},
		{"unknown top key", "parameter:\n- {name: a, type: string}\n", []string{`parameters.yaml:1:1: unknown key "parameter"; expected parameters`}, ErrSyntax},
		{"not a list", "parameters: {a: 1}\n", []string{`parameters.yaml:1:13: parameters is a list of declarations (- name: ..., type: ...)`}, ErrSyntax},
		{"declaration not a map", "parameters:\n- a\n", []string{`parameters.yaml:2:3: parameter 1: a declaration is a map with name, type and more`}, ErrSyntax},
		{"no name", "parameters:\n- {type: string}\n", []string{`parameters.yaml:2:3: parameter 1 has no name`}, ErrSyntax},
		{"name not text", "parameters:\n- {name: 3, type: string}\n", []string{`parameters.yaml:2:10: parameter 1: the name must be text`}, ErrDeclaration},
		{"invalid name", "parameters:\n- {name: a.b, type: string}\n", []string{`parameters.yaml:2:10: parameter 1: invalid name "a.b": a name starts with a letter, holds letters, digits, '-' and '_', ends with a letter or digit, and has at most 63 characters (it is also the annotation key values.kpatch.dev/NAME)`}, ErrDeclaration},
		{"name ends with dash", "parameters:\n- {name: a-, type: string}\n", []string{`parameters.yaml:2:10: parameter 1: invalid name "a-"`}, ErrDeclaration},
		{"duplicate name", "parameters:\n- {name: a, type: string}\n- {name: a, type: integer}\n", []string{`parameters.yaml:3:10: parameter "a": declared twice; first at line 2`}, ErrDuplicate},
		{"unknown key", "parameters:\n- {name: a, type: string, defualt: x}\n", []string{`parameters.yaml:2:27: parameter "a": unknown key "defualt"; expected name, type, required, default, description, enum, pattern, minimum, maximum, fromObject`}, ErrSyntax},
		{"key twice", "parameters:\n- {name: a, type: string, type: integer}\n", []string{`parameters.yaml:2:27: parameter "a": key type is given twice`}, ErrDuplicate},
		{"no type", "parameters:\n- {name: a}\n", []string{`parameters.yaml:2:3: parameter "a": type is required; one of string, integer, number, boolean, array, object`}, ErrDeclaration},
		{"bad type", "parameters:\n- {name: a, type: int}\n", []string{`parameters.yaml:2:19: parameter "a": unknown type "int"; expected one of string, integer, number, boolean, array, object`}, ErrDeclaration},
		{"required not boolean", "parameters:\n- {name: a, type: string, required: maybe}\n", []string{`parameters.yaml:2:37: parameter "a": expected true or false, got the string "maybe"`}, ErrType},
		{"fromObject not boolean", "parameters:\n- {name: a, type: string, fromObject: 1}\n", []string{`parameters.yaml:2:39: parameter "a": expected true or false, got the number 1`}, ErrType},
		{"description not text", "parameters:\n- {name: a, type: string, description: [x]}\n", []string{`parameters.yaml:2:40: parameter "a": description must be text`}, ErrType},
		{"default of wrong type", "parameters:\n- {name: n, type: integer, default: two}\n", []string{`parameters.yaml:2:37: parameter "n": default: expected an integer, got the string "two"`}, ErrType},
		{"default not integral", "parameters:\n- {name: n, type: integer, default: 2.5}\n", []string{`parameters.yaml:2:37: parameter "n": default: expected an integer, got the number 2.5`}, ErrType},
		{"default number as text", "parameters:\n- {name: v, type: string, default: 1.10}\n", []string{`parameters.yaml:2:36: parameter "v": default: expected a string, got the number 1.1; quote it to make it text`}, ErrType},
		{"default boolean", "parameters:\n- {name: b, type: boolean, default: \"true\"}\n", []string{`parameters.yaml:2:37: parameter "b": default: expected a boolean, got the string "true"; write true or false`}, ErrType},
		{"default array", "parameters:\n- {name: e, type: array, default: {a: 1}}\n", []string{`parameters.yaml:2:35: parameter "e": default: expected an array, got a map`}, ErrType},
		{"default object", "parameters:\n- {name: o, type: object, default: [1]}\n", []string{`parameters.yaml:2:36: parameter "o": default: expected an object, got a list`}, ErrType},
		{"default null", "parameters:\n- {name: s, type: string, default: null}\n", []string{`parameters.yaml:2:36: parameter "s": default: expected a string, got null`}, ErrType},
		{"default infinite", "parameters:\n- {name: f, type: number, default: .inf}\n", []string{`parameters.yaml:2:36: parameter "f": .inf cannot be held in a Kubernetes object (JSON has no infinity or NaN); quote it for text`}, ErrType},
		{"default out of int64", "parameters:\n- {name: n, type: integer, default: 9223372036854775808}\n", []string{`parameters.yaml:2:37: parameter "n": integer "9223372036854775808" is out of range`}, ErrType},
		{"default below minimum", "parameters:\n- {name: n, type: integer, minimum: 1, default: 0}\n", []string{`parameters.yaml:2:49: parameter "n": default: 0 is less than the minimum 1`}, ErrRange},
		{"default above maximum", "parameters:\n- {name: n, type: number, maximum: 1.5, default: 2}\n", []string{`parameters.yaml:2:50: parameter "n": default: 2 is more than the maximum 1.5`}, ErrRange},
		{"default not in enum", "parameters:\n- {name: t, type: string, enum: [a, b], default: c}\n", []string{`parameters.yaml:2:50: parameter "t": default: "c" is not one of "a", "b"`}, ErrEnum},
		{"default not matching", "parameters:\n- {name: t, type: string, pattern: '^[a-z]+$', default: A1}\n", []string{`parameters.yaml:2:57: parameter "t": default: "A1" does not match the pattern ^[a-z]+$`}, ErrPattern},
		{"required with default", "parameters:\n- {name: t, type: string, required: true, default: a}\n", []string{`parameters.yaml:2:52: parameter "t": a required parameter has no default: drop required or the default`}, ErrDeclaration},
		{"enum of wrong type", "parameters:\n- {name: n, type: integer, enum: [1, two, 3]}\n", []string{`parameters.yaml:2:38: parameter "n": enum value: expected an integer, got the string "two"`}, ErrType},
		{"enum yes is a boolean", "parameters:\n- {name: s, type: string, enum: [yes, no]}\n", []string{`parameters.yaml:2:34: parameter "s": enum value: expected a string, got the boolean true; quote it to make it text`, `parameters.yaml:2:39: parameter "s": enum value: expected a string, got the boolean false; quote it to make it text`}, ErrType},
		{"enum empty", "parameters:\n- {name: s, type: string, enum: []}\n", []string{`parameters.yaml:2:33: parameter "s": enum is a non-empty list of the allowed values`}, ErrDeclaration},
		{"enum on boolean", "parameters:\n- {name: b, type: boolean, enum: [true]}\n", []string{`parameters.yaml:2:34: parameter "b": enum applies to string, integer and number parameters, not to a boolean`}, ErrDeclaration},
		{"min above max", "parameters:\n- {name: n, type: integer, minimum: 5, maximum: 1}\n", []string{`parameters.yaml:2:37: parameter "n": minimum 5 is more than maximum 1`}, ErrDeclaration},
		{"min of wrong type", "parameters:\n- {name: n, type: integer, minimum: 0.5}\n", []string{`parameters.yaml:2:37: parameter "n": minimum: expected an integer, got the number 0.5`}, ErrType},
		{"max on a string", "parameters:\n- {name: s, type: string, maximum: 3}\n", []string{`parameters.yaml:2:36: parameter "s": maximum applies to integer and number parameters, not to a string`}, ErrDeclaration},
		{"invalid pattern", "parameters:\n- {name: s, type: string, pattern: 'a(b'}\n", []string{"parameters.yaml:2:36: parameter \"s\": invalid pattern: missing closing ): `a(b`"}, ErrDeclaration},
		{"backtracking pattern", "parameters:\n- {name: s, type: string, pattern: '(a)\\1'}\n", []string{"parameters.yaml:2:36: parameter \"s\": invalid pattern: invalid escape sequence: `\\1`"}, ErrDeclaration},
		{"pattern on integer", "parameters:\n- {name: n, type: integer, pattern: x}\n", []string{`parameters.yaml:2:37: parameter "n": pattern applies to string parameters, not to an integer`}, ErrDeclaration},
		{"merge key", "parameters:\n- &a {name: a, type: string}\n- {<<: *a, name: b}\n", []string{`parameters.yaml:3:3: parameter "b": type is required`, `parameters.yaml:3:4: parameter "b": merge keys (<<) are not supported`}, nil},
		{"every error", "parameters:\n- {name: a, type: int}\n- {name: b, type: integer, default: x}\n- {type: string}\n", []string{
			`parameters.yaml:2:19: parameter "a": unknown type "int"`,
			`parameters.yaml:3:37: parameter "b": default: expected an integer`,
			`parameters.yaml:4:3: parameter 3 has no name`,
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("parameters.yaml", []byte(tt.src))
			if s != nil || err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			checkErrors(t, err, tt.want, tt.cause)
		})
	}
}

// checkErrors compares err, a fileerr.List of *Error, with the wanted
// messages: each a prefix of its error's message.
func checkErrors(t *testing.T, err error, want []string, cause error) {
	t.Helper()
	var list fileerr.List
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not a fileerr.List: %v", err, err)
	}
	if len(list) != len(want) {
		t.Fatalf("%d errors:\n%v\nwant %d:\n%s", len(list), err, len(want), strings.Join(want, "\n"))
	}
	for i, e := range list {
		var pe *Error
		if !errors.As(e, &pe) {
			t.Fatalf("error %T is not an *Error", e)
		}
		if !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("error %d:\n got %s\nwant %s", i, e, want[i])
		}
		if cause != nil && !errors.Is(e, cause) {
			t.Errorf("error %q is not %v", e, cause)
		}
	}
}

func TestParseDefaultsErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		cause     error
	}{
		{"undeclared", "parameters:\n- {name: a, type: string, default: '${values.b}-x'}\n", []string{`parameters.yaml:2:36: parameter "a": default uses ${values.b}: "b" is not declared`}, ErrUndeclared},
		{"wrong scope", "parameters:\n- {name: a, type: string, default: 'x-${values.f}'}\n- {name: f, type: boolean}\n", []string{`parameters.yaml:2:36: parameter "a": default uses ${values.f}: f is a boolean parameter, read as ${features.f}`}, ErrUndeclared},
		{"whole of another type", "parameters:\n- {name: a, type: string, default: '${values.n}'}\n- {name: n, type: integer}\n", []string{`parameters.yaml:2:36: parameter "a": default uses ${values.n}: n is an integer; this parameter is a string`}, ErrType},
		{"text into an integer", "parameters:\n- {name: a, type: integer, default: '${values.n}0'}\n- {name: n, type: integer}\n", []string{`parameters.yaml:2:37: parameter "a": default uses ${values.n}: a default that mixes text and variables is text; this parameter is an integer`}, ErrType},
		{"array into text", "parameters:\n- {name: a, type: string, default: 'x${values.e}'}\n- {name: e, type: array}\n", []string{`parameters.yaml:2:36: parameter "a": default uses ${values.e}: e is an array, which cannot be spliced into text`}, ErrType},
		{"key of a string", "parameters:\n- {name: a, type: string, default: '${values.s.k}'}\n- {name: s, type: string}\n", []string{`parameters.yaml:2:36: parameter "a": default uses ${values.s.k}: s is a string, not an object`}, ErrType},
		{"bad variable", "parameters:\n- {name: a, type: string, default: '${value.b}'}\n", []string{`parameters.yaml:2:36: parameter "a": default: unknown variable ${value.b}; expected ${values.NAME} or ${features.NAME}`}, ErrSyntax},
		{"unclosed variable", "parameters:\n- {name: a, type: string, default: '${values.b'}\n", []string{`parameters.yaml:2:36: parameter "a": default: variable is not closed; expected '}' (write $${ for a literal ${)`}, ErrSyntax},
		{"self", "parameters:\n- {name: a, type: string, default: '${values.a}'}\n", []string{`parameters.yaml:2:36: parameter "a": defaults form a cycle: a -> a`}, ErrCycle},
		{"cycle", "parameters:\n- {name: a, type: string, default: 'a${values.b}'}\n- {name: b, type: string, default: 'b${values.c}'}\n- {name: c, type: string, default: '${values.a}'}\n- {name: d, type: string, default: '${values.c}'}\n",
			[]string{`parameters.yaml:2:36: parameter "a": defaults form a cycle: a -> b -> c -> a`}, ErrCycle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("parameters.yaml", []byte(tt.src))
			checkErrors(t, err, tt.want, tt.cause)
		})
	}
}

// TestNamesAreAnnotationKeys checks that every valid name is the name of
// an annotation key values.kpatch.dev/NAME, by Kubernetes' own rule.
func TestNamesAreAnnotationKeys(t *testing.T) {
	for _, name := range []string{"a", "tier", "tls-secret", "db_host", "A1", strings.Repeat("x", 63)} {
		if !nameRE.MatchString(name) {
			t.Errorf("%q is not a name", name)
		}
		if errs := validation.IsQualifiedName(AnnotationPrefix + name); len(errs) > 0 {
			t.Errorf("%q: %v", name, errs)
		}
	}
	for _, name := range []string{"_a", "1a", "a-", "-a", "a.b", "a/b", "", strings.Repeat("x", 64)} {
		if nameRE.MatchString(name) {
			t.Errorf("%q is a name", name)
		}
	}
}
