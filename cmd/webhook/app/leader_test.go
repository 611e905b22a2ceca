package app

import (
	"context"
	"testing"
	"time"

	"errors"
	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"sync/atomic"
)

// TestElectorCampaignsAgain: when the lease cannot be renewed (the API
// server is away), the term's context ends, and the elector campaigns
// again and leads a second term once the API server is back, without
// Start returning.
func TestElectorCampaignsAgain(t *testing.T) {
	cs := fake.NewClientset()
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, "reg", "lease", cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: "me"})
	if err != nil {
		t.Fatal(err)
	}
	terms := make(chan context.Context)
	ended := make(chan struct{})
	away := &awayLock{Interface: lock}
	e := &elector{lock: &renewedLock{Interface: away}, log: logr.Discard(),
		leaseDuration: time.Second, renewDeadline: 500 * time.Millisecond, retryPeriod: 100 * time.Millisecond,
		lead: func(term context.Context) {
			terms <- term
			<-term.Done()
			ended <- struct{}{}
		}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- e.Start(ctx) }()

	<-terms
	if !e.Leads() {
		t.Fatal("leading a term but Leads is false")
	}
	// the API server goes away: the lease cannot be renewed
	away.down.Store(true)
	<-ended
	away.down.Store(false)
	select {
	case err := <-stopped:
		t.Fatalf("the elector stopped after losing the lease: %v", err)
	case second := <-terms:
		if second.Err() != nil || !e.Leads() {
			t.Errorf("second term: context %v, leads %v", second.Err(), e.Leads())
		}
	}
	cancel()
	<-ended
	if err := <-stopped; err != nil {
		t.Errorf("start: %v", err)
	}
	if e.Leads() {
		t.Error("Leads after the elector stopped")
	}
}

// awayLock is a lock whose API server can be away: every call fails
// while down.
type awayLock struct {
	resourcelock.Interface
	down atomic.Bool
}

var errAway = errors.New("the API server is away")

func (l *awayLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	if l.down.Load() {
		return nil, nil, errAway
	}
	return l.Interface.Get(ctx)
}

func (l *awayLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	if l.down.Load() {
		return errAway
	}
	return l.Interface.Create(ctx, r)
}

func (l *awayLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	if l.down.Load() {
		return errAway
	}
	return l.Interface.Update(ctx, r)
}
