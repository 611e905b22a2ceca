package kpatch

// Limits of the format on what values built from variables may take, so
// that a large variable referenced many times cannot turn one file into
// gigabytes on every object. An object the API server stores is at most
// about 1.5 MiB, so no useful file comes near them.
const (
	// MaxExpandedValue is the most bytes one value built from variables
	// may take: a template's text, or a YAML value's strings.
	MaxExpandedValue = 1 << 20
	// MaxExpandedPerObject is the most bytes the values built from
	// variables of one file may take on one object, all entries (and
	// every item a path reaches) together.
	MaxExpandedPerObject = 3 << 20
)

// expansion counts the bytes that the values built from variables of one
// file take on one object, against MaxExpandedPerObject.
//
// It carries what the CEL values of the file read: the evaluator of the
// object's (nil where no object is known: the values are deferred) and
// the file's values as params.
type expansion struct {
	used   int
	cel    ExpressionEvaluator
	params map[string]any
}

// over reports whether the values have gone past MaxExpandedPerObject.
func (e *expansion) over() bool { return e.used > MaxExpandedPerObject }

// take counts n more bytes of one value built from variables.
func (e *expansion) take(n int) *problem {
	if n > MaxExpandedValue {
		return errorf(ErrLimit, "the value built from variables would be %d bytes; a value built from variables is at most %d bytes", n, MaxExpandedValue)
	}
	e.used += n
	if e.used > MaxExpandedPerObject {
		return errorf(ErrLimit, "the values built from variables of this file take more than %d bytes on one object", MaxExpandedPerObject)
	}
	return nil
}
