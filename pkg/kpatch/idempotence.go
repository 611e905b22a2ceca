package kpatch

import (
	"slices"
	"strconv"
)

// idempotenceWarnings reports, as *ParseError wrapping ErrNotIdempotent,
// the constructs of a file that change the object again each time the
// file runs:
//
//   - deleting a list item by index ([delete=0], containers.0[delete]),
//     which removes the next item on the next run;
//   - an entry that reaches every item of a list (containers[*].x, or a
//     field of every container), written before an insertion into that
//     list: the next run also changes the inserted item.
func (p *Patch) idempotenceWarnings() ErrorList {
	var errs ErrorList
	var reaches []*listReach // entries over every item of a list, so far
	for _, s := range p.sections {
		for _, op := range s.ops {
			pl := s.standIn(op)
			if pl.err != nil {
				continue
			}
			if err := pl.indexDeleteWarning(); err != nil {
				errs = append(errs, err.parseError(p.name))
			}
			if pl.act == actInsert {
				errs = appendInsertionWarnings(errs, p.name, reaches, pl)
			}
			reaches = append(reaches, everyItemReaches(pl)...)
		}
	}
	return errs
}

// indexDeleteWarning warns about a delete by index of a list item.
func (pl *plan) indexDeleteWarning() *problem {
	n := len(pl.steps)
	if pl.act != actDelete || n == 0 {
		return nil
	}
	index, byIndex := 0, false
	switch last := pl.steps[n-1].(type) {
	case *deleteItemsStep:
		index, byIndex = last.index, last.match == nil && !last.every
	case *indexStep:
		index, byIndex = last.index, pl.typed // a list index: the schema says so
	}
	if !byIndex {
		return nil
	}
	return errorf(ErrNotIdempotent, "not idempotent: deleting %s%s by index removes another item each time the file runs; select the item instead, as in [delete=name=NAME]",
		pathText(pl.steps[:n-1]), "["+strconv.Itoa(index)+"]").at(pl.line, pl.stepCol(n-1))
}

// listToken is one step of a path as far as list items go: a field, every
// item, or some items (a selector or an index, written as text).
type listToken struct {
	kind byte // 'f' field, 'a' every item, 's' some items
	text string
}

// listReach is an entry that reaches every item of the list at list.
type listReach struct {
	pl       *plan
	list     []listToken
	listText string
	warned   bool
}

// listTokens turns steps into tokens (see step.listTokens).
func listTokens(steps []step) []listToken {
	out := make([]listToken, 0, len(steps)+2)
	for _, st := range steps {
		out = st.listTokens(out)
	}
	return out
}

// everyItemReaches lists the lists whose every item a plan reaches: those
// before a step whose tokens hold every item.
func everyItemReaches(pl *plan) []*listReach {
	var out []*listReach
	for i, st := range pl.steps {
		if slices.Contains(st.listTokens(nil), listToken{kind: 'a'}) {
			list := listTokens(pl.steps[:i])
			out = append(out, &listReach{pl: pl, list: list, listText: pathText(pl.steps[:i])})
		}
	}
	return out
}

// appendInsertionWarnings warns, once each, about the entries that reach
// every item of the list the insertion pl adds to.
func appendInsertionWarnings(errs ErrorList, file string, reaches []*listReach, pl *plan) ErrorList {
	list := listTokens(pl.steps[:len(pl.steps)-1])
	for _, r := range reaches {
		if r.warned || !sameList(r.list, list) {
			continue
		}
		r.warned = true
		err := errorf(ErrNotIdempotent, "not idempotent: this entry reaches every item of %s, and the insertion at line %d adds an item to it afterwards, which the next run changes too; write the entry after the insertion",
			r.listText, pl.line)
		errs = append(errs, err.at(r.pl.line, r.pl.col).parseError(file))
	}
	return errs
}

// sameList reports whether two list paths may be the same list: fields
// equal, and items that may overlap (every item overlaps any; two
// selections only when written alike).
func sameList(a, b []listToken) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x.kind == 'f' || y.kind == 'f':
			if x != y {
				return false
			}
		case x.kind == 's' && y.kind == 's' && x.text != y.text:
			return false
		}
	}
	return true
}
