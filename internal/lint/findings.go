package lint

import (
	"errors"
	"fmt"
	"io"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// Findings are the problems one run of a command found, in the order
// found: errors make the command exit 1, warnings do not.
type Findings struct {
	List []Finding
}

// Finding is one problem and whether it is only a warning.
type Finding struct {
	Err     error
	Warning bool
}

// Add records a problem that fails the command; each error of a
// kpatch.ErrorList is a finding of its own.
func (f *Findings) Add(err error) {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		f.List = append(f.List, Finding{Err: err})
		return
	}
	for _, e := range list {
		f.List = append(f.List, Finding{Err: e})
	}
}

// Warn records a problem that does not fail the command.
func (f *Findings) Warn(err error) { f.List = append(f.List, Finding{Err: err, Warning: true}) }

// Failed reports whether any error was found.
func (f *Findings) Failed() bool {
	for _, p := range f.List {
		if !p.Warning {
			return true
		}
	}
	return false
}

// Print writes every finding, one a line.
func (f *Findings) Print(w io.Writer) {
	for _, p := range f.List {
		fmt.Fprintln(w, p.Err)
	}
}

// NotIdempotent is a construct of a patch file that changes the object
// again each time the file runs (the engine's kpatch.ErrNotIdempotent): a
// warning, unless Fatal (lint --fail-not-idempotent).
type NotIdempotent struct {
	err   *kpatch.ParseError
	Fatal bool
}

func (n *NotIdempotent) Error() string {
	if n.Fatal {
		return n.err.Error()
	}
	return n.err.Pos.String() + ": warning: " + n.err.Msg
}

func (n *NotIdempotent) Unwrap() error { return n.err }

// ReportCheck records a problem that Patch.Check found: a finding about
// idempotence is a warning unless failNotIdempotent, anything else an
// error.
func (f *Findings) ReportCheck(err error, failNotIdempotent bool) {
	var pe *kpatch.ParseError
	if !errors.Is(err, kpatch.ErrNotIdempotent) || !errors.As(err, &pe) {
		f.Add(err)
		return
	}
	n := &NotIdempotent{err: pe, Fatal: failNotIdempotent}
	if n.Fatal {
		f.Add(n)
		return
	}
	f.Warn(n)
}

// ReportUnmatched records the sections whose target matches no object.
func (f *Findings) ReportUnmatched(unmatched []*UnmatchedTarget) {
	for _, u := range unmatched {
		if u.Fatal {
			f.Add(u)
		} else {
			f.Warn(u)
		}
	}
}

// UselessOverride is a kpatch.UselessOverride as lint prints it: a
// warning.
type UselessOverride struct{ *kpatch.UselessOverride }

func (u *UselessOverride) Error() string {
	return u.Pos.String() + ": warning: " + u.UselessOverride.Error()[len(u.Pos.String())+2:]
}

// UselessField is a kpatch.UselessField of several entries as lint prints
// it: a warning.
type UselessField struct{ *kpatch.UselessField }

func (u *UselessField) Error() string {
	pos := u.Entries[0].Pos.String()
	return pos + ": warning: " + u.UselessField.Error()[len(pos)+2:]
}

// OverwrittenFile is a kpatch.OverwrittenFile as lint prints it: a
// warning.
type OverwrittenFile struct{ *kpatch.OverwrittenFile }

func (o *OverwrittenFile) Error() string {
	return o.Pos.String() + ": warning: " + o.OverwrittenFile.Error()[len(o.Pos.String())+2:]
}
