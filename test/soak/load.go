package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Load writes Deployments and Pods through the API server, in the tenant
// namespaces: dry-run and real creates and updates of objects the registry
// targets (soak-*) and of objects it does not (plain-*). It checks every
// answer against the registry's history and remembers what each real
// write stored, for the sweep at the end.
type Load struct {
	Client     client.Client
	Namespaces []string
	Nonce      string
	Edits      *Edits
	Tally      *Tally
	MaxStale   time.Duration

	// gate is held (read) by every write: Pause takes it whole.
	gate                sync.RWMutex
	mu                  sync.Mutex
	stored              map[string]written // kind/namespace/name: what its last write stored
	staleness, exempted []time.Duration
	// Operations counts the targeted writes patched by CREATE (0) and
	// UPDATE (1), and of them those that carry the UPDATE-only file's
	// mark.
	Operations, Updated [2]int
}

// written is what a write stored: the registry version its answer
// carried (-1 unpatched), and whether it was an UPDATE.
type written struct {
	version int
	update  bool
}

// The channels of the tally through the API server.
const (
	chCreate       = "create"
	chDryCreate    = "dry-run create"
	chUpdate       = "update"
	chDryUpdate    = "dry-run update"
	chCreatePlain  = "create, not targeted"
	chFlood        = "create, flood"
	chDryPodPlain  = "dry-run create, not targeted"
	kindDeployment = "Deployment"
	kindPod        = "Pod"
)

// Run runs workers writers, each taking one token of tokens per write,
// until ctx ends.
func (l *Load) Run(ctx context.Context, workers int, tokens <-chan struct{}) {
	l.stored = map[string]written{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.worker(ctx, w, tokens)
		}()
	}
	wg.Wait()
}

// worker writes in a fixed cycle; an update of an object the worker
// created (it owns its objects: no conflicts between workers) falls back
// to a create until it has one.
func (l *Load) worker(ctx context.Context, w int, tokens <-chan struct{}) {
	var deployments, pods []string // namespace/name of its real soak-* writes
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tokens:
		}
		l.gate.RLock()
		l.write(ctx, w, n, &deployments, &pods)
		l.gate.RUnlock()
	}
}

// Pause waits for the writes under way, and keeps the writers from
// writing until Resume.
func (l *Load) Pause() { l.gate.Lock() }

// Resume lets the writers write again.
func (l *Load) Resume() { l.gate.Unlock() }

// write makes worker w's n-th write.
func (l *Load) write(ctx context.Context, w, n int, deployments, pods *[]string) {
	ns := l.Namespaces[(w+n)%len(l.Namespaces)]
	name := fmt.Sprintf("%d-%d", w, n)
	switch n % 10 {
	case 0, 8:
		l.create(ctx, chDryCreate, deployment(ns, targetPrefix+name), true, true)
	case 1:
		if l.create(ctx, chCreate, deployment(ns, targetPrefix+name), true, false) {
			*deployments = append(*deployments, ns+"/"+targetPrefix+name)
		}
	case 2, 5:
		channel, dry := chUpdate, n%10 == 5
		if dry {
			channel = chDryUpdate
		}
		if len(*deployments) == 0 {
			l.create(ctx, chDryCreate, deployment(ns, targetPrefix+name), true, true)
			return
		}
		ns, name, _ := strings.Cut((*deployments)[n%len(*deployments)], "/")
		l.update(ctx, channel, &appsv1.Deployment{}, ns, name, dry)
	case 3:
		l.create(ctx, chDryCreate, pod(ns, targetPrefix+"p-"+name), true, true)
	case 4:
		if l.create(ctx, chCreate, pod(ns, targetPrefix+"p-"+name), true, false) {
			*pods = append(*pods, ns+"/"+targetPrefix+"p-"+name)
		}
	case 6:
		if len(*pods) == 0 {
			l.create(ctx, chDryCreate, pod(ns, targetPrefix+"p-"+name), true, true)
			return
		}
		ns, name, _ := strings.Cut((*pods)[n%len(*pods)], "/")
		l.update(ctx, chUpdate, &corev1.Pod{}, ns, name, false)
	case 7:
		l.create(ctx, chCreatePlain, deployment(ns, plainPrefix+name), false, false)
	case 9:
		l.create(ctx, chDryPodPlain, pod(ns, plainPrefix+"p-"+name), false, true)
	}
}

// create creates obj (dry-run or real) and judges the answer; it returns
// whether it was stored.
func (l *Load) create(ctx context.Context, channel string, obj client.Object, target, dry bool) bool {
	var opts []client.CreateOption
	if dry {
		opts = append(opts, client.DryRunAll)
	}
	sent := time.Now()
	err := l.Client.Create(ctx, obj, opts...)
	l.judge(ctx, channel, obj, target, !dry, false, sent, time.Now(), err)
	return err == nil && !dry
}

// update reads the object, takes the soak's marks off it (so that an
// update the webhook did not patch shows), changes it and writes it back.
func (l *Load) update(ctx context.Context, channel string, obj client.Object, ns, name string, dry bool) {
	if err := l.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		if ctx.Err() == nil {
			l.Tally.Add(Answer{Channel: channel, Outcome: Errored})
		}
		return
	}
	labels, annotations := maps.Clone(obj.GetLabels()), maps.Clone(obj.GetAnnotations())
	delete(labels, parityKey)
	for _, k := range soakMarks {
		delete(annotations, k)
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[touchKey] = time.Now().Format(time.RFC3339Nano)
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
	if d, ok := obj.(*appsv1.Deployment); ok {
		d.Spec.Replicas = ptr.To[int32](1)
	}
	var opts []client.UpdateOption
	if dry {
		opts = append(opts, client.DryRunAll)
	}
	sent := time.Now()
	err := l.Client.Update(ctx, obj, opts...)
	l.judge(ctx, channel, obj, true, !dry, true, sent, time.Now(), err)
}

// judge records the answer to a write of obj (an UPDATE when update, else
// a CREATE) sent at sent and answered at answered: the object returned is
// what the API server stored (or would have).
func (l *Load) judge(ctx context.Context, channel string, obj client.Object, target, stored, update bool, sent, answered time.Time, err error) {
	if err != nil && ctx.Err() != nil {
		return // the load ended
	}
	m := marksOf(obj)
	a := Answer{Channel: channel, Outcome: classify(err, m.Patched()), Latency: answered.Sub(sent)}
	key := m.Kind + "/" + obj.GetNamespace() + "/" + obj.GetName()
	switch {
	case a.Outcome == Refused:
		a.Violation = fmt.Sprintf("%s: %v", key, err)
	case err != nil:
	case !target:
		if err := m.Untouched(); err != nil {
			a.Violation = key + ": " + err.Error()
		}
		if stored {
			l.remember(key, written{-1, update})
		}
	default:
		v, err := m.Check(obj.GetNamespace(), l.Nonce)
		if err == nil {
			err = l.Edits.Check(v, sent, answered, l.MaxStale)
		}
		if err == nil {
			err = m.CheckOperation(update)
		}
		l.countOperation(m, v, update)
		if err != nil {
			a.Violation = fmt.Sprintf("%s: %v", key, err)
		} else {
			stale := l.Edits.Staleness(v, sent)
			l.mu.Lock()
			if l.Edits.Exempted(sent) {
				l.exempted = append(l.exempted, stale)
			} else {
				l.staleness = append(l.staleness, stale)
			}
			l.mu.Unlock()
		}
		if stored {
			l.remember(key, written{v, update})
		}
	}
	l.Tally.Add(a)
}

// countOperation counts a targeted write patched (version v), by its
// operation, and whether it carries the UPDATE-only file's mark.
func (l *Load) countOperation(m Marks, v int, update bool) {
	if v < 0 {
		return
	}
	op := 0
	if update {
		op = 1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Operations[op]++
	if m.Updated != "" {
		l.Updated[op]++
	}
}

func (l *Load) remember(key string, w written) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stored[key] = w
}

// Staleness returns, for every answer that carried a good version, how far
// behind the newest version it was: those sent outside the exempt
// intervals (the cut), and those within.
func (l *Load) Staleness() (outside, within []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.staleness...), append([]time.Duration(nil), l.exempted...)
}

// Sweep reads every Deployment and Pod stored in the namespaces and checks
// it: an object the registry targets carries one version's marks, the
// version its last write's answer carried, and the UPDATE-only file's
// mark if that write was an UPDATE; one it does not target carries none.
// It returns how many objects it checked.
func (l *Load) Sweep(ctx context.Context) (int, error) {
	l.mu.Lock()
	stored := maps.Clone(l.stored)
	l.mu.Unlock()
	checked := 0
	for _, ns := range l.Namespaces {
		var ds appsv1.DeploymentList
		var ps corev1.PodList
		if err := l.Client.List(ctx, &ds, client.InNamespace(ns)); err != nil {
			return checked, err
		}
		if err := l.Client.List(ctx, &ps, client.InNamespace(ns)); err != nil {
			return checked, err
		}
		var objs []client.Object
		for i := range ds.Items {
			objs = append(objs, &ds.Items[i])
		}
		for i := range ps.Items {
			objs = append(objs, &ps.Items[i])
		}
		for _, obj := range objs {
			checked++
			m := marksOf(obj)
			key := m.Kind + "/" + ns + "/" + obj.GetName()
			want, known := stored[key]
			if !strings.HasPrefix(obj.GetName(), targetPrefix) {
				if err := m.Untouched(); err != nil {
					l.Tally.Violate("stored %s: %v", key, err)
				}
				continue
			}
			v, err := m.Check(ns, l.Nonce)
			if err == nil && known {
				err = m.CheckOperation(want.update)
			}
			switch {
			case err != nil:
				l.Tally.Violate("stored %s: %v", key, err)
			case known && v != want.version:
				l.Tally.Violate("stored %s: version %d, its write was answered with %d", key, v, want.version)
			}
		}
	}
	return checked, nil
}

// marksOf reads the soak's marks of a Deployment or Pod.
func marksOf(obj client.Object) Marks {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return readMarks(kindDeployment, o.Labels, o.Annotations, ptr.Deref(o.Spec.Replicas, 0))
	case *corev1.Pod:
		return readMarks(kindPod, o.Labels, o.Annotations, 0)
	}
	panic(fmt.Sprintf("marksOf %T", obj))
}

func deployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.25"}}},
			},
		},
	}
}

func pod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.25"}}},
	}
}
