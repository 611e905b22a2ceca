package kpatch

import "strings"

// templateKeyStep is a map key written in brackets with variables in it:
// annotations[container.apparmor.security.beta.kubernetes.io/${item.name}].
// The key is the text with the variables spliced in, read as the plan
// runs (per element of a foreach section); it names a map's key, never a
// struct's field, whose names the schema checks as written.
type templateKeyStep struct {
	text  string
	parts []ValuePart
	err   *problem // the template's own problem
	col   int
}

// keyWithVariables compiles the bracketed key text, written at col: a
// templateKeyStep, or a field when its only ${ are escaped ($${).
func keyWithVariables(text string, col int) step {
	k := &templateKeyStep{text: text, col: col}
	k.parts, k.err = parseTemplate(text, col+1)
	if k.err == nil && k.parts == nil {
		return &fieldStep{name: literalText(text), bracketed: true, col: col}
	}
	if k.err == nil {
		for _, part := range k.parts {
			if part.Var != nil && part.Var.CEL != nil {
				k.err = errorAt(col, ErrSyntax, "a key holds variables, not ${cel:} values: compute the key's text with a variable of the section's item")
			}
		}
	}
	return k
}

func (k *templateKeyStep) column() int { return k.col }

func (k *templateKeyStep) write(b *strings.Builder, _ bool) { b.WriteString("[" + k.text + "]") }

func (k *templateKeyStep) listTokens(out []listToken) []listToken {
	return append(out, listToken{kind: 'f', text: k.text})
}

// resolve takes a map's value type; a struct has no key with variables.
func (k *templateKeyStep) resolve(w typeWalk, n *typeNode) (typed, *problem) {
	if k.err != nil {
		return typed{step: k}, k.err
	}
	switch n.kind {
	case tMap:
		return typed{step: k, node: n.elem}, nil
	case tAny:
		return typed{step: k}, nil
	}
	return typed{step: k}, errorf(ErrType, "%s is %s: a key with variables is a key of a map (labels, annotations), a field is named as written", w.at(), n.describe())
}

// apply reads the key's variables and performs the key as a field step.
func (k *templateKeyStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	if k.err != nil {
		return c.fail(k.err)
	}
	v, err := expandTemplate(&Value{Raw: k.text, Parts: k.parts, Quoted: true}, c.vars, &a.expanded)
	if err != nil {
		return c.fail(err)
	}
	name, _ := scalarText(plainValue(v))
	if name == "" {
		return c.fail(errorf(ErrValue, "the key [%s] is empty on this object", k.text))
	}
	return a.applyField(s, cur, c, name)
}
