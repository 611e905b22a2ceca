package app

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/rules"
)

// elector campaigns for the Lease namespace/name for as long as the
// process runs: each term runs lead with a context that ends when the
// lease is lost, after which it campaigns again. Losing the lease stops
// the leader's own work only; serving never waits for it.
// controller-runtime's manager-level election ends the process instead.
type elector struct {
	lock    *renewedLock
	lead    func(context.Context) // one term's work; returns when its context ends
	log     logr.Logger
	leading atomic.Bool

	// controller-runtime's defaults
	leaseDuration, renewDeadline, retryPeriod time.Duration
}

// newElector returns the elector of the Lease namespace/name through cfg.
func newElector(cfg *rest.Config, namespace, name string, lead func(context.Context), log logr.Logger) (*elector, error) {
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	cs, err := kubernetes.NewForConfig(rest.AddUserAgent(rest.CopyConfig(cfg), "leader-election"))
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, namespace, name, cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: host + "_" + string(uuid.NewUUID())})
	if err != nil {
		return nil, fmt.Errorf("leader election: lease %s/%s: %w", namespace, name, err)
	}
	return &elector{lock: &renewedLock{Interface: lock}, lead: lead, log: log,
		leaseDuration: 15 * time.Second, renewDeadline: 10 * time.Second, retryPeriod: 2 * time.Second}, nil
}

// Leads reports whether this process holds the lease now: in a term,
// and renewed within the renew deadline (a term outlives a failed renewal
// while client-go releases the lease, which waits for the API server).
func (e *elector) Leads() bool { return e.leading.Load() && e.lock.renewedWithin(e.renewDeadline) }

// NeedLeaderElection is false: the manager starts the elector on every
// replica, and it campaigns itself.
func (e *elector) NeedLeaderElection() bool { return false }

// Start campaigns, leads and campaigns again until ctx ends; the lease is
// released when ctx ends, so that another replica takes over at once.
func (e *elector) Start(ctx context.Context) error {
	for ctx.Err() == nil {
		done := make(chan struct{})
		var began atomic.Bool
		// a stale lease ends the campaign, and so the term, at once
		campaign, stale := context.WithCancel(ctx)
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            e.lock,
			Name:            e.lock.Describe(),
			LeaseDuration:   e.leaseDuration,
			RenewDeadline:   e.renewDeadline,
			RetryPeriod:     e.retryPeriod,
			ReleaseOnCancel: true,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(term context.Context) {
					defer close(done)
					began.Store(true)
					e.leading.Store(true)
					defer e.leading.Store(false)
					e.log.Info("elected leader", "lease", e.lock.Describe())
					go e.endWhenStale(term, stale)
					e.lead(term)
					if ctx.Err() == nil {
						e.log.Info("leadership lost: the leader's work stopped, serving goes on; campaigning again", "lease", e.lock.Describe())
					}
				},
				OnStoppedLeading: func() { e.leading.Store(false) },
			},
		})
		if err != nil {
			stale()
			return fmt.Errorf("leader election: %w", err)
		}
		le.Run(campaign)
		stale()
		// Run returns with ctx alive only after a term, whose work (started
		// in its own goroutine) ends before the next campaign; with ctx
		// ended, a term that did not begin yet sees ctx ended at once.
		if ctx.Err() == nil || began.Load() {
			<-done
		}
	}
	return nil
}

// endWhenStale cancels the campaign, and so the term, once the lease has not been renewed
// within the renew deadline, before another replica can take it over.
func (e *elector) endWhenStale(term context.Context, cancel context.CancelFunc) {
	tick := time.NewTicker(e.retryPeriod)
	defer tick.Stop()
	for {
		select {
		case <-term.Done():
			return
		case <-tick.C:
			if !e.lock.renewedWithin(e.renewDeadline) {
				cancel()
				return
			}
		}
	}
}

// renewedLock is a lock that remembers when this process last wrote a
// record that it holds.
type renewedLock struct {
	resourcelock.Interface
	renewed atomic.Int64 // UnixNano
}

func (l *renewedLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	return l.wrote(r, l.Interface.Create(ctx, r))
}

func (l *renewedLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	return l.wrote(r, l.Interface.Update(ctx, r))
}

func (l *renewedLock) wrote(r resourcelock.LeaderElectionRecord, err error) error {
	if err == nil && r.HolderIdentity == l.Identity() {
		l.renewed.Store(time.Now().UnixNano())
	}
	return err
}

// renewedWithin reports whether the lease was renewed within d.
func (l *renewedLock) renewedWithin(d time.Duration) bool {
	return time.Since(time.Unix(0, l.renewed.Load())) < d
}

// leaderWork is the leader's own work, run once per term: a sync of the
// registry as leader (it writes the last good store and records Events
// while it leads), the drift scan, and with --manage-webhook-rules the
// rules keeper, on a manager of its own that the term starts and stops
// (a controller runs once only).
type leaderWork struct {
	o       *Options
	main    manager.Manager
	s       settings
	watcher *admission.Watcher
	// the term's stand-in watcher, whose AfterSync the term's rules
	// keeper sets; the watcher's AfterSync forwards to it
	current atomic.Pointer[admission.Watcher]
	// the drift scan (--drift-interval), run in each term; nil without
	drift *driftLoop
}

// hookAfterSync forwards each registry the watcher swaps in to the rules
// keeper of the current term, if any.
func (l *leaderWork) hookAfterSync() {
	l.watcher.AfterSync = func(r *registry.Registry) {
		if p := l.current.Load(); p != nil && p.AfterSync != nil {
			p.AfterSync(r)
		}
	}
}

// term runs the leader's work until ctx, the term, ends.
func (l *leaderWork) term(ctx context.Context) {
	go l.watcher.RequestSync(ctx)
	if l.drift != nil {
		// the term ends once its scan does: terms never scan at once
		var scanning sync.WaitGroup
		defer scanning.Wait()
		scanning.Go(func() { l.drift.run(ctx) })
	}
	if !l.o.ManageWebhookRules {
		<-ctx.Done()
		return
	}
	if err := l.runRulesKeeper(ctx); err != nil {
		ctrl.Log.WithName("webhook-rules").Error(err, "the rules keeper stopped for this term")
		<-ctx.Done()
	}
}

// runRulesKeeper runs the rules keeper on a manager of its own until ctx
// ends. The keeper reads the registry in force and the registry
// ConfigMaps from the watcher's manager, and records Events with it.
func (l *leaderWork) runRulesKeeper(ctx context.Context) error {
	sub, err := ctrl.NewManager(l.main.GetConfig(), ctrl.Options{
		Scheme:                 l.main.GetScheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// the same controller, once per term
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("rules keeper: %w", err)
	}
	ops := make([]admissionregistrationv1.OperationType, 0, len(l.s.operations))
	for _, op := range l.s.operations {
		ops = append(ops, admissionregistrationv1.OperationType(op))
	}
	stand := &admission.Watcher{Namespace: l.watcher.Namespace}
	keeper, err := rules.NewRulesKeeperFor(sub, l.o.WebhookConfigurationName, stand, ops)
	if err != nil {
		return fmt.Errorf("rules keeper: %w", err)
	}
	keeper.Registry = l.watcher.Current
	keeper.ConfigMaps = l.main.GetClient()
	keeper.Recorder = l.main.GetEventRecorder("kpatch-webhook")
	if err := keeper.SetupWithManager(sub, stand); err != nil {
		return fmt.Errorf("rules keeper: %w", err)
	}
	l.current.Store(stand)
	defer l.current.Store(nil)
	if err := sub.Start(ctx); err != nil {
		return fmt.Errorf("rules keeper: %w", err)
	}
	return nil
}
