package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// maxValidationsPerUser is how many validations of one user
// (request.userInfo.username) may wait or run at once; one more is
// answered without a check (errTooManyValidations).
const maxValidationsPerUser = 4

// errTooManyValidations is a validation refused a place because as many
// of its user's are waiting or running already.
var errTooManyValidations = errors.New("as many validations of this user as one user may have are waiting or running")

// validationTurns gives the one place of the validation running to the
// users waiting for it in turn, rather than to the requests in the order
// they came: when a validation ends, the place goes to the user who has
// waited longest, and a user with more requests waiting comes back at the
// end of the line. So one user, however many edits they send (a registry
// editor's hammering, or forged reviews that claim a user when the path
// token is off), delays another user's validation by the one running and
// one per other user waiting; and holds at most maxValidationsPerUser of
// the requests /validate-registry serves at once. The zero value is ready
// to use.
type validationTurns struct {
	mu   sync.Mutex
	busy bool // the place is taken
	// held counts each user's validations waiting or running
	held map[string]int
	// waiting holds each user's waiters, in the order they came; a
	// waiter's channel is closed when the place is handed to it
	waiting map[string][]chan struct{}
	// order is the users with waiters, in the order their turns come
	order []string
}

// acquire waits for the place of the validation running, until ctx ends.
// It fails at once, with errTooManyValidations, when user has
// maxValidationsPerUser validations waiting or running. Without an error,
// the caller holds the place until release(user).
func (q *validationTurns) acquire(ctx context.Context, user string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q.mu.Lock()
	if q.held == nil {
		q.held, q.waiting = map[string]int{}, map[string][]chan struct{}{}
	}
	if n := q.held[user]; n >= maxValidationsPerUser {
		q.mu.Unlock()
		return fmt.Errorf("%w (%d, user %q)", errTooManyValidations, n, user)
	}
	q.held[user]++
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	if len(q.waiting[user]) == 0 {
		q.order = append(q.order, user)
	}
	q.waiting[user] = append(q.waiting[user], turn)
	q.mu.Unlock()
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	select {
	case <-turn: // handed over as ctx ended: hand it on
		q.mu.Unlock()
		q.release(user)
		return ctx.Err()
	default:
	}
	q.leave(user, turn)
	q.mu.Unlock()
	return ctx.Err()
}

// leave takes the waiter turn of user out of the line. q.mu is held.
func (q *validationTurns) leave(user string, turn chan struct{}) {
	w := q.waiting[user]
	for i, c := range w {
		if c == turn {
			w = append(w[:i:i], w[i+1:]...)
			break
		}
	}
	if len(w) == 0 {
		delete(q.waiting, user)
		for i, u := range q.order {
			if u == user {
				q.order = append(q.order[:i:i], q.order[i+1:]...)
				break
			}
		}
	} else {
		q.waiting[user] = w
	}
	q.done(user)
}

// done counts one validation of user less. q.mu is held.
func (q *validationTurns) done(user string) {
	if q.held[user]--; q.held[user] <= 0 {
		delete(q.held, user)
	}
}

// release gives the place up: to the first waiter of the user whose turn
// it is, or to nobody.
func (q *validationTurns) release(user string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.done(user)
	if len(q.order) == 0 {
		q.busy = false
		return
	}
	next := q.order[0]
	q.order = q.order[1:]
	w := q.waiting[next]
	turn := w[0]
	if len(w) > 1 {
		q.waiting[next] = w[1:]
		q.order = append(q.order, next) // back at the end of the line
	} else {
		delete(q.waiting, next)
	}
	close(turn) // the place passes on: busy stays true
}
