package kpatch

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// OperationsKey is the metadata key of the admission operations a file
// applies on: `# kpatch:operations: CREATE, UPDATE`, or operations: in a
// YAML patch file's metadata entry.
const OperationsKey = "operations"

// Operations is a set of admission operations: those a file applies on.
// The zero value is a file that says nothing, which applies on every
// operation (AllOperations).
type Operations uint8

// The admission operations a file may apply on.
const (
	OperationCreate Operations = 1 << iota
	OperationUpdate
	// AllOperations are the operations of a file that says nothing.
	AllOperations = OperationCreate | OperationUpdate
)

// operationNames are the operations as the admission request names them,
// in the order they are listed.
var operationNames = []struct {
	op   Operations
	name string
}{{OperationCreate, "CREATE"}, {OperationUpdate, "UPDATE"}}

// ParseOperation reads one operation, CREATE or UPDATE, in any case; 0
// when it is neither.
func ParseOperation(s string) Operations {
	for _, o := range operationNames {
		if strings.EqualFold(s, o.name) {
			return o.op
		}
	}
	return 0
}

// Has reports whether the set holds the admission operation named op
// (CREATE, UPDATE, as a request names it; "" is CREATE). The zero set
// holds every operation.
func (s Operations) Has(op string) bool {
	if op == "" {
		op = "CREATE"
	}
	return s.orAll()&ParseOperation(op) != 0
}

// Names lists the operations of the set as a request names them, CREATE
// first; every one for the zero set.
func (s Operations) Names() []string {
	var out []string
	for _, o := range operationNames {
		if s.orAll()&o.op != 0 {
			out = append(out, o.name)
		}
	}
	return out
}

// String lists the operations, comma separated: "CREATE, UPDATE".
func (s Operations) String() string { return strings.Join(s.Names(), ", ") }

func (s Operations) orAll() Operations {
	if s == 0 {
		return AllOperations
	}
	return s
}

// Operations returns the admission operations the file applies on: what
// its metadata says, else every one.
func (p *Patch) Operations() Operations { return p.file.Metadata.Operations.orAll() }

// operationsText reads `CREATE, UPDATE`: operations separated by commas
// or spaces, in any case.
func operationsText(m *Metadata, text string, pos Position) *ParseError {
	if m.Operations != 0 {
		return metaError(pos, ErrSyntax, "%s: given twice", OperationsKey)
	}
	var set Operations
	err := eachName(text, pos, func(name string, at Position) *ParseError {
		op := ParseOperation(name)
		if op == 0 {
			return operationError(name, at)
		}
		set |= op
		return nil
	})
	if err != nil {
		return err
	}
	if set == 0 {
		return metaError(pos, ErrSyntax, "%s: expected CREATE, UPDATE or both, comma separated", OperationsKey)
	}
	m.Operations = set
	return nil
}

// operationsNode reads a list of operations, or a text of them as
// operationsText does.
func operationsNode(m *Metadata, n *yaml.Node, pos Position) *ParseError {
	if n.Kind == yaml.ScalarNode {
		return operationsText(m, n.Value, Position{File: pos.File, Line: n.Line, Column: n.Column})
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return metaError(pos, ErrSyntax, "%s: expected a list of CREATE, UPDATE or both", OperationsKey)
	}
	var set Operations
	for _, item := range n.Content {
		at := Position{File: pos.File, Line: item.Line, Column: item.Column}
		op := Operations(0)
		if item.Kind == yaml.ScalarNode {
			op = ParseOperation(item.Value)
		}
		if op == 0 {
			return operationError(item.Value, at)
		}
		set |= op
	}
	m.Operations = set
	return nil
}

func operationError(word string, pos Position) *ParseError {
	return metaError(pos, ErrSyntax, "%s: %q is not CREATE or UPDATE (the operations the webhook patches)", OperationsKey, word)
}
