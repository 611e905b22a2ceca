package replacement

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// YAML tags of the scalars of a decoded object. kustomize works on YAML
// nodes: a scalar is a text and a tag, and a replacement writes the text
// while the target keeps its tag. Objects here are JSON-typed
// (map[string]any), so the tag is the Go type's.
const (
	tagStr   = "!!str"
	tagInt   = "!!int"
	tagFloat = "!!float"
	tagBool  = "!!bool"
	tagNull  = "!!null"
	tagNone  = "" // a literal or created field: the text's own type
)

// value is what a replacement copies: a subtree (map or list), or a
// scalar as text and tag.
type value struct {
	tree any // map[string]any or []any; nil for a scalar
	text string
	tag  string
}

func (v value) isScalar() bool { return v.tree == nil }

// valueOf reads a value of an object.
func valueOf(x any) value {
	if tag, text, ok := scalarOf(x); ok {
		return value{text: text, tag: tag}
	}
	return value{tree: x}
}

// scalarOf returns the tag and text of a scalar, or false for a map or
// list.
func scalarOf(x any) (tag, text string, ok bool) {
	switch v := x.(type) {
	case string:
		return tagStr, v, true
	case bool:
		return tagBool, strconv.FormatBool(v), true
	case int64:
		return tagInt, strconv.FormatInt(v, 10), true
	case int:
		return tagInt, strconv.Itoa(v), true
	case int32:
		return tagInt, strconv.FormatInt(int64(v), 10), true
	case float64:
		return tagFloat, jsonvalue.FormatFloat(v), true
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return tagInt, v.String(), true
		}
		return tagFloat, v.String(), true
	case nil:
		return tagNull, "null", true
	}
	return "", "", false
}

// resolve returns the object value of a scalar with this tag and text, as
// kustomize's output gives it: the YAML scalar decoded. A text that does
// not fit the tag (abc as an integer) is an error, with YAML's message.
func resolve(tag, text string) (any, error) {
	switch tag {
	case tagStr:
		return text, nil
	case tagInt:
		if isDecimal(text) {
			if n, err := strconv.ParseInt(text, 10, 64); err == nil {
				return n, nil
			}
		}
	case tagNone:
		if isPlainString(text) {
			return text, nil
		}
	}
	var out any
	node := yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: text}
	if err := node.Decode(&out); err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return normalize(out)
}

// isPlainString reports, cheaply, whether YAML reads an untagged text as
// a string: it starts with a letter and is no boolean or null.
func isPlainString(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return false
	}
	return true
}

// isDecimal reports whether s is an integer in plain decimal notation,
// which YAML and strconv read alike (no sign +, no leading zero).
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "0" {
		return true
	}
	if s == "" || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// normalize turns what yaml.v3 decodes into what a JSON decoder gives:
// int64 and float64 numbers, string keys, timestamps as their JSON text.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case uint64:
		return float64(x), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("json: unsupported value: %s", jsonvalue.FormatFloat(x))
		}
		return x, nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	case map[string]any:
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = n
		}
		return m, nil
	case []any:
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	}
	return v, nil
}

// matchText is the text kustomize matches a [key=regexp] selector
// against: the item's value printed as YAML, without surrounding space.
// Strings that YAML would quote are matched quoted, as in kustomize.
func matchText(v any) string {
	if s, ok := v.(string); ok && isPlainString(s) && !strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\n\t") && strings.TrimSpace(s) == s {
		return s
	}
	if tag, text, ok := scalarOf(v); ok && tag != tagStr {
		return text
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(v); err != nil {
		return ""
	}
	_ = enc.Close()
	return strings.TrimSpace(b.String())
}
