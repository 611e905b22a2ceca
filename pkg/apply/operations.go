package apply

import (
	"errors"
	"fmt"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// ErrOtherOperation is why a file does not apply to an object on an
// operation its `# kpatch:operations:` leaves out: the Err of its
// Unmatched run, told to an Observer.
var ErrOtherOperation = errors.New("the file does not apply on the operation")

// otherOperation says that a file of ops does not apply on op.
func otherOperation(ops kpatch.Operations, op string) error {
	if op == "" {
		op = "CREATE"
	}
	return fmt.Errorf("%w: operations %s, not %s", ErrOtherOperation, ops, op)
}

// Operational is a File that applies on some admission operations only
// (a patch file's `# kpatch:operations:`). A File that is not Operational
// applies on every operation.
type Operational interface {
	// Operations are the admission operations the file applies on.
	Operations() kpatch.Operations
}

// OperationsOf returns the admission operations f applies on.
func OperationsOf(f File) kpatch.Operations {
	if o, ok := f.(Operational); ok {
		return o.Operations()
	}
	return kpatch.AllOperations
}

// ForOperation returns the files that apply on the admission operation
// op ("" is CREATE), in order: files itself when they all do.
func ForOperation(files []File, op string) []File {
	for i, f := range files {
		if OperationsOf(f).Has(op) {
			continue
		}
		out := append(make([]File, 0, len(files)-1), files[:i]...)
		for _, f := range files[i+1:] {
			if OperationsOf(f).Has(op) {
				out = append(out, f)
			}
		}
		return out
	}
	return files
}

// Operations are the operations the patch's metadata names, every one
// when it names none.
func (f PatchFile) Operations() kpatch.Operations { return f.Patch.Operations() }

// Operations are those of the file it wraps: a file left out of an
// operation is not reported there.
func (f *outFile) Operations() kpatch.Operations { return OperationsOf(f.File) }

var (
	_ Operational = PatchFile{}
	_ Operational = (*outFile)(nil)
)
