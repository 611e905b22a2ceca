package diff

// maxRebuilds bounds how many lists the self-check may ask to write whole
// before kpatch diff gives up.
const maxRebuilds = 16

// Print prints the patch file that turns the objects of base into
// those of target, pairs (see PairObjects) patched one by one: format
// kpatch is a .kpatch file, yaml a YAML patch file. It checks the file
// (selfCheck): where a list's changes do not reach the target, it writes
// that list whole and tries again; any other mismatch is an error.
func Print(format string, pairs []Pair, base, target []*Object) ([]byte, error) {
	targets := make(map[Key]*Object, len(target))
	for _, t := range target {
		targets[t.Key] = t
	}
	render, name := renderKpatch, "diff.kpatch"
	if format == "yaml" {
		render, name = renderYAML, "diff.yaml"
	}
	rebuild := map[Key]map[string]bool{}
	sh := newShorthand()
	for attempt := 0; ; attempt++ {
		patches, err := objectPatches(pairs, base, rebuild)
		if err != nil {
			return nil, err
		}
		out, err := render(patches, sh)
		if err != nil {
			return nil, err
		}
		m, err := selfCheck(name, out, base, targets)
		if err != nil || m == nil {
			return out, err
		}
		if attempt == maxRebuilds || m.list == "" || rebuild[m.key][m.list] {
			return nil, m
		}
		if rebuild[m.key] == nil {
			rebuild[m.key] = map[string]bool{}
		}
		rebuild[m.key][m.list] = true
	}
}

// objectPatches returns the changes of every pair that differs; rebuild
// holds, per object, the lists to write whole.
func objectPatches(pairs []Pair, base []*Object, rebuild map[Key]map[string]bool) ([]*objectPatch, error) {
	var patches []*objectPatch
	for _, p := range pairs {
		changes, err := Changes(p.Base.Ref.String(), p.Base.Obj, p.Target.Obj, rebuild[p.Base.Key])
		if err != nil {
			return nil, err
		}
		if len(changes) > 0 {
			patches = append(patches, &objectPatch{target: targetFor(p.Base, base), apiVersion: p.Base.Ref.APIVersion,
				kind: p.Base.Ref.Kind, object: p.Base.Ref.String(), changes: changes})
		}
	}
	return patches, nil
}
