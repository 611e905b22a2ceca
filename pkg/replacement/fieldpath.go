package replacement

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// DefaultFieldPath is the fieldPath of a source or target that names none.
const DefaultFieldPath = "metadata.name"

// stepKind is what one part of a field path does.
type stepKind uint8

const (
	// stepField reads a map key.
	stepField stepKind = iota
	// stepIndex reads a list item by position.
	stepIndex
	// stepMatch reads the list items whose key (or, with an empty key, the
	// item itself) matches a value: [name=nginx], [=-jar].
	stepMatch
	// stepEvery reads every item of a list: *.
	stepEvery
	// stepLast reads the last item of a list: - (sources only).
	stepLast
)

// step is one compiled part of a field path.
type step struct {
	kind  stepKind
	key   string         // the map key (stepField) or the item's key (stepMatch)
	value string         // the value a stepMatch compares
	index int            // stepIndex
	re    *regexp.Regexp // stepMatch in a target: kustomize matches a regular expression
}

// FieldPath is a compiled kustomize field path. A source path reads one
// value (kustomize's PathGetter); a target path may reach many (its
// PathMatcher): the two differ in what their parts mean.
type FieldPath struct {
	text   string
	steps  []step
	source bool
}

// String returns the path as written.
func (p FieldPath) String() string { return p.text }

// SplitFieldPath splits a field path into its parts as kustomize does:
// at dots, except escaped ones (a\.b) and those inside brackets. A
// bracketed part without '=' loses its brackets ([a.b] is the key a.b);
// one with '=' keeps them ([name=a.b] selects list items).
func SplitFieldPath(path string) []string {
	split := splitEscaped(path)
	result := make([]string, 0, len(split))
	for i := 0; i < len(split); i++ {
		elem := split[i]
		if !strings.HasPrefix(elem, "[") || strings.HasSuffix(elem, "]") {
			result = append(result, elem)
			continue
		}
		bracketed := []string{elem}
		for i < len(split)-1 {
			i++
			bracketed = append(bracketed, split[i])
			if strings.HasSuffix(split[i], "]") {
				break
			}
		}
		joined := strings.Join(bracketed, ".")
		if strings.Contains(joined, "=") {
			result = append(result, joined)
		} else {
			result = append(result, strings.Trim(joined, "[]"))
		}
	}
	return result
}

// splitEscaped splits at dots not preceded by a backslash, and drops one
// leading dot.
func splitEscaped(path string) []string {
	parts := strings.Split(path, ".")
	if len(parts) > 1 && parts[0] == "" {
		parts = parts[1:]
	}
	res := []string{parts[0]}
	for _, p := range parts[1:] {
		last := len(res) - 1
		if strings.HasSuffix(res[last], `\`) {
			res[last] = strings.TrimSuffix(res[last], `\`) + "." + p
		} else {
			res = append(res, p)
		}
	}
	return res
}

// ParseSourcePath compiles the fieldPath of a replacement's source.
// Parts are trimmed and empty ones dropped; a number is a list position,
// - the last item, [key=value] the first item whose key has exactly that
// value; * is an error, as in kustomize.
func ParseSourcePath(path string) (FieldPath, error) {
	fp := FieldPath{text: path, source: true}
	for _, part := range SplitFieldPath(path) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		st, err := sourceStep(part)
		if err != nil {
			return FieldPath{}, err
		}
		fp.steps = append(fp.steps, st)
	}
	return fp, nil
}

func sourceStep(part string) (step, error) {
	if idx, err := strconv.Atoi(part); err == nil {
		if idx < 0 {
			return step{}, fmt.Errorf("array index %d cannot be negative", idx)
		}
		return step{kind: stepIndex, index: idx}, nil
	}
	switch {
	case part == "-":
		return step{kind: stepLast}, nil
	case part == "*":
		return step{}, fmt.Errorf("wildcard is not supported in PathGetter")
	case isBracketed(part):
		key, value, err := splitMatch(part)
		return step{kind: stepMatch, key: key, value: value}, err
	}
	return step{kind: stepField, key: part}, nil
}

// ParseTargetPath compiles one of the fieldPaths of a replacement's
// target. A non-negative number is a list position, [key=regexp] every
// item whose key's text contains a match of the regular expression (as in
// kustomize: not anchored), * every item; anything else is a map key.
func ParseTargetPath(path string) (FieldPath, error) {
	fp := FieldPath{text: path}
	for _, part := range SplitFieldPath(path) {
		st, err := targetStep(part)
		if err != nil {
			return FieldPath{}, err
		}
		fp.steps = append(fp.steps, st)
	}
	return fp, nil
}

func targetStep(part string) (step, error) {
	if idx, err := strconv.Atoi(part); err == nil && idx >= 0 {
		return step{kind: stepIndex, index: idx}, nil
	}
	switch {
	case isBracketed(part):
		key, value, err := splitMatch(part)
		if err != nil {
			return step{}, err
		}
		re, err := regexp.Compile(value)
		if err != nil {
			return step{}, err
		}
		return step{kind: stepMatch, key: key, value: value, re: re}, nil
	case part == "*":
		return step{kind: stepEvery}, nil
	}
	return step{kind: stepField, key: part}, nil
}

func isBracketed(part string) bool {
	return strings.HasPrefix(part, "[") && strings.HasSuffix(part, "]")
}

// splitMatch splits [key=value] into key and value.
func splitMatch(part string) (string, string, error) {
	inner := strings.TrimPrefix(strings.TrimSuffix(part, "]"), "[")
	key, value, ok := strings.Cut(inner, "=")
	if !ok {
		return "", "", fmt.Errorf("list path element must contain fieldName=fieldValue for element to match")
	}
	return key, value, nil
}

// createsList reports whether a missing field followed by this step is
// created as a list (rather than a map).
func (s step) createsList() bool {
	return s.kind == stepIndex || s.kind == stepMatch
}
