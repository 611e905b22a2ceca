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

// ForOperation returns the files that apply on the admission operation
// op ("" is CREATE), in order: files itself when they all do.
func ForOperation(files []File, op string) []File {
	for i, f := range files {
		if f.Meta().Operations.Has(op) {
			continue
		}
		out := append(make([]File, 0, len(files)-1), files[:i]...)
		for _, f := range files[i+1:] {
			if f.Meta().Operations.Has(op) {
				out = append(out, f)
			}
		}
		return out
	}
	return files
}
