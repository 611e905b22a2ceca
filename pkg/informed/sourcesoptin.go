package informed

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// SourceLister lists the source ConfigMaps of one namespace from the API
// server: what SourceConfigMaps reads when a namespace opts in, or when
// one of its ConfigMaps that the limits refused may fit again.
type SourceLister func(ctx context.Context, namespace string) ([]*corev1.ConfigMap, error)

// optIn is which namespaces SourceConfigMaps keeps: those whose labels
// match the selector, and some always; under SourceConfigMaps.mu.
type optIn struct {
	selector labels.Selector
	always   map[string]bool
	opted    map[string]bool
	list     SourceLister
	queue    workqueue.TypedRateLimitingInterface[string]
}

// NewOptInSourceConfigMaps returns a SourceConfigMaps that keeps the
// ConfigMaps of the namespaces whose labels match selector (the
// namespaces opted in, as NamespaceHandler reports them; a nil selector:
// every namespace) and of always, whatever their labels, within limits. When a namespace opts in, or a
// ConfigMap the limits refused may fit again, list reads the
// namespace's ConfigMaps, in RunLoads.
func NewOptInSourceConfigMaps(selector labels.Selector, list SourceLister, limits SourceLimits, always ...string) *SourceConfigMaps {
	o := &optIn{selector: selector, always: map[string]bool{}, opted: map[string]bool{}, list: list,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "kpatch-source-configmaps"})}
	for _, ns := range always {
		o.always[ns] = true
	}
	return &SourceConfigMaps{Limits: limits, optIn: o}
}

// keeps reports whether the ConfigMaps of namespace are kept; under mu.
func (s *SourceConfigMaps) keeps(namespace string) bool {
	o := s.optIn
	return o == nil || o.selector == nil || o.always[namespace] || o.opted[namespace]
}

// NamespaceHandler is the event handler of a Namespace informer that
// tells s which namespaces opt in: the ConfigMaps of a namespace that
// opts out (or is deleted) are dropped, those of a namespace that opts in
// are listed. It does nothing for a SourceConfigMaps that keeps every
// namespace.
func (s *SourceConfigMaps) NamespaceHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.namespaceChanged(obj, false) },
		UpdateFunc: func(_, obj any) { s.namespaceChanged(obj, false) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			s.namespaceChanged(obj, true)
		},
	}
}

func (s *SourceConfigMaps) namespaceChanged(obj any, deleted bool) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok || s.optIn == nil || s.optIn.selector == nil {
		return
	}
	o := s.optIn
	opted := !deleted && o.selector.Matches(labels.Set(ns.Labels))
	s.mu.Lock()
	defer s.mu.Unlock()
	switch was := o.opted[ns.Name]; {
	case opted && !was:
		o.opted[ns.Name] = true
		if !o.always[ns.Name] && s.isSynced() {
			o.queue.Add(ns.Name)
		}
	case !opted && was:
		delete(o.opted, ns.Name)
		if !o.always[ns.Name] {
			s.byNamespace.Delete(ns.Name)
		}
	}
}

// reload has the namespace listed again; under mu.
func (s *SourceConfigMaps) reload(namespace string) {
	if o := s.optIn; o != nil && o.list != nil {
		o.queue.Add(namespace)
	}
}

// RunLoads lists the namespaces that opted in, or whose refused
// ConfigMaps may fit, until ctx ends; a list that fails is tried again
// later.
func (s *SourceConfigMaps) RunLoads(ctx context.Context) {
	o := s.optIn
	if o == nil || o.list == nil {
		<-ctx.Done()
		return
	}
	go func() {
		<-ctx.Done()
		o.queue.ShutDown()
	}()
	for {
		ns, shutdown := o.queue.Get()
		if shutdown {
			return
		}
		if err := s.load(ctx, ns); err != nil && ctx.Err() == nil {
			o.queue.AddRateLimited(ns)
		} else {
			o.queue.Forget(ns)
		}
		o.queue.Done(ns)
	}
}

// load lists the ConfigMaps of namespace and makes them the ones kept,
// with the changes the watch reported meanwhile on top.
func (s *SourceConfigMaps) load(ctx context.Context, namespace string) error {
	s.mu.Lock()
	if !s.keeps(namespace) {
		s.mu.Unlock()
		return nil
	}
	sn := s.namespace(namespace, true)
	ld := &sourceLoad{seen: map[string]*corev1.ConfigMap{}}
	sn.loading = ld
	s.mu.Unlock()

	cms, err := s.optIn.list(ctx, namespace)

	s.mu.Lock()
	defer s.mu.Unlock()
	if sn.loading == ld {
		sn.loading = nil
	}
	if v, ok := s.byNamespace.Load(namespace); !ok || v != sn || !s.keeps(namespace) {
		return nil // opted out meanwhile
	}
	if err == nil {
		s.rebuild(namespace, sn, ld.merge(cms))
	}
	s.forgetIfEmpty(namespace, sn)
	return err
}

// sourceLoad is what the watch reported of a namespace while it was
// listed: those ConfigMaps are newer than the list's.
type sourceLoad struct {
	seen map[string]*corev1.ConfigMap // nil: deleted
	// full says that seen is all of them (a reflector's Replace).
	full bool
}

// saw records a change the watch reported.
func (ld *sourceLoad) saw(cm *corev1.ConfigMap, remove bool) {
	if remove {
		ld.seen[cm.Name] = nil
	} else {
		ld.seen[cm.Name] = cm
	}
}

// replaced records a reflector's full list of the namespace.
func (ld *sourceLoad) replaced(cms []*corev1.ConfigMap) {
	ld.seen, ld.full = map[string]*corev1.ConfigMap{}, true
	for _, cm := range cms {
		ld.seen[cm.Name] = cm
	}
}

// merge is list with what the watch reported on top.
func (ld *sourceLoad) merge(list []*corev1.ConfigMap) []*corev1.ConfigMap {
	var out []*corev1.ConfigMap
	if !ld.full {
		for _, cm := range list {
			if _, ok := ld.seen[cm.Name]; !ok {
				out = append(out, cm)
			}
		}
	}
	for _, cm := range ld.seen {
		if cm != nil {
			out = append(out, cm)
		}
	}
	return out
}

// markSynced records the first full list; under mu.
func (s *SourceConfigMaps) markSynced() {
	s.syncedOnce.Do(func() { close(s.syncedChan()) })
}

// isSynced reports whether the first full list was recorded.
func (s *SourceConfigMaps) isSynced() bool {
	select {
	case <-s.syncedChan():
		return true
	default:
		return false
	}
}

// Synced is closed once a reflector's first full list is recorded.
func (s *SourceConfigMaps) Synced() <-chan struct{} { return s.syncedChan() }

// syncedChan makes the channel of Synced once.
func (s *SourceConfigMaps) syncedChan() chan struct{} {
	s.syncedMake.Do(func() { s.synced = make(chan struct{}) })
	return s.synced
}
