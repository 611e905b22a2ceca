package objectjson

import (
	"encoding/json"
	"testing"
)

// unescapeCases are literals (a JSON string's content) and whether
// unescape decodes them itself rather than leaving them to encoding/json.
var unescapeCases = map[string]bool{
	`k:{\"name\":\"app\"}`:    true, // a managedFields key
	`a\\b\/c\bd\fe\nf\rg\th`:  true,
	`\u00e9t\u00C9 caf\u00e9`: true,
	`\ud83d\ude00 smile`:      true, // a surrogate pair
	`\u0000nul`:               true,
	`ünïcödé \" and ascii`:    true,
	`\ud83d alone`:            false, // a lone high surrogate: U+FFFD
	`\ude00 low`:              false,
	`\ud83d\u0041`:            false, // a high surrogate then no low one
	`\ud83d\ud83d`:            false,
	"bad \xff utf8 \\n":       false,
	`trailing \`:              false,
	`\x41`:                    false,
	`\u12`:                    false,
	`\u12g4`:                  false,
}

// TestUnescape holds unescape to encoding/json where it decodes, and to
// leaving alone what encoding/json repairs.
func TestUnescape(t *testing.T) {
	for lit, decodes := range unescapeCases {
		got, ok := unescape(lit)
		if ok != decodes {
			t.Errorf("%q: decoded %v, want %v", lit, ok, decodes)
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+lit+`"`), &want); ok && (err != nil || got != want) {
			t.Errorf("%q: got %q, encoding/json %q (%v)", lit, got, want, err)
		}
	}
}

// TestUnescapeAllocatesOnce: a managedFields key costs its string.
func TestUnescapeAllocatesOnce(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _, _ = unescape(`k:{\"name\":\"app\"}`) }); n != 1 {
		t.Errorf("%v allocations, want 1", n)
	}
}

// FuzzUnescape: where unescape decodes a literal that encoding/json
// takes (the scanner passes it only those), both give the same string.
func FuzzUnescape(f *testing.F) {
	for lit := range unescapeCases {
		f.Add(lit)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var want string
		if err := json.Unmarshal([]byte(`"`+lit+`"`), &want); err != nil {
			return // the scanner refuses the document before it is unquoted
		}
		if got, ok := unescape(lit); ok && got != want {
			t.Fatalf("%q: got %q, encoding/json %q", lit, got, want)
		}
	})
}
