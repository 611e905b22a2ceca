package kpatch

import (
	"errors"
	"fmt"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// Sentinel errors of file metadata, beside ErrSyntax for what does not
// follow its grammar.
var (
	// ErrRequirement is a file that a requires: of another names, and
	// that is missing, ambiguous, disabled or does not apply.
	ErrRequirement = errors.New("requirement not met")
	// ErrRequiresCycle is a cycle of requires: between files.
	ErrRequiresCycle = errors.New("requirements form a cycle")
	// ErrFileConflict is two enabled files of which one says conflicts:
	// with the other.
	ErrFileConflict = errors.New("conflicting files")
)

// Metadata is what a patch file says about itself: `# kpatch:KEY: VALUE`
// comment lines before the first header of a .kpatch file, or the first
// entry `- metadata: {...}` of a YAML patch file. The zero Metadata is a
// file that always applies, requires nothing and conflicts with nothing.
type Metadata struct {
	// Enabled, when set, decides whether the file applies: only when its
	// value, with its variables bound, is truthy (Truthy).
	Enabled *MetaValue
	// Mode is whether the file changes the objects it matches or is
	// only evaluated on them (ModeAudit).
	Mode FileMode
	// Requires names the files this one needs: they must apply too, and
	// this file applies after them.
	Requires []FileName
	// Conflicts names the files this one cannot apply with.
	Conflicts []FileName
	// Description says what the file does, for people.
	Description string
	// Layer is the layer the file gives itself (docs/layers.md).
	Layer FileLayer
	// When, when set, is the condition of the whole file: a CEL
	// expression over the admitted object and its request.
	When *When
	// Operations are the admission operations the file applies on; 0:
	// every one (Patch.Operations).
	Operations Operations
	// Reconcile says that the file opts in to the reconcile of existing
	// objects (`# kpatch:reconcile: true`, docs/drift.md); ReconcilePos
	// is where it is written, the zero Position when it is not.
	Reconcile    bool
	ReconcilePos Position
}

// MetaValue is a metadata value that may hold variables, and where it is
// written.
type MetaValue struct {
	Value Value
	Pos   Position
}

// FileName names another patch file in metadata: NAME, its name without
// the extension, or GROUP/NAME (a registry file of another ConfigMap, a
// file of another directory).
type FileName struct {
	Name string
	Pos  Position
}

// Metadata returns what the file says about itself.
func (p *Patch) Metadata() *Metadata { return &p.file.Metadata }

// Enabled reports whether the file applies with the variables it is
// bound to, by Kure's rule (Truthy); a file without enabled: always
// applies. A variable that has no value is an error (*ParseError) at the
// enabled value; so is a built-in when the variables give none.
func (p *Patch) Enabled() (bool, error) {
	e := p.file.Metadata.Enabled
	if e == nil {
		return true, nil
	}
	v, err := e.eval(p.vars)
	if err != nil {
		return false, e.error(err)
	}
	return jsonvalue.Truthy(v), nil
}

// enabledProblem is the problem of the enabled value with the variables
// of p, unless it reads a built-in that the variables do not give: Bind
// leaves such a value to be checked for each object.
func (p *Patch) enabledProblem() error {
	e := p.file.Metadata.Enabled
	if e == nil {
		return nil
	}
	if _, err := e.eval(p.vars); err != nil && !deferred(err) {
		return e.error(err)
	}
	return nil
}

// eval binds the value's variables.
func (e *MetaValue) eval(vars *Variables) (any, *problem) {
	if !e.Value.IsTemplate() {
		return e.Value.Scalar, nil
	}
	var ex expansion
	v, err := expandTemplate(&e.Value, vars, &ex)
	return printedValue(v), err
}

// error places a problem of the value at it.
func (e *MetaValue) error(p *problem) *ParseError {
	return &ParseError{Pos: e.Pos, Err: p.err, Msg: "enabled: " + p.msg}
}

// metaError is a problem of metadata at pos.
func metaError(pos Position, sentinel error, format string, args ...any) *ParseError {
	return &ParseError{Pos: pos, Err: sentinel, Msg: fmt.Sprintf(format, args...)}
}

// DisabledReason says why the file does not apply: its enabled: as
// written and, when it holds variables, the value they give it
// ("enabled: ${features.canary} is false"; "enabled: false" for a
// constant). It is "" when the file applies, and when its enabled: has
// an error (Enabled returns it).
func (p *Patch) DisabledReason() string {
	e := p.file.Metadata.Enabled
	if e == nil {
		return ""
	}
	v, err := e.eval(p.vars)
	if err != nil || jsonvalue.Truthy(v) {
		return ""
	}
	if !e.Value.IsTemplate() {
		return "enabled: " + e.Value.Raw
	}
	return "enabled: " + e.Value.Raw + " is " + valueText(v)
}
