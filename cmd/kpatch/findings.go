package main

import (
	"errors"
	"fmt"
	"io"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// findings are the problems one run of a command found, in the order
// found: errors make the command exit 1, warnings do not.
type findings struct {
	list []finding
}

// finding is one problem and whether it is only a warning.
type finding struct {
	err     error
	warning bool
}

// error records a problem that fails the command; each error of a
// kpatch.ErrorList is a finding of its own.
func (f *findings) error(err error) {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		f.list = append(f.list, finding{err: err})
		return
	}
	for _, e := range list {
		f.list = append(f.list, finding{err: e})
	}
}

// warn records a problem that does not fail the command.
func (f *findings) warn(err error) { f.list = append(f.list, finding{err: err, warning: true}) }

// failed reports whether any error was found.
func (f *findings) failed() bool {
	for _, p := range f.list {
		if !p.warning {
			return true
		}
	}
	return false
}

// print writes every finding, one a line.
func (f *findings) print(w io.Writer) {
	for _, p := range f.list {
		fmt.Fprintln(w, p.err)
	}
}

// notIdempotent is a construct of a patch file that changes the object
// again each time the file runs (the engine's kpatch.ErrNotIdempotent): a
// warning, unless Fatal (lint --fail-not-idempotent).
type notIdempotent struct {
	err   *kpatch.ParseError
	Fatal bool
}

func (n *notIdempotent) Error() string {
	if n.Fatal {
		return n.err.Error()
	}
	return n.err.Pos.String() + ": warning: " + n.err.Msg
}

func (n *notIdempotent) Unwrap() error { return n.err }

// reportCheck records a problem that Patch.Check found: a finding about
// idempotence is a warning unless failNotIdempotent, anything else an
// error.
func (f *findings) reportCheck(err error, failNotIdempotent bool) {
	var pe *kpatch.ParseError
	if !errors.Is(err, kpatch.ErrNotIdempotent) || !errors.As(err, &pe) {
		f.error(err)
		return
	}
	n := &notIdempotent{err: pe, Fatal: failNotIdempotent}
	if n.Fatal {
		f.error(n)
		return
	}
	f.warn(n)
}

// reportUnmatched records the sections whose target matches no object.
func (f *findings) reportUnmatched(unmatched []*unmatchedTarget) {
	for _, u := range unmatched {
		if u.Fatal {
			f.error(u)
		} else {
			f.warn(u)
		}
	}
}
