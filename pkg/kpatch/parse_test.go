package kpatch

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		pos       string // file:line:col of the first error
		sentinel  error
		msg       string // a part of the message
	}{
		{"entry before header", "replicas: 3\n", "f:1:1", ErrSyntax, "before the first header"},
		{"header not closed", "[deployment.web\n", "f:1:1", ErrSyntax, "not closed"},
		{"text after header", "[deployment.web] x\n", "f:1:17", ErrSyntax, "stands alone"},
		{"no name", "[deployment]\n", "f:1:12", ErrSyntax, "name after the kind"},
		{"empty name", "[deployment.]\n", "f:1:13", ErrSyntax, "expected a name"},
		{"bad kind", "[9deployment.web]\n", "f:1:2", ErrSyntax, "expected a kind"},
		{"bad group", "[deployment(a_b).web]\n", "f:1:13", ErrSyntax, "invalid API group"},
		{"group not closed", "[deployment(apps.web]\n", "f:1:12", ErrSyntax, "not closed"},
		{"bare insertion", "[deployment.web]\nargs.-: x\n", "f:2:6", ErrSyntax, "must be bracketed"},
		{"bare insertion in header", "[deployment.web.containers.-1]\n", "f:1:28", ErrSyntax, "must be bracketed"},
		{"empty segment", "[deployment.web]\na..b: 1\n", "f:2:3", ErrSyntax, "empty segment"},
		{"trailing dot", "[deployment.web]\na.: 1\n", "f:2:3", ErrSyntax, "ends with '.'"},
		{"bracket not closed", "[deployment.web]\nenv[name=x.value: 1\n", "f:2:4", ErrSyntax, "not closed"},
		{"empty brackets", "[deployment.web]\nenv[]: 1\n", "f:2:5", ErrSyntax, "empty brackets"},
		{"no separator", "[deployment.web]\nreplicas 3\n", "f:2:1", ErrSyntax, "expected `key: value`"},
		{"no key", "[deployment.web]\n: 3\n", "f:2:1", ErrSyntax, "no key"},
		{"selector without key", "[deployment.web]\nenv[=x].value: 1\n", "f:2:5", ErrSyntax, "no key"},
		{"ambiguous bare value", "[deployment.web]\nenv.name=a=b.value: 1\n", "f:2:11", ErrSyntax, "bracket the selector"},
		{"insertion not last in key", "[deployment.web]\ncontainers[-].name: x\n", "f:2:11", ErrSyntax, "must end the key"},
		{"insertion not last in header", "[deployment.web.containers[-].env]\nname: x\n", "f:1:27", ErrSyntax, "must end the header"},
		{"insertion header without entries", "[deployment.web.containers[-]]\n", "f:1:27", ErrSyntax, "needs entries"},
		{"delete header with entries", "[deployment.web.env[delete=name=x]]\nname: x\n", "f:1:20", ErrSyntax, "takes no entries"},
		{"delete with a value", "[deployment.web]\nlabels.x[delete]: yes\n", "f:2:19", ErrSyntax, "takes no value"},
		{"delete in the middle", "[deployment.web]\nlabels[delete].x:\n", "f:2:7", ErrSyntax, "start or at the end"},
		{"insertion without selector", "[deployment.web]\nargs[+x]: 1\n", "f:2:7", ErrSyntax, "index or key=value"},
		{"list value", "[deployment.web]\nargs: [a, b]\n", "f:2:7", ErrValue, "YAML patch format"},
		{"map value", "[deployment.web]\nx: {a: 1}\n", "f:2:4", ErrValue, "YAML patch format"},
		{"block scalar", "[deployment.web]\nx: |\n", "f:2:4", ErrValue, "block scalars"},
		{"sequence value", "[deployment.web]\nx: - a\n", "f:2:4", ErrValue, "scalars"},
		{"quote not closed", "[deployment.web]\nx: \"abc\n", "f:2:4", ErrSyntax, "not closed"},
		{"text after quote", "[deployment.web]\nx: \"abc\" d\n", "f:2:9", ErrSyntax, "after the quoted value"},
		{"bad escape", "[deployment.web]\nx: \"a\\qb\"\n", "f:2:4", ErrSyntax, "double-quoted"},
		{"unknown scope", "[deployment.web]\nx: ${env.HOME}\n", "f:2:4", ErrSyntax, "unknown variable"},
		{"variable not closed", "[deployment.web]\nx: a-${values.x\n", "f:2:6", ErrSyntax, "not closed"},
		{"bad variable name", "[deployment.web]\nx: ${values.a b}\n", "f:2:4", ErrSyntax, "invalid variable name"},
		{"hex overflow", "[deployment.web]\nx: 0x1FFFFFFFFFFFFFFFFF\n", "f:2:4", ErrValue, "out of range"},
		{"infinity", "[deployment.web]\nx: .inf\n", "f:2:4", ErrValue, "infinity"},
		{"invalid UTF-8", "[deployment.web]\nx: a\xffb\n", "f:2:5", ErrEncoding, "UTF-8"},
		{"delete of an insertion", "[deployment.web]\n[delete]containers[name=app].args[-]:\n", "f:2:1", ErrSyntax, "an insertion cannot be deleted"},
		{"delete under an insertion header", "[deployment.web.containers[-]]\nname: app\n  args[delete]:\n", "f:3:3", ErrSyntax, "cannot delete"},
		{"unclosed variable in quotes", "[deployment.web]\n  annotations.a: \"ab${values.x\"\n", "f:2:21", ErrSyntax, "not closed"},
		{"bracket in a bare selector value", "[a.b]\nx[k=[v]: 1\n", "f:2:5", ErrSyntax, "quote the value"},
		{"variable in a path", "[deployment.web]\nenv[name=${values.x}].value: 1\n", "f:2:10", ErrSyntax, "variables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseString("f", tt.src)
			if err == nil {
				t.Fatal("no error")
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not an ErrorList", err)
			}
			var pe *ParseError
			if !errors.As(list[0], &pe) {
				t.Fatalf("first error %T is not a *ParseError", list[0])
			}
			if got := pe.Pos.String(); got != tt.pos {
				t.Errorf("position %s, want %s (%v)", got, tt.pos, pe)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("error %v is not %v", err, tt.sentinel)
			}
			if !strings.Contains(pe.Error(), tt.msg) {
				t.Errorf("message %q does not contain %q", pe.Error(), tt.msg)
			}
			if !strings.HasPrefix(pe.Error(), tt.pos+": ") {
				t.Errorf("message %q does not start with its position", pe.Error())
			}
		})
	}
}

func TestParseReportsEveryError(t *testing.T) {
	src := "orphan: 1\n[deployment.web]\nok: 1\nbad\n[service.x.ports[]]\nport: 1\nlast: [1]\n"
	_, err := ParseString("f.kpatch", src)
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.(*ParseError).Pos.String())
	}
	want := []string{"f.kpatch:1:1", "f.kpatch:4:1", "f.kpatch:5:18", "f.kpatch:7:7"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("positions %v, want %v\n%v", got, want, err)
	}
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		text string
		want any
	}{
		{"3", int64(3)}, {"-7", int64(-7)}, {"+5", int64(5)}, {"007", int64(7)},
		{"0x1F", int64(31)}, {"0o17", int64(15)}, {"1.5", 1.5}, {"1e3", 1000.0}, {".5", 0.5},
		{"true", true}, {"False", false}, {"TRUE", true}, {"yes", "yes"}, {"on", "on"},
		{"null", nil}, {"~", nil}, {"", nil}, {"NULL", nil},
		{`"3"`, "3"}, {`'it''s'`, "it's"}, {`"a\tb"`, "a\tb"}, {`"\u00e9"`, "é"},
		{"500m", "500m"}, {"nginx:1.25", "nginx:1.25"}, {"a # comment", "a"}, {"a#b", "a#b"},
		{`"a # b"`, "a # b"}, {"--verbose", "--verbose"}, {"-", "-"}, {"*", "*"},
		{"$${HOME}", "${HOME}"}, {`"$${x}"`, "${x}"}, {"1.2.3", "1.2.3"}, {"0x", "0x"},
		{"12345678901234567890", json.Number("12345678901234567890")}, {"+99999999999999999999", json.Number("99999999999999999999")},
	}
	for _, tt := range tests {
		f, err := ParseString("f", "[configmap.x]\nk: "+tt.text+"\n")
		if err != nil {
			t.Errorf("%q: %v", tt.text, err)
			continue
		}
		v := f.Sections[0].Entries[0].Value
		if v.IsTemplate() || !reflect.DeepEqual(v.Scalar, tt.want) {
			t.Errorf("%q: got %#v, want %#v", tt.text, v.Scalar, tt.want)
		}
	}
}

func TestParseTemplates(t *testing.T) {
	f, err := ParseString("f", "[configmap.x]\na: ${values.n}\nb: \"${values.n}\"\nc: ${values.a}.${features.b}-$${x}\n")
	if err != nil {
		t.Fatal(err)
	}
	e := f.Sections[0].Entries
	if ref := e[0].Value.wholeVar(); ref == nil || ref.String() != "${values.n}" {
		t.Errorf("a: whole variable %v", ref)
	}
	if e[1].Value.wholeVar() != nil {
		t.Error("b: a quoted variable is spliced as text, not typed")
	}
	var parts []string
	for _, p := range e[2].Value.Parts {
		if p.Var != nil {
			parts = append(parts, p.Var.String())
		} else {
			parts = append(parts, "'"+p.Text+"'")
		}
	}
	if got := strings.Join(parts, " "); got != "${values.a} '.' ${features.b} '-${x}'" {
		t.Errorf("c: parts %s", got)
	}
}

func TestParsePaths(t *testing.T) {
	tests := []struct{ key, want string }{
		{"replicas", "replicas"},
		{"labels[app.kubernetes.io/name]", "labels[app.kubernetes.io/name]"},
		{"labels.[app.kubernetes.io/name]", "labels[app.kubernetes.io/name]"},
		{`labels.app\.kubernetes\.io/name`, "labels[app.kubernetes.io/name]"},
		{"env[name=LOG].value", `env[name=LOG].value`},
		{"env.name=LOG.value", `env.name=LOG.value`},
		{"containers.name=my-app.ports.0", `containers.name=my-app.ports.0`},
		{"containers[image.name=main]", `containers[image.name=main]`},
		{`ports[name="a.b"]`, `ports[name="a.b"]`},
		{`ports.name=a\.b`, `ports[name="a.b"]`}, {`env[name=""]`, `env[name=""]`}, {`env[name="A B"]`, `env[name="A B"]`},
		{"args[-]", "args[-]"}, {"args[-2]", "args[-2]"}, {"args[+0]", "args[+0]"},
		{"args[+last]", "args[+last]"}, {"args[-len]", "args[-len]"},
		{"c[-name=x]", `c[-name=x]`}, {"c[+name=x]", `c[+name=x]`},
		{"c[*].image", "c[*].image"}, {"c.*.image", "c[*].image"},
		{"labels.x[delete]", "labels.x[delete]"}, {"[delete]labels.x", "[delete].labels.x"},
		{"env[delete=name=x]", `env[delete=name=x]`}, {"env[delete=2]", "env[delete=2]"},
		{`data.\ `, `data.\ `}, {`data.a\ `, `data.a\ `}, {`data.a\\ `, `data.a\\`}, // an escaped last blank stays
	}
	for _, tt := range tests {
		f, err := ParseString("f", "[deployment.web]\n"+tt.key+":\n")
		if err != nil {
			t.Errorf("%s: %v", tt.key, err)
			continue
		}
		if got := f.Sections[0].Entries[0].Key.String(); got != tt.want {
			t.Errorf("%s: printed %s, want %s", tt.key, got, tt.want)
		}
	}
}

func TestParseTargets(t *testing.T) {
	tests := []struct{ header, want string }{
		{"[deployment.web]", "deployment.web"},
		{"[Deployment.web-*]", "Deployment.web-*"},
		{"[prod/deployment.web]", "prod/deployment.web"},
		{"[prod-*/deployment.*]", "prod-*/deployment.*"},
		{"[deployment(apps).web]", "deployment(apps).web"},
		{"[widget(example.com/v1).w]", "widget(example.com/v1).w"},
		{"[configmap(core).x]", "configmap(core).x"},
		{"[configmap.[my.settings]]", "configmap.[my.settings]"},
		{`[configmap.my\.settings]`, "configmap.[my.settings]"},
	}
	for _, tt := range tests {
		f, err := ParseString("f", tt.header+"\n")
		if err != nil {
			t.Errorf("%s: %v", tt.header, err)
			continue
		}
		if got := f.Sections[0].Target.String(); got != tt.want {
			t.Errorf("%s: printed %s, want %s", tt.header, got, tt.want)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true}, {"*", "web", true}, {"web-*", "web-1", true}, {"web-*", "web", false},
		{"w?b", "web", true}, {"w?b", "wb", false}, {"*-canary", "api-canary", true},
		{"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false}, {`web\*`, "web*", true}, {`web\*`, "web1", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v", tt.pattern, tt.s, got)
		}
	}
}

// TestParsePrintRoundTrip prints every file of the test corpora and checks
// that the print parses back to the same syntax tree.
func TestParsePrintRoundTrip(t *testing.T) {
	files := corpusFiles(t)
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(name, src)
		if err != nil {
			continue // error cases have nothing to print
		}
		assertRoundTrip(t, f)
	}
	// quoted selector values holding brackets and colons
	for _, src := range []string{"[a.b]\nx[k=\"[v\"]:\n", "[a.b.c[k=\"]: [\"]]\nd: 1\n", "[a.b]\nx[k=\"a: b\"].y: 1\n"} {
		f, err := ParseString("inline.kpatch", src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		assertRoundTrip(t, f)
	}
}

func assertRoundTrip(t *testing.T, f *File) {
	t.Helper()
	printed := f.String()
	g, err := ParseString(f.Name, printed)
	if err != nil {
		t.Fatalf("%s: the print does not parse: %v\n%s", f.Name, err, printed)
	}
	if !reflect.DeepEqual(stripPositions(f), stripPositions(g)) {
		t.Fatalf("%s: the print parses to another tree\n%s", f.Name, printed)
	}
	if again := g.String(); again != printed {
		t.Fatalf("%s: printing is not stable\n%s\n---\n%s", f.Name, printed, again)
	}
}

// stripPositions returns a copy of f without positions or source spelling.
func stripPositions(f *File) *File {
	out := &File{Name: f.Name}
	strip := func(p Path) Path {
		q := make(Path, len(p))
		for i, s := range p {
			s.Col, s.Bracketed = 0, false
			q[i] = s
		}
		return q
	}
	for _, s := range f.Sections {
		ns := &Section{Target: s.Target, Path: strip(s.Path)}
		for _, e := range s.Entries {
			ns.Entries = append(ns.Entries, &Entry{Key: strip(e.Key), Value: e.Value, IfAbsent: e.IfAbsent})
		}
		out.Sections = append(out.Sections, ns)
	}
	return out
}

// corpusFiles lists the patch files of the conformance suite and of this
// package's test data.
func corpusFiles(t testing.TB) []string {
	var files []string
	for _, pattern := range []string{"../../test/conformance/testdata/*/*.kpatch", "testdata/*/*.kpatch"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d corpus files", len(files))
	}
	return files
}
