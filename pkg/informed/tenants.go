package informed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// TenantLabel marks, with the value TenantEnabled, the Namespaces whose
// registry ConfigMaps are tenant registries (with --tenant-registries). It
// is a label of the Namespace: setting it takes rights on the Namespace,
// which a namespace's own users (the edit and admin roles) do not have,
// so that it is the cluster admin who grants a tenancy.
const (
	TenantLabel   = "kpatch.dev/tenant-registry"
	TenantEnabled = "enabled"
)

// IsTenantNamespace reports whether ns is marked as a tenant.
func IsTenantNamespace(ns *corev1.Namespace) bool {
	return ns != nil && ns.Labels[TenantLabel] == TenantEnabled
}

// ErrTenantsNotSynced is TenantRegistries.TenantConfigMaps before the
// Namespaces, and the registry ConfigMaps of the tenants marked when they
// were first listed, are read.
var ErrTenantsNotSynced = errors.New("the tenant registries are not read yet")

// TenantRegistries keeps the registry ConfigMaps of the marked
// Namespaces (IsTenantNamespace) only: it is the event handler of an
// informer of every Namespace, and reads the ConfigMaps of each marked
// one through an informer of that namespace alone (one label-selected
// watch per tenant), started when the Namespace is marked and stopped,
// with what it holds, when the mark is removed or the Namespace deleted.
// The ConfigMaps of other namespaces never reach the process.
type TenantRegistries struct {
	// RegistryNamespace is never a tenant.
	RegistryNamespace string
	// Client lists and watches the ConfigMaps that match Selector, the
	// registry's, of one namespace at a time.
	Client   kubernetes.Interface
	Selector labels.Selector
	// Changed is called, from one goroutine, after the ConfigMaps of a
	// tenant changed, or a tenant was marked or unmarked: a registry sync
	// reads them again (TenantConfigMaps). Changes that come while it runs
	// are folded into one more call.
	Changed func(context.Context)
	// Synced, if set, reports whether the Namespaces have been listed and
	// their events delivered (the informer handler's registration).
	Synced func() bool

	mu      sync.Mutex
	ctx     context.Context // set by Start; nil before
	tenants map[string]*tenantInformer
	initial map[string]bool // the tenants known when Synced first held
	kick    chan struct{}
}

// tenantInformer is the informer of one tenant's registry ConfigMaps.
type tenantInformer struct {
	informer toolscache.SharedIndexInformer
	stop     context.CancelFunc // nil until started
}

var (
	_ toolscache.ResourceEventHandler = (*TenantRegistries)(nil)
	_ manager.Runnable                = (*TenantRegistries)(nil)
)

// NewTenantRegistriesFor returns the tenant registries of mgr's
// Namespace informer: the ConfigMaps matching selector of each marked
// namespace but registryNamespace, watched with a client of mgr's
// configuration (RBAC: configmaps list and watch in the tenants'
// namespaces). Changed is called on every change. It is added to mgr.
func NewTenantRegistriesFor(mgr manager.Manager, registryNamespace string, selector labels.Selector, changed func(context.Context)) (*TenantRegistries, error) {
	cs, err := kubernetes.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	t := &TenantRegistries{RegistryNamespace: registryNamespace, Client: cs, Selector: selector, Changed: changed}
	informer, err := mgr.GetCache().GetInformer(context.Background(), &corev1.Namespace{})
	if err != nil {
		return nil, err
	}
	reg, err := informer.AddEventHandler(t)
	if err != nil {
		return nil, err
	}
	t.Synced = reg.HasSynced
	if err := mgr.Add(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Start starts the informers of the tenants marked so far, and of those
// marked later, until ctx ends; it calls Changed as changes come.
func (t *TenantRegistries) Start(ctx context.Context) error {
	t.mu.Lock()
	t.ctx = ctx
	kick := t.kicker()
	for ns, ti := range t.tenants {
		t.run(ns, ti)
	}
	t.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			t.mu.Lock()
			for _, ti := range t.tenants {
				if ti.stop != nil {
					ti.stop()
				}
			}
			t.mu.Unlock()
			return nil
		case <-kick:
			if t.Changed != nil {
				t.Changed(ctx)
			}
		}
	}
}

// kicker returns the channel of changes; t.mu is held.
func (t *TenantRegistries) kicker() chan struct{} {
	if t.kick == nil {
		t.kick = make(chan struct{}, 1)
	}
	return t.kick
}

// changed asks for one call of Changed; t.mu is held.
func (t *TenantRegistries) changed() {
	select {
	case t.kicker() <- struct{}{}:
	default: // one pending call reads every change
	}
}

// OnAdd follows a Namespace.
func (t *TenantRegistries) OnAdd(obj any, _ bool) { t.set(obj) }

// OnUpdate follows a Namespace's new version: marked or not.
func (t *TenantRegistries) OnUpdate(_, obj any) { t.set(obj) }

// OnDelete drops a deleted Namespace's tenant registry.
func (t *TenantRegistries) OnDelete(obj any) {
	if ns, ok := deletedNamespace(obj); ok {
		t.mu.Lock()
		t.drop(ns.Name)
		t.mu.Unlock()
	}
}

func (t *TenantRegistries) set(obj any) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !IsTenantNamespace(ns) || ns.Name == t.RegistryNamespace {
		t.drop(ns.Name)
		return
	}
	if _, ok := t.tenants[ns.Name]; ok {
		return
	}
	if t.tenants == nil {
		t.tenants = map[string]*tenantInformer{}
	}
	ti := &tenantInformer{}
	t.tenants[ns.Name] = ti
	if t.ctx != nil {
		t.run(ns.Name, ti)
	}
}

// drop stops and forgets the tenant ns, if it is one; t.mu is held.
func (t *TenantRegistries) drop(ns string) {
	ti, ok := t.tenants[ns]
	if !ok {
		return
	}
	delete(t.tenants, ns)
	delete(t.initial, ns)
	if ti.stop != nil {
		ti.stop()
	}
	t.changed()
}

// run starts the informer of the tenant ns; t.mu is held.
func (t *TenantRegistries) run(ns string, ti *tenantInformer) {
	ctx, stop := context.WithCancel(t.ctx)
	ti.stop = stop
	ti.informer = toolscache.NewSharedIndexInformer(t.listWatch(ns), &corev1.ConfigMap{}, 0, toolscache.Indexers{})
	_ = ti.informer.SetTransform(StripManagedFields)
	// every event, and the end of the first list, asks for a sync
	kick := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { t.kickLocked() },
		UpdateFunc: func(any, any) { t.kickLocked() },
		DeleteFunc: func(any) { t.kickLocked() },
	}
	_, _ = ti.informer.AddEventHandler(kick)
	go ti.informer.RunWithContext(ctx)
	go func() {
		if toolscache.WaitForCacheSync(ctx.Done(), ti.informer.HasSynced) {
			t.kickLocked()
		}
	}()
}

// listWatch lists and watches the registry ConfigMaps of namespace ns.
func (t *TenantRegistries) listWatch(ns string) toolscache.ListerWatcher {
	cms := t.Client.CoreV1().ConfigMaps(ns)
	sel := t.Selector.String()
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = sel
			return cms.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = sel
			return cms.Watch(ctx, o)
		},
	}
	// a client that cannot stream its lists (a fake) is listed first
	return toolscache.ToListWatcherWithWatchListSemantics(lw, t.Client)
}

func (t *TenantRegistries) kickLocked() {
	t.mu.Lock()
	t.changed()
	t.mu.Unlock()
}

// Tenants returns the namespaces marked as tenants, sorted.
func (t *TenantRegistries) Tenants() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.tenants))
}

// TenantConfigMaps returns the registry ConfigMaps of the marked
// namespaces whose informer has synced, by namespace; ErrTenantsNotSynced
// until the Namespaces are listed and the tenants marked then are read
// (a tenant marked later is read when its informer has synced: until
// then it has no files, as before it was marked).
func (t *TenantRegistries) TenantConfigMaps(context.Context) ([]corev1.ConfigMap, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Synced != nil && !t.Synced() || t.ctx == nil {
		return nil, ErrTenantsNotSynced
	}
	if t.initial == nil {
		t.initial = map[string]bool{}
		for ns := range t.tenants {
			t.initial[ns] = true
		}
	}
	var out []corev1.ConfigMap
	for _, ns := range slices.Sorted(maps.Keys(t.tenants)) {
		ti := t.tenants[ns]
		if ti.informer == nil || !ti.informer.HasSynced() {
			if t.initial[ns] {
				return nil, fmt.Errorf("%w: the registry ConfigMaps of namespace %s", ErrTenantsNotSynced, ns)
			}
			continue
		}
		delete(t.initial, ns)
		items := ti.informer.GetStore().List()
		cms := make([]corev1.ConfigMap, 0, len(items))
		for _, o := range items {
			if cm, ok := o.(*corev1.ConfigMap); ok {
				cms = append(cms, *cm)
			}
		}
		slices.SortFunc(cms, func(a, b corev1.ConfigMap) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, cms...)
	}
	return out, nil
}
