package kpatch

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// coerce converts a scalar to the type of node n where that loses
// nothing. raw is the source text of a plain constant ("" otherwise), or
// that of a variable's value (a sourced v): numbers and booleans written
// into string fields keep it (1.10 stays "1.10", yes "yes"; a variable's
// null its text), and so do integers too large for 64 bits. Without a
// schema (n nil or free-form) the value is kept as it is.
func coerce(v any, n *typeNode, raw string) (any, *problem) {
	v, raw = unwrapSourced(v, raw, n)
	if v == nil || n == nil || n.kind == tAny {
		return v, nil
	}
	switch n.kind {
	case tString, tBytes:
		return coerceString(v, n, raw)
	case tInt, tIntOrString:
		return coerceInt(v, n, raw)
	case tFloat:
		return coerceFloat(v, n)
	case tBool:
		return coerceBool(v, n)
	case tQuantity:
		return coerceQuantity(v, n)
	}
	return nil, errorf(ErrValue, "the field is %s; a .kpatch value is a scalar (use the YAML patch format for structures)", n.describe())
}

// mismatch is the problem of a value that does not fit its field.
func mismatch(v any, n *typeNode) *problem {
	text, ok := scalarText(v)
	if _, isStr := v.(string); isStr {
		text = strconv.Quote(text)
	} else if !ok {
		text = describeValue(v)
	}
	return errorf(ErrValue, "the field wants %s, not %s", n.describe(), text)
}

func coerceString(v any, n *typeNode, raw string) (any, *problem) {
	s, isStr := v.(string)
	if !isStr && raw != "" {
		s = raw
	} else if !isStr {
		text, ok := scalarText(v)
		if !ok {
			return nil, mismatch(v, n)
		}
		s = text
	}
	if n.kind == tBytes {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return nil, errorf(ErrValue, "the field holds base64 bytes and %q is not base64 (for a Secret, write plain text to stringData)", s)
		}
	}
	if err := n.enumProblem(s); err != nil {
		return nil, err
	}
	return s, nil
}

// coerceInt converts v to an integer of n's size; raw, the text it was
// written as, names it in a message.
func coerceInt(v any, n *typeNode, raw string) (any, *problem) {
	bits := n.bits
	if n.kind == tIntOrString && bits == 0 {
		bits = 32 // intstr.IntOrString holds an int32
	}
	outOfRange := func() (any, *problem) {
		if raw == "" {
			raw = fmt.Sprint(v)
		}
		return nil, errorf(ErrValue, "the field is a %d-bit integer and %s is out of its range", bits, raw)
	}
	var i int64
	switch x := v.(type) {
	case string:
		if n.kind == tIntOrString {
			return x, nil
		}
		parsed, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return outOfRange()
		} else if err != nil {
			return nil, mismatch(v, n)
		}
		i = parsed
	case int64:
		i = x
	case bool:
		return nil, mismatch(v, n)
	default:
		f, ok := number(v)
		switch {
		case !ok || f != math.Trunc(f):
			return nil, mismatch(v, n)
		case f >= math.Ldexp(1, 63) || f < -math.Ldexp(1, 63):
			return outOfRange()
		}
		i = int64(f)
	}
	if bits < 64 && (i >= 1<<(bits-1) || i < -(1<<(bits-1))) {
		return outOfRange()
	}
	return i, nil
}

func coerceFloat(v any, n *typeNode) (any, *problem) {
	switch x := v.(type) {
	case string, json.Number:
		text, _ := scalarText(x)
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, mismatch(v, n)
		}
		return f, nil
	case bool:
		return nil, mismatch(v, n)
	}
	if f, ok := number(v); ok && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return v, nil
	}
	return nil, mismatch(v, n)
}

func coerceBool(v any, n *typeNode) (any, *problem) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch x {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
	}
	return nil, mismatch(v, n)
}

// coerceQuantity parses a quantity (500m, 1.5, 256Mi) as the API server
// does and returns it in the canonical form the API server stores, so
// that a second pass finds it unchanged.
func coerceQuantity(v any, n *typeNode) (any, *problem) {
	if _, isBool := v.(bool); isBool {
		return nil, mismatch(v, n)
	}
	text, ok := scalarText(v)
	if !ok {
		return nil, mismatch(v, n)
	}
	q, err := resource.ParseQuantity(strings.TrimSpace(text))
	if err != nil {
		return nil, errorf(ErrValue, "the field wants a quantity (such as 500m, 1.5 or 256Mi), not %q", text)
	}
	return q.String(), nil
}

// coerceTree converts a structured value (a YAML patch file's map or
// list) to the schema below n, as coerce does for each scalar: the fields
// of a struct must exist. src, when known, places problems at their line
// and column.
func coerceTree(v any, n *typeNode, src *treeSource) (any, *problem) {
	c := &treeCoercer{src: src}
	return c.value(v, n)
}

// coercePatch converts a merge patch, or with strategic a strategic
// merge patch, as coerceTree does a value: a null (a variable's too)
// removes its field, and a strategic patch's $-directives pass, their
// lists typed as the list they name when they hold variables. With
// custom (a custom resource's JSON merge patch), a null may also remove
// a field the schema does not name, such as one a newer version of the
// CRD dropped.
func coercePatch(v any, n *typeNode, src *treeSource, strategic, custom bool) (any, *problem) {
	c := &treeCoercer{src: src, patch: true, directives: strategic, custom: custom}
	return c.value(v, n)
}

// isNull reports whether a value of a patch is null, a variable's too.
func isNull(v any) bool {
	if s, ok := v.(sourced); ok {
		return s.value == nil
	}
	return v == nil
}

// treeCoercer walks a structured value and its schema together.
type treeCoercer struct {
	src        *treeSource
	patch      bool     // a merge patch: a null removes a field
	directives bool     // a strategic merge patch: $-keys are directives
	custom     bool     // a custom resource's merge patch: a null removes any field
	path       []string // keys, and list indexes written [i]
}

func (c *treeCoercer) value(v any, n *typeNode) (any, *problem) {
	if s, ok := v.(sourced); ok && s.value == nil && c.patch {
		return nil, nil // a null in a patch removes the field
	}
	v, raw := unwrapSourced(v, "", n)
	if v == nil {
		return nil, nil
	}
	if n == nil || n.kind == tAny {
		return plainValue(v), nil
	}
	switch x := v.(type) {
	case map[string]any:
		return c.mapValue(x, n)
	case []any:
		return c.listValue(x, n)
	}
	if n.kind == tStruct || n.kind == tMap || n.kind == tList {
		return nil, c.fail(errorf(ErrValue, "the field is %s, not %s", n.describe(), describeValue(v)), false)
	}
	if raw == "" {
		raw = c.src.raw(c.path)
	}
	out, err := coerce(v, n, raw)
	if err != nil {
		return nil, c.fail(err, false)
	}
	return out, nil
}

func (c *treeCoercer) mapValue(x map[string]any, n *typeNode) (any, *problem) {
	if n.kind != tStruct && n.kind != tMap {
		return nil, c.fail(errorf(ErrValue, "the field is %s, not a map", n.describe()), false)
	}
	out := make(map[string]any, len(x))
	for _, k := range slices.Sorted(maps.Keys(x)) {
		if c.directives && strings.HasPrefix(k, "$") {
			d, err := c.directive(k, x[k], n)
			if err != nil {
				return nil, err
			}
			out[k] = d
			continue
		}
		elem := n.elem
		c.path = append(c.path, k)
		if n.kind == tStruct {
			if elem = n.fields[k]; elem == nil && !n.open && !(c.custom && isNull(x[k])) {
				return nil, c.fail(unknownField(k, fieldNames(n), "%s has no field %q", n.name, k), true)
			}
		}
		r, err := c.value(x[k], elem)
		if err != nil {
			return nil, err
		}
		c.path = c.path[:len(c.path)-1]
		out[k] = r
	}
	return out, nil
}

// directive returns the value of the directive k of a strategic merge
// patch in the map n: as written, or, when it holds variables, the list
// of $deleteFromPrimitiveList/NAME and $setElementOrder/NAME typed as
// the list NAME (strings keep their text), anything else as YAML read
// it.
func (c *treeCoercer) directive(k string, v any, n *typeNode) (any, *problem) {
	if !holdsSourced(v) {
		return v, nil
	}
	_, name, found := strings.Cut(k, "/")
	if list := n.fields[name]; found && n.kind == tStruct && list != nil && list.kind == tList {
		c.path = append(c.path, k)
		out, err := c.value(v, list)
		c.path = c.path[:len(c.path)-1]
		return out, err
	}
	return plainValue(v), nil
}

func (c *treeCoercer) listValue(x []any, n *typeNode) (any, *problem) {
	if n.kind != tList {
		return nil, c.fail(errorf(ErrValue, "the field is %s, not a list", n.describe()), false)
	}
	out := make([]any, len(x))
	for i, e := range x {
		c.path = append(c.path, "["+strconv.Itoa(i)+"]")
		r, err := c.value(e, n.elem)
		if err != nil {
			return nil, err
		}
		c.path = c.path[:len(c.path)-1]
		out[i] = r
	}
	return out, nil
}

// fail names the problem's place in the value and, when the source is
// known, puts it at the value's line and column (or its key's).
func (c *treeCoercer) fail(err *problem, atKey bool) *problem {
	if len(c.path) > 0 {
		err = err.prefixed(treePathText(c.path))
	}
	if node, ok := c.src.node(c.path); ok {
		if atKey && node.keyLine > 0 {
			return err.at(node.keyLine, node.keyCol)
		}
		return err.at(node.line, node.col)
	}
	return err
}

// treePathText prints a path in a value: keys joined by dots, indexes in
// brackets.
func treePathText(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if strings.HasPrefix(p, "[") {
			b.WriteString(p)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(escapeBare(p))
	}
	return b.String()
}
