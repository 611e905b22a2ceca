package condition

import (
	"errors"
	"fmt"

	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// ErrBudgetSpent is the cause of a condition that was not evaluated, or
// stopped, because its owner's Budget for the object was spent; it
// wraps ErrCostExceeded. Unlike a condition that fails on an object, it
// says nothing of the file: the caller answers it as it answers an
// internal error (the webhook's --on-error).
var ErrBudgetSpent = fmt.Errorf("the request's CEL budget is spent: %w", ErrCostExceeded)

// IsBudgetSpent says whether err is, or wraps, ErrBudgetSpent.
func IsBudgetSpent(err error) bool { return errors.Is(err, ErrBudgetSpent) }

// RequestBudget is what the conditions of one request may cost together,
// the API server's runtime budget of one admission policy.
const RequestBudget = celconfig.RuntimeCELCostBudget

// Budget is the CEL cost left to one request. One Budget serves one
// request; it is not safe for concurrent use.
type Budget struct {
	limit, spent uint64
}

// NewBudget returns a Budget of limit cost units (RequestBudget when
// limit is 0).
func NewBudget(limit uint64) *Budget {
	if limit == 0 {
		limit = RequestBudget
	}
	return &Budget{limit: limit}
}

// Spent is the cost charged so far.
func (b *Budget) Spent() uint64 { return b.spent }

func (b *Budget) charge(cost uint64) { b.spent += cost }

func (b *Budget) exceeded() bool { return b.spent > b.limit }
