package main

import (
	"slices"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// ordered returns the files in the order they apply, as the webhook
// orders a registry (kpatch.OrderKey): by layer (a file's
// `# kpatch:layer: N` line, else 0), then from the generic target to the
// specific one (a replacements file ranks by its targets' selects), then
// in the order given. Files of
// --registry keep the keys the registry gave them.
func (fs patchFiles) ordered() patchFiles {
	out := slices.Clone(fs)
	for i := range out {
		f := &out[i]
		switch {
		case f.order.Source != "":
		case f.patch != nil:
			f.order = kpatch.OrderKey{Layer: f.patch.Layer().Value, Specificity: f.patch.Specificity(), Position: i}
		default:
			f.order = kpatch.OrderKey{Specificity: f.repl.Specificity(), Position: i}
		}
	}
	slices.SortStableFunc(out, func(a, b patchFile) int { return a.order.Compare(b.order) })
	return out
}

// keys returns the order keys of the compiled patch files, in order:
// those of patches().
func (fs patchFiles) keys() []kpatch.OrderKey {
	var out []kpatch.OrderKey
	for _, f := range fs {
		if f.patch != nil {
			out = append(out, f.order)
		}
	}
	return out
}
