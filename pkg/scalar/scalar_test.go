package scalar

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"kpatch.dev/kpatch/pkg/fileerr"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		text   string
		want   any
		raw    string
		quoted bool
	}{
		{"", nil, "", false},
		{"# only a comment", nil, "", false},
		{"~", nil, "~", false},
		{"Null", nil, "Null", false},
		{"TRUE", true, "TRUE", false},
		{"false # off", false, "false", false},
		{"yes", "yes", "yes", false}, // YAML 1.2: text
		{"42", int64(42), "42", false},
		{"+7", int64(7), "+7", false},
		{"0o17", int64(15), "0o17", false},
		{"0x1F", int64(31), "0x1F", false},
		{"1.10", 1.1, "1.10", false},
		{"-.5e3", -500.0, "-.5e3", false},
		{"123456789012345678901234567890", json.Number("123456789012345678901234567890"), "123456789012345678901234567890", false},
		{"+123456789012345678901234567890", json.Number("123456789012345678901234567890"), "+123456789012345678901234567890", false},
		{"1.2.3", "1.2.3", "1.2.3", false},
		{"web#1", "web#1", "web#1", false},
		{"web \t# comment", "web", "web", false},
		{`"1.10"`, "1.10", `"1.10"`, true},
		{`"a\tb" # c`, "a\tb", `"a\tb"`, true},
		{`'it''s'`, "it's", `'it''s'`, true},
		{`"${values.x}"`, "${values.x}", `"${values.x}"`, true},
		{"${values.x}", "${values.x}", "${values.x}", false},
	} {
		got, err := Parse(c.text)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.text, err)
			continue
		}
		if got.Value != c.want || got.Raw != c.raw || got.Quoted != c.quoted {
			t.Errorf("Parse(%q) = %#v, want %#v %q quoted=%v", c.text, got, c.want, c.raw, c.quoted)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		text   string
		cause  error
		offset int
		msg    string
	}{
		{`"open`, fileerr.ErrSyntax, 0, "quoted value is not closed; expected \""},
		{`'a' b`, fileerr.ErrSyntax, 3, "unexpected text after the quoted value"},
		{`"a"b`, fileerr.ErrSyntax, 3, "unexpected text after the quoted value"},
		{`"\q"`, fileerr.ErrSyntax, 0, "invalid double-quoted value"},
		{"[1, 2]", fileerr.ErrValue, 0, "values are scalars; a list or map"},
		{"{a: 1}", fileerr.ErrValue, 0, "values are scalars; a list or map"},
		{"|", fileerr.ErrValue, 0, "block scalars are not values"},
		{"- a", fileerr.ErrValue, 0, "values are scalars; a list needs"},
		{".inf", fileerr.ErrValue, 0, ".inf cannot be held in a Kubernetes object"},
		{"1e999", fileerr.ErrValue, 0, "number 1e999 is out of range"},
		{"0x10000000000000000", fileerr.ErrValue, 0, "integer 0x10000000000000000 is out of range"},
	} {
		_, err := Parse(c.text)
		if err == nil {
			t.Errorf("Parse(%q) accepted", c.text)
			continue
		}
		if !errors.Is(err, c.cause) || err.Offset != c.offset || len(err.Msg) < len(c.msg) || err.Msg[:len(c.msg)] != c.msg {
			t.Errorf("Parse(%q) = %v at %d (%v), want %q at %d (%v)", c.text, err, err.Offset, err.Err, c.msg, c.offset, c.cause)
		}
	}
}

func TestLiteral(t *testing.T) {
	for _, c := range []struct {
		text, want string
		ok         bool
	}{
		{"plain", "plain", true},
		{"$${x}", "${x}", true},
		{"a$${b}c$${", "a${b}c${", true},
		{"$x {y}", "$x {y}", true},
		{"${values.x}", "", false},
		{"$${a}${b}", "", false},
		{"${", "", false},
	} {
		if got, ok := Literal(c.text); got != c.want || ok != c.ok {
			t.Errorf("Literal(%q) = %q, %v; want %q, %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestSplitTemplate(t *testing.T) {
	for _, c := range []struct {
		text string
		want []Piece
		err  int // offset of the error, -1 for none
	}{
		{"plain", nil, -1},
		{"$${x}", nil, -1},
		{"${values.a}", []Piece{{Var: "values.a"}}, -1},
		{"img:${values.tag}-$${x}", []Piece{{Text: "img:"}, {Var: "values.tag", Offset: 4}, {Text: "-${x}"}}, -1},
		{"${a}${b}", []Piece{{Var: "a"}, {Var: "b", Offset: 4}}, -1},
		{"${}", []Piece{{Var: ""}}, -1},
		{"a ${b} ${c", []Piece{{Text: "a "}, {Var: "b", Offset: 2}, {Text: " "}}, 7},
		// a CEL value ends at the brace that balances its own, braces
		// in its quoted text not counted
		{"${cel: {'a': 1}['a']}-x", []Piece{{Var: "cel: {'a': 1}['a']"}, {Text: "-x"}}, -1},
		{`v-${cel: '}' + "{\"}"}`, []Piece{{Text: "v-"}, {Var: `cel: '}' + "{\"}"`, Offset: 2}}, -1},
		{"${cel: {'a': 1}", nil, 0},
		{"${values.a}{}", []Piece{{Var: "values.a"}, {Text: "{}"}}, -1},
	} {
		got, err := SplitTemplate(c.text)
		switch {
		case c.err < 0 && err != nil:
			t.Errorf("SplitTemplate(%q): %v", c.text, err)
		case c.err >= 0 && (err == nil || err.Offset != c.err || !errors.Is(err, fileerr.ErrSyntax)):
			t.Errorf("SplitTemplate(%q) error %v, want one at %d", c.text, err, c.err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("SplitTemplate(%q) = %#v, want %#v", c.text, got, c.want)
		}
	}
}

// TestStripCommentKeepsCEL: a " #" inside a CEL value is its text, not a
// comment; after it, one is.
func TestStripCommentKeepsCEL(t *testing.T) {
	for text, want := range map[string]string{
		`${cel: "x #y".size()} # note`: `${cel: "x #y".size()}`,
		`a-${cel: {'#': 1}['#']}-b #c`: `a-${cel: {'#': 1}['#']}-b`,
		`$${cel: x #y}`:                `$${cel: x`,
		`v #c`:                         `v`,
	} {
		if got := StripComment(text); got != want {
			t.Errorf("StripComment(%q) = %q, want %q", text, got, want)
		}
	}
}
