package kpatch

import (
	"strings"
)

// Target is the object part of a header: [namespace/]kind[(group[/version])].name.
type Target struct {
	// Namespace is a glob over metadata.namespace; empty matches any.
	Namespace string
	// Kind matches the object's kind case-insensitively. It may be a
	// glob (`*`, `?`) over the built-in kinds, or a kind set such as
	// @workload (see kindset.go).
	Kind string
	// Group and Version restrict the API group and version when HasGroup
	// is set; Group "core" is the core group. Version may be empty.
	Group    string
	Version  string
	HasGroup bool
	// Name is a glob over metadata.name (`*` any run, `?` one byte, `\`
	// escapes), or a literal name when NameLiteral is set. An object
	// without a name but with a metadata.generateName matches a glob that
	// can match a name starting with it, never a literal (Matches).
	Name        string
	NameLiteral bool
}

// ObjectRef identifies an object for matching and messages.
type ObjectRef struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	// GenerateName is metadata.generateName, read when Name is empty:
	// the prefix of the name the API server will give the object.
	GenerateName string
}

// String formats the reference as "Kind namespace/name" or "Kind name". An
// object that has only a generateName is named by it and a "*", the name the
// API server will give it: "Pod shop/web-7d9f-*".
func (r ObjectRef) String() string {
	name := r.Name
	if name == "" && r.GenerateName != "" {
		name = r.GenerateName + "*"
	}
	if r.Namespace == "" {
		return r.Kind + " " + name
	}
	return r.Kind + " " + r.Namespace + "/" + name
}

// Group returns the API group of the reference; "" is the core group.
func (r ObjectRef) Group() string {
	g, _, ok := strings.Cut(r.APIVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// Version returns the API version of the reference without its group.
func (r ObjectRef) Version() string {
	if _, v, ok := strings.Cut(r.APIVersion, "/"); ok {
		return v
	}
	return r.APIVersion
}

// Matches reports whether the target addresses the object.
func (t *Target) Matches(r *ObjectRef) bool {
	if !t.matchesObjectKind(r) {
		return false
	}
	if !t.groupMatches(r.Group(), r.Version()) {
		return false
	}
	if t.Namespace != "" && (r.Namespace == "" || !globMatch(t.Namespace, r.Namespace)) {
		return false
	}
	return t.matchesName(r)
}

// matchesName reports whether the target's name addresses the object:
// a literal its name; a glob its name or, when it has none, a name that
// starts with its metadata.generateName (globMatchesPrefix).
func (t *Target) matchesName(r *ObjectRef) bool {
	switch {
	case t.NameLiteral:
		return t.Name == r.Name
	case r.Name == "" && r.GenerateName != "":
		return globMatchesPrefix(t.Name, r.GenerateName)
	}
	return globMatch(t.Name, r.Name)
}

// Single reports whether the target names a single object: one kind and
// a literal name (in any namespace). Under such a target a selector that
// matches no item is an error, a likely typo; under any other (a name
// glob, a kind glob, a kind set) it is a filter: the object has no such
// item, and what goes through it does nothing there.
func (t *Target) Single() bool {
	return t.NameLiteral && !strings.HasPrefix(t.Kind, "@") && !strings.ContainsAny(t.Kind, "*?")
}

// groupMatches reports whether the target admits objects of the group.
func (t *Target) groupMatches(group, version string) bool {
	if !t.HasGroup {
		return true
	}
	g := t.Group
	if g == "core" {
		g = ""
	}
	return g == group && (t.Version == "" || t.Version == version)
}

// globMatch matches s against a pattern of literal bytes, `*` (any run),
// `?` (one byte) and `\x` (x literally). It does not allocate.
func globMatch(pattern, s string) bool { return globMatchFold(pattern, s, false) }

// globMatchFold is globMatch, comparing ASCII letters case-insensitively
// when fold is set.
func globMatchFold(pattern, s string, fold bool) bool {
	px, sx := 0, 0
	starPx, starSx := -1, -1
	for sx < len(s) || px < len(pattern) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				starPx, starSx = px, sx
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			default:
				if c == '\\' && px+1 < len(pattern) {
					c = pattern[px+1]
					if sx < len(s) && sameByte(s[sx], c, fold) {
						px += 2
						sx++
						continue
					}
				} else if sx < len(s) && sameByte(s[sx], c, fold) {
					px++
					sx++
					continue
				}
			}
		}
		if starPx >= 0 && starSx < len(s) {
			starSx++
			px, sx = starPx+1, starSx
			continue
		}
		return false
	}
	return true
}

// sameByte compares two bytes, ASCII letters case-insensitively when
// fold is set.
func sameByte(a, b byte, fold bool) bool {
	if a == b {
		return true
	}
	return fold && isLetter(a) && isLetter(b) && a|0x20 == b|0x20
}

// isGlob reports whether a bare name holds an unescaped `*` or `?`.
func isGlob(raw string) bool {
	return indexUnescaped(raw, '*') >= 0 || indexUnescaped(raw, '?') >= 0
}

// parseTarget reads the target at the start of a header's inner text and
// returns it with the number of bytes it used.
func parseTarget(text string, col int) (Target, int, *problem) {
	var t Target
	i, err := t.parseNamespace(text, col)
	if err != nil {
		return t, 0, err
	}
	if i, err = t.parseKind(text, i, col); err != nil {
		return t, 0, err
	}
	if i >= len(text) || text[i] != '.' {
		return t, 0, errorAt(col+i, ErrSyntax, "expected '.' and a name after the kind %q, such as [%s.web] or [%s.*]", t.Kind, t.Kind, t.Kind)
	}
	n, err := t.parseName(text[i+1:], col+i+1)
	if err != nil {
		return t, 0, err
	}
	return t, i + 1 + n, nil
}

// parseNamespace reads a `namespace/` at the start of text and returns
// where the kind starts.
func (t *Target) parseNamespace(text string, col int) (int, *problem) {
	i := strings.IndexAny(text, "/.([")
	if i < 0 || text[i] != '/' {
		return 0, nil
	}
	ns := text[:i]
	if ns == "" || !isNamePattern(ns) {
		return 0, errorAt(col, ErrSyntax, "invalid namespace %q in the target", ns)
	}
	t.Namespace = ns
	return i + 1, nil
}

// parseKind reads the kind at text[start:] and its (group/version), and
// returns where they end.
func (t *Target) parseKind(text string, start, col int) (int, *problem) {
	i := start
	if i < len(text) && text[i] == '@' {
		i++
	}
	for i < len(text) && (isAlnum(text[i]) || text[i] == '*' || text[i] == '?') {
		i++
	}
	t.Kind = text[start:i]
	if !isKindPattern(t.Kind) {
		return 0, errorAt(col+start, ErrSyntax, "expected a kind at the start of the header, such as [deployment.web], a kind glob such as [*.web] or a kind set such as [@workload.web]")
	}
	if i >= len(text) || text[i] != '(' {
		return i, nil
	}
	end := strings.IndexByte(text[i:], ')')
	if end < 0 {
		return 0, errorAt(col+i, ErrSyntax, "'(' is not closed; expected (group) or (group/version)")
	}
	spec := text[i+1 : i+end]
	group, version, _ := strings.Cut(spec, "/")
	if !isGroup(group) || strings.Contains(spec, "/") && !isVersion(version) {
		return 0, errorAt(col+i+1, ErrSyntax, "invalid API group %q; expected (group) or (group/version), with (core) for the core group", spec)
	}
	t.Group, t.Version, t.HasGroup = group, version, true
	return i + end + 1, nil
}

// parseName reads the name at the start of text: bracketed, a glob or a
// literal. It returns the number of bytes it used.
func (t *Target) parseName(text string, col int) (int, *problem) {
	if text != "" && text[0] == '[' {
		n := scanBracket(text)
		if n < 0 {
			return 0, errorAt(col, ErrSyntax, "'[' is not closed; expected ']'")
		}
		t.Name, t.NameLiteral = unescape(text[1:n-1]), true
		if t.Name == "" {
			return 0, errorAt(col, ErrSyntax, "empty name in the target")
		}
		return n, nil
	}
	n := scanBare(text)
	raw := text[:n]
	if raw == "" {
		return 0, errorAt(col, ErrSyntax, "expected a name after %q, such as %s.web or %s.*", t.Kind+".", t.Kind, t.Kind)
	}
	if j := strings.IndexAny(raw, "=]"); j >= 0 && indexUnescaped(raw, raw[j]) >= 0 {
		return 0, errorAt(col+j, ErrSyntax, "unexpected %q in the name %q", raw[j], raw)
	}
	if isGlob(raw) {
		t.Name = raw
	} else {
		t.Name, t.NameLiteral = unescape(raw), true
	}
	return n, nil
}

// String prints the target in the form that parses back to it.
func (t *Target) String() string {
	var b strings.Builder
	if t.Namespace != "" {
		b.WriteString(t.Namespace + "/")
	}
	b.WriteString(t.Kind)
	if t.HasGroup {
		b.WriteString("(" + t.Group)
		if t.Version != "" {
			b.WriteString("/" + t.Version)
		}
		b.WriteString(")")
	}
	b.WriteByte('.')
	switch {
	case !t.NameLiteral:
		b.WriteString(t.Name)
	case strings.ContainsAny(t.Name, `[]"\`):
		b.WriteString(escapeBare(t.Name))
	case strings.Contains(t.Name, "."):
		b.WriteString("[" + t.Name + "]")
	default:
		b.WriteString(escapeName(t.Name))
	}
	return b.String()
}

// escapeName escapes a literal name so that it is not read as a glob.
func escapeName(name string) string { return escapeText(name, "*?") }

// isKindPattern accepts a kind (a letter, then letters and digits), a
// kind glob (letters, digits, `*`, `?`) or a kind set (@ and a kind).
func isKindPattern(s string) bool {
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		return rest != "" && isLetter(rest[0]) && isWord(rest, "")
	}
	return s != "" && (isLetter(s[0]) || s[0] == '*' || s[0] == '?') && isWord(s, "*?")
}

func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isNamePattern accepts a namespace or its glob: DNS label bytes, `*`, `?`.
func isNamePattern(s string) bool { return isWord(s, "-*?") }

func isGroup(s string) bool { return isWord(s, "-.") }

func isVersion(s string) bool { return isWord(s, "") }

// isWord reports whether s is not empty and every byte is a letter, a
// digit or one of extra.
func isWord(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && strings.IndexByte(extra, s[i]) < 0 {
			return false
		}
	}
	return s != ""
}
