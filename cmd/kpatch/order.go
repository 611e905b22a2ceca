package main

import (
	"slices"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// ordered returns the files in the order they apply, as the webhook
// orders a registry (kpatch.OrderKey): by layer (a file's
// `# kpatch:layer: N` line, else 0), then from the generic target to the
// specific one, then in the order given. A replacements file stays where
// it was given: the patch files are ordered within each run between two
// of them. Files of --registry keep the keys the registry gave them.
func (fs patchFiles) ordered() patchFiles {
	out := slices.Clone(fs)
	for i := range out {
		f := &out[i]
		if f.patch == nil || f.order.Source != "" {
			continue
		}
		f.order = kpatch.OrderKey{Layer: f.patch.Layer().Value, Specificity: f.patch.Specificity(), Position: i}
	}
	start := 0
	for i := 0; i <= len(out); i++ {
		if i < len(out) && out[i].patch != nil {
			continue
		}
		slices.SortStableFunc(out[start:i], func(a, b patchFile) int { return a.order.Compare(b.order) })
		start = i + 1
	}
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

// conflicts are the conflicts between the patch files, which are in the
// order they apply: within a layer and specificity (kpatch.ConflictsInOrder).
func (fs patchFiles) conflicts() []*kpatch.Conflict {
	out, _ := kpatch.ConflictsInOrder(fs.patches(), fs.keys(), -1)
	return out
}
