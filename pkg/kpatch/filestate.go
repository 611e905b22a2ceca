package kpatch

import "strconv"

// State is whether a file of a set is enabled (Patch.Enabled).
type State uint8

const (
	// Enabled is a file that applies.
	Enabled State = iota
	// Disabled is a file whose enabled: is false: it is left out, and
	// the files that require it fail.
	Disabled
	// Unknown is a file whose enabled: is not known yet: it depends on
	// the object (a value a Namespace may set, a built-in), or the
	// values are not given. Its relations are checked once it is known.
	Unknown
)

// Check returns, for each member, why it does not apply given the state
// of each member (nil when it does, or when it is disabled): the errors
// of Relate; a requirement that is disabled or does not apply itself; a
// conflicts: with a file that applies before it, both enabled (the
// earlier one applies). Relations with a member of Unknown state are left
// for when it is known.
func (r *Relations) Check(states []State) []error {
	errs := make([]error, len(r.members))
	for _, i := range r.Order {
		if states[i] == Disabled {
			continue
		}
		list := asList(r.Errs[i])
		for _, j := range r.Requires[i] {
			switch {
			case errs[j] != nil && r.Errs[i] == nil: // a cycle's members report the cycle alone
				list = append(list, metaError(r.requiresPos(i, j), ErrRequirement, "requires %s, which does not apply", r.members[j].File))
			case states[j] == Disabled:
				list = append(list, metaError(r.requiresPos(i, j), ErrRequirement, "requires %s, which is disabled (%s)", r.members[j].File, r.enabledText(j)))
			}
		}
		for _, j := range r.Conflicts[i] {
			if r.pos[j] < r.pos[i] && errs[j] == nil && states[j] == Enabled && states[i] == Enabled {
				list = append(list, r.ConflictError(i, j))
			}
		}
		errs[i] = list.Err()
	}
	return errs
}

// RequirementError is the error of member i, whose requires: names
// member j, when j does not apply on an object: why is what j's state
// is there (such as "disabled for this object").
func (r *Relations) RequirementError(i, j int, why string) error {
	return metaError(r.requiresPos(i, j), ErrRequirement, "requires %s, which is %s", r.members[j].File, why)
}

// ConflictError is the error of member i, which conflicts with member j,
// both enabled, j applying first: placed at i's conflicts: when it names
// j, else at j's.
func (r *Relations) ConflictError(i, j int) error {
	pos, ok := r.conflictsPos(i, j)
	if !ok {
		pos, _ = r.conflictsPos(j, i)
	}
	return metaError(pos, ErrFileConflict, "%s and %s conflict, and both are enabled: %s applies, %s does not", r.members[i].File, r.members[j].File, r.members[j].File, r.members[i].File)
}

// conflictsPos is where member i's conflicts: names member j.
func (r *Relations) conflictsPos(i, j int) (Position, bool) {
	m := &r.members[i]
	if m.Meta == nil {
		return Position{}, false
	}
	for _, c := range m.Meta.Conflicts {
		for _, k := range r.idx.lookup(m, c.Name) {
			if k == j {
				return c.Pos, true
			}
		}
	}
	return Position{}, false
}

// enabledText is how member i's enabled: is written, for messages.
func (r *Relations) enabledText(i int) string {
	if m := r.members[i].Meta; m != nil && m.Enabled != nil {
		return "enabled: " + m.Enabled.Value.Raw + " at line " + strconv.Itoa(m.Enabled.Pos.Line)
	}
	return "enabled: false"
}

// Pos returns member i's place in Order.
func (r *Relations) Pos(i int) int { return r.pos[i] }
