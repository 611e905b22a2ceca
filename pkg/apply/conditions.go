package apply

import (
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/condition"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// Admission is what the files' conditions (`# kpatch:when:`) read beside
// the object they are evaluated on, as in a MutatingAdmissionPolicy:
// object is the object as it entered the loop (the admitted object,
// before any file), params the file's values; the rest comes from here.
type Admission struct {
	// Request is the admission request (request); nil: each object is a
	// CREATE of itself by an unnamed user, not a dry run
	// (condition.OfflineRequest). A Request without a kind is a template
	// (the CLI's): each object's request is it with the object's kind,
	// name and namespace (condition.RequestFor).
	Request *admissionv1.AdmissionRequest
	// Objects, if set, gives the old object and the Namespace; nil:
	// oldObject and namespaceObject are null.
	Objects AdmissionObjects
	// CostBudget is what the conditions of one owner's files (Meta.Owner:
	// the registry admin's, or one tenant's) may cost together on one
	// object, in CEL cost units; 0 is condition.RequestBudget, the API
	// server's budget of one admission policy. Each owner has a budget of
	// its own: a tenant's files cannot spend the admin's.
	CostBudget uint64
}

// AdmissionObjects gives the objects that conditions read beside the
// one they are evaluated on, asked once per object, when a condition
// first reads its variables.
type AdmissionObjects interface {
	// OldObject returns the stored object of an UPDATE (oldObject); nil
	// on CREATE.
	OldObject() map[string]any
	// Namespace returns the Namespace named name (namespaceObject), typed
	// or as an object, or nothing when it is not known. A cluster-scoped
	// object has no Namespace and does not ask.
	Namespace(name string) (*corev1.Namespace, map[string]any)
}

// Conditions are what the conditions of one file did on one object.
type Conditions struct {
	// Runs are the conditions evaluated, in order, and what they gave;
	// set for an Observer only.
	Runs []ConditionRun
	// Applied, when set, is the file as it applied to the object: without
	// the sections whose conditions do not hold there. Its Required
	// checks only the sections that applied.
	Applied File
}

// ConditionRun is one condition evaluated on one object (reported to an
// Observer only).
type ConditionRun struct {
	Condition *kpatch.Condition
	// Held says that the condition held; Err why it could not be
	// evaluated (it then does not hold).
	Held bool
	Err  error
	// Item names the item a per-item condition (Condition.Item) was
	// evaluated on: its list's path and its name or index; "" for the
	// others.
	Item string
}

// HasConditions reports whether a file has conditions: its run reads
// Options.Admission.
func HasConditions(files []File) bool {
	for _, f := range files {
		if f.Meta().Conditional {
			return true
		}
	}
	return false
}

// conditions are the variables of an object's conditions, made when a
// file with conditions first meets the object, the budget of each owner
// (Meta.Owner), and the results of the conditions evaluated ahead of
// their files (evalAhead).
type conditions struct {
	in      condition.Input
	vars    *condition.Vars
	budgets map[string]*condition.Budget
	ahead   map[aheadKey]aheadResult
}

// aheadKey is one condition of one file as bound to its values.
type aheadKey struct {
	c    *kpatch.Condition
	vars *kpatch.Variables
}

// aheadResult is what a condition evaluated ahead gave.
type aheadResult struct {
	held bool
	err  error
}

// budget is the budget of owner's conditions on the object, made on
// first use.
func (c *conditions) budget(owner string, limit uint64) *condition.Budget {
	b, ok := c.budgets[owner]
	if !ok {
		if c.budgets == nil {
			c.budgets = map[string]*condition.Budget{}
		}
		b = condition.NewBudget(limit)
		c.budgets[owner] = b
	}
	return b
}

// conditions returns the object's condition variables, making them on
// first use.
func (o *Object) conditions() *conditions {
	if o.cond != nil {
		return o.cond
	}
	adm := &o.adm
	c := &conditions{}
	c.in.Object, c.in.Request = o.in, adm.Request
	if adm.Request == nil || adm.Request.Kind.Kind == "" {
		c.in.Request = condition.RequestFor(adm.Request, o.in, o.first.Namespace)
	}
	if adm.Objects != nil {
		c.in.OldObject = adm.Objects.OldObject()
		if o.first.Namespace != "" {
			c.in.TypedNamespace, c.in.Namespace = adm.Objects.Namespace(o.first.Namespace)
		}
	}
	c.in.PodSpec, c.in.PodMetadata = kpatch.PodTemplate(o.in)
	c.vars = condition.NewVars(&c.in)
	o.cond = c
	return c
}

// Eval evaluates c, a condition of a file bound to vars (its values are
// params), on the object as it entered the loop, charged to the object's
// cost budget. An error says why it could not be evaluated: a field the
// object does not have, a wrong type (condition.ErrEvaluation), the cost
// limit of the call or of the object (condition.ErrCostExceeded).
func (o *Object) Eval(c *kpatch.Condition, vars *kpatch.Variables) (bool, error) {
	cs := o.conditions()
	r, ok := cs.ahead[aheadKey{c, vars}]
	if !ok {
		r.held, r.err = o.eval(cs, c, vars)
	}
	held, err := r.held, r.err
	if o.observed {
		if o.file == nil {
			o.file = &Conditions{}
		}
		o.file.Runs = append(o.file.Runs, ConditionRun{Condition: c, Held: held && err == nil, Err: err})
	}
	return held && err == nil, err
}

// eval evaluates c bound to vars on the object, charged to the budget of
// the owner of the file being applied.
func (o *Object) eval(cs *conditions, c *kpatch.Condition, vars *kpatch.Variables) (bool, error) {
	cs.in.Params = nil
	if vars != nil {
		cs.in.Params = vars.Values
	}
	return c.Eval(o.ctx, cs.vars, cs.budget(o.owner, o.adm.CostBudget))
}

// evalItem evaluates c, a per-item condition of a file bound to vars, on
// item, as Eval evaluates the others (kpatch.ApplyOptions.EvalItem):
// charged to the budget of the file's owner, told to an Observer with the
// item's name (where).
func (o *Object) evalItem(c *kpatch.Condition, vars *kpatch.Variables, item any, where string) (bool, error) {
	cs := o.conditions()
	cs.in.Item = item
	held, err := o.eval(cs, c, vars)
	cs.in.Item = nil
	if o.observed {
		if o.file == nil {
			o.file = &Conditions{}
		}
		o.file.Runs = append(o.file.Runs, ConditionRun{Condition: c, Held: held && err == nil, Err: err, Item: where})
	}
	return held && err == nil, err
}

// evalAhead evaluates c bound to vars before its file applies, and keeps
// the result for the file's Eval (File.EvalConditions).
func (o *Object) evalAhead(c *kpatch.Condition, vars *kpatch.Variables) {
	cs := o.conditions()
	k := aheadKey{c, vars}
	if _, done := cs.ahead[k]; done {
		return
	}
	var r aheadResult
	r.held, r.err = o.eval(cs, c, vars)
	if cs.ahead == nil {
		cs.ahead = map[aheadKey]aheadResult{}
	}
	cs.ahead[k] = r
}

// conditionError places the error of c on the object: the file's
// warning names the line of the condition and the CEL error.
func conditionError(c *kpatch.Condition, ref *kpatch.ObjectRef, err error) *kpatch.ApplyError {
	msg := "when: " + err.Error()
	if c.Section >= 0 {
		msg = "when of " + c.Header + ": " + err.Error() + "; the section is left out"
	}
	return &kpatch.ApplyError{Pos: c.Pos, Object: ref.String(), Err: err, Msg: msg}
}

// conditioned evaluates the conditions of the patch p on the object: it
// returns p without the sections whose conditions do not hold, or nil
// when the file's own condition does not hold, and the errors of the
// conditions that could not be evaluated (each counts as not holding).
// Only the conditions of sections that target the object are evaluated.
func conditioned(o *Object, p *kpatch.Patch, conds []*kpatch.Condition) (*kpatch.Patch, kpatch.ErrorList) {
	var (
		errs  kpatch.ErrorList
		leave []bool
	)
	for _, c := range conds {
		if c.Item || c.Section >= 0 && !p.SectionTargets(c.Section, o.ref) {
			continue // a per-item condition is evaluated as the file applies
		}
		held, err := o.Eval(c, p.Variables())
		if err != nil {
			errs = append(errs, conditionError(c, o.ref, err))
		}
		switch {
		case held:
		case c.Section < 0:
			return nil, errs
		default:
			if leave == nil {
				leave = make([]bool, p.SectionCount())
			}
			leave[c.Section] = true
		}
	}
	if leave != nil {
		p = p.Without(leave)
	}
	return p, errs
}
