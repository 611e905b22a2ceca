package variables

import (
	"encoding/json"
	"maps"
	"math"
	"math/big"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// TextsOf builds the mirror of the texts of a YAML node's scalars (see
// Variables.Texts): the text of each plain scalar that YAML reads as
// something other than a string. The node is one that a reader bounded
// in nodes has read (aliases are followed).
func TextsOf(n *yamlv3.Node) any {
	switch n.Kind {
	case yamlv3.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return TextsOf(n.Content[0])
	case yamlv3.AliasNode:
		if n.Alias != nil {
			return TextsOf(n.Alias)
		}
	case yamlv3.ScalarNode:
		if n.Style == 0 && !printsAs(n) {
			return n.Value
		}
	case yamlv3.SequenceNode:
		var out []any
		for i, c := range n.Content {
			if t := TextsOf(c); t != nil {
				if out == nil {
					out = make([]any, len(n.Content))
				}
				out[i] = t
			}
		}
		if out != nil {
			return out
		}
	case yamlv3.MappingNode:
		// the map's own keys, then those of the maps merged in (<<)
		// that it does not set, the first map merged in first
		out, own := map[string]any{}, map[string]bool{}
		var merges []*yamlv3.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yamlv3.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			switch {
			case k.Kind != yamlv3.ScalarNode:
			case k.Tag == "!!merge" || k.Style == 0 && k.Value == "<<":
				merges = append(merges, mergeSources(n.Content[i+1])...)
			default:
				own[k.Value] = true
				if t := TextsOf(n.Content[i+1]); t != nil {
					out[k.Value] = t
				}
			}
		}
		for _, src := range merges {
			m, _ := TextsOf(src).(map[string]any)
			for k, t := range m {
				if _, set := out[k]; !set && !own[k] {
					out[k] = t
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// mergeSources are the maps a merge key (<<) merges in: one map, or a
// list of them.
func mergeSources(n *yamlv3.Node) []*yamlv3.Node {
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yamlv3.SequenceNode {
		return n.Content
	}
	return []*yamlv3.Node{n}
}

// textsOfDocument reads the mirror of a values document; nil when it does
// not parse (its reader reports the error) or holds no such scalar.
func textsOfDocument(data []byte) map[string]any {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		return nil
	}
	m, _ := TextsOf(&doc).(map[string]any)
	return m
}

// printsAs reports whether a plain scalar's text is how its value prints
// (jsonvalue.Text), or it is text: such a scalar needs no text of its
// own. A null always keeps its text, which a string field receives.
func printsAs(n *yamlv3.Node) bool {
	t := strings.ReplaceAll(n.Value, "_", "")
	switch n.ShortTag() {
	case "!!str":
		return !yaml11Bool(n.Value)
	case "!!bool":
		return n.Value == "true" || n.Value == "false"
	case "!!int":
		i, err := strconv.ParseInt(t, 0, 64)
		return err == nil && strconv.FormatInt(i, 10) == n.Value
	case "!!float":
		f, err := strconv.ParseFloat(t, 64)
		return err == nil && jsonvalue.FormatFloat(f) == n.Value
	case "!!null":
		return false
	}
	return true
}

// NeedsText reports whether a scalar read from text needs the text kept
// to be written back as it was: its value prints otherwise, or it is
// null.
func NeedsText(text string, val any) bool {
	if val == nil {
		return true
	}
	printed, ok := jsonvalue.Text(val)
	return ok && printed != text
}

// TextOf returns the text the variable scope.path was written as, if
// known and if it denotes val, the variable's value now.
func (v *Variables) TextOf(scope string, path []string, val any) (string, bool) {
	if v == nil || v.Texts == nil {
		return "", false
	}
	m, _ := v.Texts[scope].(map[string]any)
	t, ok := Lookup(m, path)
	if !ok {
		return "", false
	}
	text, isText := t.(string)
	if !isText || !Denotes(text, val) {
		return "", false
	}
	return text, true
}

// TextsAt returns the mirror of the variable scope.path, a map or list
// whose texts are those of its scalars; nil when none is known.
func (v *Variables) TextsAt(scope string, path []string) any {
	if v == nil || v.Texts == nil {
		return nil
	}
	m, _ := v.Texts[scope].(map[string]any)
	t, _ := Lookup(m, path)
	return t
}

// Lookup walks nested maps by a variable's dotted path; a key holding
// dots is found whole as well.
func Lookup(m map[string]any, path []string) (any, bool) {
	if v, ok := m[strings.Join(path, ".")]; ok {
		return v, true
	}
	for i, k := range path {
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		if i == len(path)-1 {
			return v, true
		}
		if m, ok = v.(map[string]any); !ok {
			return nil, false
		}
	}
	return nil, false
}

// Denotes reports whether text, read as a plain YAML scalar (YAML 1.1
// booleans, as Kubernetes reads YAML; integers in any base YAML writes;
// underscores), is the scalar val. A string val has no other text.
func Denotes(text string, val any) bool {
	switch x := val.(type) {
	case nil:
		switch text {
		case "", "~", "null", "Null", "NULL":
			return true
		}
		return false
	case bool:
		b, ok := yaml11Bools[text]
		return ok && b == x
	case string, map[string]any, []any:
		return false
	}
	want, ok := jsonvalue.Float(val)
	if !ok {
		return false
	}
	t := strings.ReplaceAll(text, "_", "")
	if i, err := strconv.ParseInt(t, 0, 64); err == nil && intEquals(val, i, want) { // 0x1F, 0o17, 017
		return true
	}
	for prefix, base := range map[string]int{"0o": 8, "0x": 16, "0b": 2} { // a sign after the prefix, as yaml.v3 reads it
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			if i, err := strconv.ParseInt(rest, base, 64); err == nil && intEquals(val, i, want) {
				return true
			}
		}
	}
	if i, err := strconv.ParseInt(t, 10, 64); err == nil { // 017 read in base 10, as YAML 1.2 does
		return intEquals(val, i, want)
	}
	if n, ok := val.(json.Number); ok { // an integer beyond 64 bits
		a, okA := new(big.Int).SetString(t, 10)
		b, okB := new(big.Int).SetString(string(n), 10)
		if okA && okB {
			return a.Cmp(b) == 0
		}
	}
	if i, ok := new(big.Int).SetString(t, 0); ok && !i.IsInt64() {
		// an integer beyond 64 bits that a reader took as a float, or
		// saturated: any number beyond exact floats, of its sign,
		// stands for it
		return i.Sign() == sign(want) && math.Abs(want) >= 1<<53
	}
	f, err := strconv.ParseFloat(t, 64)
	return err == nil && f == want
}

// sign is -1, 0 or 1 as f is negative, zero or positive.
func sign(f float64) int {
	switch {
	case f < 0:
		return -1
	case f > 0:
		return 1
	}
	return 0
}

// intEquals compares an integer text with val: exactly for an int64,
// by value otherwise; an integer beyond exact floats also equals the
// value a reader that went through a float made of it.
func intEquals(val any, i int64, want float64) bool {
	if x, ok := val.(int64); ok && x == i {
		return true
	}
	return float64(i) == want && (!isInt64(val) || math.Abs(want) >= 1<<53)
}

func isInt64(v any) bool {
	_, ok := v.(int64)
	return ok
}

// yaml11Bools are the plain scalars YAML 1.1 reads as booleans.
var yaml11Bools = map[string]bool{
	"true": true, "True": true, "TRUE": true, "false": false, "False": false, "FALSE": false,
	"yes": true, "Yes": true, "YES": true, "no": false, "No": false, "NO": false,
	"on": true, "On": true, "ON": true, "off": false, "Off": false, "OFF": false,
	"y": true, "Y": true, "n": false, "N": false,
}

func yaml11Bool(s string) bool {
	_, ok := yaml11Bools[s]
	return ok
}

// SetText records the text (a string, or a mirror) of the variable
// scope.path, set anew: nil forgets the text it had. The mirrors v held
// are not modified (another Variables may share them).
func (v *Variables) SetText(scope string, path []string, text any) {
	cur, _ := v.Texts[scope].(map[string]any)
	if text == nil && cur == nil {
		return
	}
	texts := maps.Clone(v.Texts)
	if texts == nil {
		texts = map[string]any{}
	}
	texts[scope] = ReplaceText(cur, path, text)
	v.Texts = texts
}

// ReplaceText returns a copy of the mirror m whose entry at path is text,
// or, for a nil text, has none.
func ReplaceText(m map[string]any, path []string, text any) map[string]any {
	if text != nil {
		return SetPath(m, path, text)
	}
	if _, ok := m[path[0]]; !ok {
		return m
	}
	out := maps.Clone(m)
	if len(path) == 1 {
		delete(out, path[0])
	} else if next, ok := out[path[0]].(map[string]any); ok {
		out[path[0]] = ReplaceText(next, path[1:], nil)
	} else {
		delete(out, path[0]) // a text where a map now is
	}
	return out
}

// MergeTexts returns the mirror of jsonvalue.MergeMaps(base, over): the
// texts of base where over sets nothing, over's (overTexts) where it sets
// a value. base is the mirror of base's value.
func MergeTexts(base any, over any, overTexts any) any {
	om, isMap := over.(map[string]any)
	if !isMap {
		return overTexts // over replaces the value whole
	}
	bm, _ := base.(map[string]any)
	otm, _ := overTexts.(map[string]any)
	var out map[string]any
	put := func(k string, t any) {
		if t == nil {
			return
		}
		if out == nil {
			out = make(map[string]any, len(bm)+len(otm))
		}
		out[k] = t
	}
	for k, t := range bm {
		if _, set := om[k]; !set {
			put(k, t)
		}
	}
	for k, ov := range om {
		put(k, MergeTexts(bm[k], ov, otm[k]))
	}
	if out == nil {
		return nil
	}
	return out
}

// SetPath returns a copy of m with the value at path set, maps made on
// the way; m is not modified.
func SetPath(m map[string]any, path []string, val any) map[string]any {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	if len(path) == 1 {
		out[path[0]] = val
		return out
	}
	next, _ := out[path[0]].(map[string]any)
	out[path[0]] = SetPath(next, path[1:], val)
	return out
}
