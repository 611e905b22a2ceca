package admission

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// turnsTaker takes turns of q as named users, each in a goroutine, and
// reports the name of each one handed the place.
type turnsTaker struct {
	q       *validationTurns
	granted chan string
	// release[name] ends name's validation
	release sync.Map
}

// take starts a validation of user named name (unique) and waits until
// it is in the line (or holds the place).
func (tt *turnsTaker) take(t *testing.T, ctx context.Context, user, name string) {
	t.Helper()
	held := tt.held(user)
	done := make(chan struct{})
	tt.release.Store(name, done)
	go func() {
		if err := tt.q.acquire(ctx, user); err != nil {
			tt.granted <- name + ": " + err.Error()
			return
		}
		tt.granted <- name
		<-done
		tt.q.release(user)
	}()
	for end := time.Now().Add(failsafe); tt.held(user) == held; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s never joined the line", name)
		}
	}
}

func (tt *turnsTaker) held(user string) int {
	tt.q.mu.Lock()
	defer tt.q.mu.Unlock()
	return tt.q.held[user]
}

// finish ends name's validation and returns who is handed the place.
func (tt *turnsTaker) finish(t *testing.T, name string) string {
	t.Helper()
	done, _ := tt.release.Load(name)
	close(done.(chan struct{}))
	return tt.next(t)
}

func (tt *turnsTaker) next(t *testing.T) string {
	t.Helper()
	select {
	case n := <-tt.granted:
		return n
	case <-time.After(failsafe):
		t.Fatal("nobody was handed the place")
		return ""
	}
}

// failsafe bounds the waits of these tests; nothing they wait for takes
// more than milliseconds.
const failsafe = 30 * time.Second

// TestValidationTurnsGoUserByUser: while a user's validation runs and
// three more of theirs wait, another user's comes next but one (the one
// of the first user that was waiting before it), not after the three; a
// fifth validation of the first user is refused at once; a waiter whose
// context ends leaves the line.
func TestValidationTurnsGoUserByUser(t *testing.T) {
	ctx := context.Background()
	tt := &turnsTaker{q: &validationTurns{}, granted: make(chan string, 16)}
	tt.take(t, ctx, "hostile", "h1")
	if got := tt.next(t); got != "h1" {
		t.Fatalf("first: %s", got)
	}
	tt.take(t, ctx, "hostile", "h2")
	tt.take(t, ctx, "hostile", "h3")
	tt.take(t, ctx, "hostile", "h4")
	if err := tt.q.acquire(ctx, "hostile"); !errors.Is(err, errTooManyValidations) {
		t.Errorf("a fifth validation of one user: %v, want refused at once", err)
	}
	tt.take(t, ctx, "admin", "a1")
	cancelled, cancel := context.WithCancel(ctx)
	tt.take(t, cancelled, "third", "t1")
	cancel()
	if got := tt.next(t); got != "t1: context canceled" {
		t.Fatalf("a waiter whose context ended: %s", got)
	}
	for _, step := range []struct{ finish, want string }{{"h1", "h2"}, {"h2", "a1"}, {"a1", "h3"}, {"h3", "h4"}} {
		if got := tt.finish(t, step.finish); got != step.want {
			t.Fatalf("after %s: %s has the place, want %s", step.finish, got, step.want)
		}
	}
	done, _ := tt.release.Load("h4")
	close(done.(chan struct{}))
	for end := time.Now().Add(failsafe); ; time.Sleep(time.Millisecond) {
		tt.q.mu.Lock()
		idle := !tt.q.busy && len(tt.q.held) == 0 && len(tt.q.waiting) == 0 && len(tt.q.order) == 0
		tt.q.mu.Unlock()
		if idle {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the place is still taken after every validation ended")
		}
	}
}

// TestValidationTurnsOfAnEndedContext: a validation whose context has
// ended takes no place.
func TestValidationTurnsOfAnEndedContext(t *testing.T) {
	q := &validationTurns{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := q.acquire(ctx, "u"); err == nil {
		t.Fatal("acquired with an ended context")
	}
	if err := q.acquire(context.Background(), "u"); err != nil {
		t.Fatalf("the place was kept by the ended one: %v", err)
	}
	q.release("u")
}
