package fileerr

import (
	"errors"
	"testing"
)

func TestErrors(t *testing.T) {
	pe := &ParseError{Pos: Position{File: "a.kpatch", Line: 3, Column: 7}, Err: ErrSyntax, Msg: "expected ]"}
	ae := &ApplyError{Pos: Position{File: "a.kpatch", Line: 4, Column: 1}, Object: "Deployment shop/web", Err: ErrNoMatch, Msg: "no container web"}
	if got := pe.Error(); got != "a.kpatch:3:7: expected ]" {
		t.Errorf("ParseError: %q", got)
	}
	if got := ae.Error(); got != "a.kpatch:4:1: Deployment shop/web: no container web" {
		t.Errorf("ApplyError: %q", got)
	}
	var empty List
	if empty.Err() != nil {
		t.Error("an empty list is an error")
	}
	err := List{pe, ae}.Err()
	if err.Error() != pe.Error()+"\n"+ae.Error() {
		t.Errorf("List: %q", err)
	}
	if !errors.Is(err, ErrSyntax) || !errors.Is(err, ErrNoMatch) || errors.Is(err, ErrValue) {
		t.Error("errors.Is does not see the causes of the list")
	}
	var got *ApplyError
	if !errors.As(err, &got) || got != ae {
		t.Error("errors.As does not find the ApplyError")
	}
}

func TestSortParseErrors(t *testing.T) {
	at := func(line, col int, msg string) error {
		return &ParseError{Pos: Position{File: "f", Line: line, Column: col}, Msg: msg}
	}
	l := List{at(3, 1, "c"), at(1, 5, "b"), at(1, 2, "a"), at(3, 1, "d")}
	SortParseErrors(l)
	var order string
	for _, e := range l {
		order += e.(*ParseError).Msg
	}
	if order != "abcd" {
		t.Errorf("order %s, want abcd (stable at one place)", order)
	}
}
