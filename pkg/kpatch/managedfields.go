package kpatch

import "kpatch.dev/kpatch/pkg/condition"

// ReadsManagedFields reports whether the patch may read or write the
// object's metadata.managedFields, as found when it compiled. When no
// file that applies to an object may, the object can be decoded without
// them (objectjson.WithoutManagedFields): the API server keeps them on
// every object, about half of its bytes. To be safe it is true for a
// patch with a condition or a CEL expression that may read them
// (condition.ReadsManagedFields: one that reads object or
// object.metadata other than by a field's name that is not
// managedFields), with a merge entry (a strategic merge may replace
// metadata whole), and with an entry whose path is the object or its
// metadata whole, names managedFields, or takes another step than a
// field name within its first two.
func (p *Patch) ReadsManagedFields() bool { return p.managedFields }

// mayReachManagedFields is ReadsManagedFields, found.
func (p *Patch) mayReachManagedFields() bool {
	for _, c := range p.conds {
		if c.ReadsManagedFields() {
			return true
		}
	}
	reads := false
	p.eachExpression(func(e *condition.Expression, _ Position) { reads = reads || e.ReadsManagedFields() })
	if reads {
		return true
	}
	for _, s := range p.sections {
		if s.merge != nil {
			return true
		}
		for _, op := range s.ops {
			if reachesManagedFields(op.generic) {
				return true
			}
			for _, pl := range op.schemas {
				if reachesManagedFields(pl) {
					return true
				}
			}
		}
	}
	return false
}

// reachesManagedFields reports whether the path of pl (nil: none) may
// reach metadata.managedFields.
func reachesManagedFields(pl *plan) bool {
	if pl == nil {
		return false
	}
	if len(pl.steps) == 0 {
		return true
	}
	first, ok := pl.steps[0].(*fieldStep)
	switch {
	case !ok:
		return true
	case first.name != "metadata":
		return false
	case len(pl.steps) == 1:
		return true
	}
	second, ok := pl.steps[1].(*fieldStep)
	return !ok || second.name == "managedFields"
}
