package diff

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"kpatch.dev/kpatch/internal/listalign"
)

// kpatchScalar returns the text of a .kpatch value that reads back as v:
// null, true, a number, or a string, plain where the format reads it
// back as that very string, else double-quoted. A literal ${ is written
// $${, as the format escapes it.
func kpatchScalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		escaped := strings.ReplaceAll(x, "${", "$${")
		if plainString(x) {
			return escaped
		}
		return strconv.Quote(escaped)
	}
	if f, ok := v.(float64); ok && math.Abs(f) >= 1<<63 {
		// past int64 an integer's digits do not read back as a number
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	text, _ := listalign.ScalarText(v)
	return text
}

// The plain scalars of the YAML 1.2 core schema that are not strings.
var (
	plainNumber = regexp.MustCompile(`^([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
	plainWords  = map[string]bool{
		"~": true, "null": true, "Null": true, "NULL": true,
		"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
	}
)

// plainString reports whether s, written unquoted as a value, reads back
// as the string s: not empty, no blank at either end, no control
// character, no comment, no quote, collection or block scalar at the
// start, and not a null, boolean or number.
func plainString(s string) bool {
	if s == "" || plainWords[s] || plainNumber.MatchString(s) {
		return false
	}
	if strings.ContainsRune(`"'[{|>#`, rune(s[0])) || strings.HasPrefix(s, "- ") {
		return false
	}
	if strings.Contains(s, " #") || strings.Contains(s, "\t#") {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	last := s[len(s)-1]
	return s[0] != ' ' && last != ' ' && last != '\t'
}
