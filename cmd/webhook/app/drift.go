package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/pkg/rules"
)

// Event reasons of the drift scan and reconcile, on the object.
const (
	// ReasonStale: the registry would change the object now (Normal),
	// once per object and registry version.
	ReasonStale = "Stale"
	// ReasonReconciled: the webhook updated the object through the API
	// server for a file marked reconcile (Normal).
	ReasonReconciled = "Reconciled"
	// ReasonReconcileFailed: the API server did not update it (Warning).
	ReasonReconcileFailed = "ReconcileFailed"
)

const (
	// driftDebounce is how long the scan waits after a registry change
	// for the next one (at most --drift-interval).
	driftDebounce = 5 * time.Second
	// staleEventsPerSecond bounds the Events on stale objects, on
	// average; past it they wait for the next scan.
	staleEventsPerSecond = 5
	// driftFieldManager writes the PolicyReports.
	driftFieldManager = "kpatch-drift"
	// discoveryTimeout bounds each discovery request of the scan.
	discoveryTimeout = 30 * time.Second
)

// policyReports is the resource of the PolicyReports --drift-reports
// writes.
var policyReports = schema.GroupVersionResource{Group: "wgpolicyk8s.io", Version: "v1alpha2", Resource: "policyreports"}

// driftLoop is the leader's drift scan (--drift-interval): every interval
// and after each registry change, debounced, it lists the objects of the
// kinds the registry targets in the namespaces opted in, through the API
// server, page by page, admits each as an UPDATE by the webhook's
// ServiceAccount (admission.Handler.StoredAdmitter), and reports those
// the registry would change now: metrics, an Event on each once per
// registry version, with --drift-reports a PolicyReport per namespace;
// with --reconcile it patches those of files marked reconcile.
type driftLoop struct {
	o          *Options
	s          settings
	registry   func() *registry.Registry
	handler    *admission.Handler
	namespaces *informed.InformedNamespaces
	dyn        dynamic.Interface
	discover   func(context.Context) ([]rules.ServedResource, error)
	whoAmI     func(context.Context) (authenticationv1.UserInfo, error)
	recorder   events.EventRecorder
	metrics    *metrics.Metrics
	log        logr.Logger
	changed    chan struct{}
	reconcile  drift.Limiter
	events     *rate.Limiter

	// of the loop's goroutine: the objects an Event said stale, by UID,
	// and the registry version it was for
	noticed map[types.UID]string
	// whether the absence of the PolicyReport CRD was logged
	noCRDLogged bool
}

// newDriftLoop is the drift scan of the webhook, nil when
// --drift-interval is 0. It registers the drift metrics.
func (o *Options) newDriftLoop(mgr manager.Manager, s settings, w *admission.Watcher, h *admission.Handler,
	namespaces *informed.InformedNamespaces, m *metrics.Metrics, reg prometheus.Registerer) (*driftLoop, error) {
	if o.DriftInterval == 0 {
		return nil, nil
	}
	cfg := mgr.GetConfig()
	dyn, err := dynamic.NewForConfigAndClient(cfg, mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("drift scan: %w", err)
	}
	// discovery takes no context: its requests time out instead
	dcfg := rest.CopyConfig(cfg)
	dcfg.Timeout = discoveryTimeout
	d, err := discovery.NewDiscoveryClientForConfig(dcfg)
	if err != nil {
		return nil, fmt.Errorf("drift scan: %w", err)
	}
	cs, err := kubernetes.NewForConfigAndClient(cfg, mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("drift scan: %w", err)
	}
	m.RegisterDrift(reg)
	l := &driftLoop{
		o: o, s: s, registry: w.Current, handler: h, namespaces: namespaces, dyn: dyn,
		discover: func(ctx context.Context) ([]rules.ServedResource, error) { return discover(ctx, d) },
		whoAmI: func(ctx context.Context) (authenticationv1.UserInfo, error) {
			r, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if err != nil {
				return authenticationv1.UserInfo{}, err
			}
			return r.Status.UserInfo, nil
		},
		recorder: mgr.GetEventRecorder("kpatch-webhook"), metrics: m, log: ctrl.Log.WithName("drift"),
		changed: make(chan struct{}, 1),
		events:  rate.NewLimiter(staleEventsPerSecond, staleEventsPerSecond),
	}
	if o.Reconcile {
		l.reconcile = drift.NewLimiter(o.ReconcileRate)
	}
	previous := w.AfterSync
	w.AfterSync = func(r *registry.Registry) {
		if previous != nil {
			previous(r)
		}
		l.registryChanged()
	}
	return l, nil
}

// registryChanged asks for a scan once the registry settles; one pending
// change is enough, a scan reads the latest registry.
func (l *driftLoop) registryChanged() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// run scans until ctx ends: the leader's term, or the process without
// --leader-elect. A term starts with a scan once the registry has synced.
func (l *driftLoop) run(ctx context.Context) {
	user, err := l.whoAmI(ctx)
	if err != nil {
		l.log.Error(err, "who the webhook is, for the scan's UPDATE requests: its conditions read an unnamed user")
	}
	admitter := l.handler.StoredAdmitter(user, l.log)
	if l.registry() != nil {
		l.registryChanged()
	}
	l.noticed = map[types.UID]string{}
	drift.Schedule{Interval: l.o.DriftInterval, Debounce: min(l.o.DriftInterval, driftDebounce)}.
		Run(ctx, l.changed, func(ctx context.Context) { l.scan(ctx, admitter) })
}

// scan runs one scan and reports it.
func (l *driftLoop) scan(ctx context.Context, admitter drift.Admitter) {
	reg := l.registry()
	if reg == nil {
		return
	}
	served, err := l.discover(ctx)
	if ctx.Err() != nil {
		return // the term ended
	}
	if err != nil {
		l.log.Error(err, "discovery: the scan lists the resources discovered")
	}
	sc := drift.Scanner{
		Lister: dynamicObjects{l.dyn}, Admitter: admitter,
		Kinds: l.kinds(reg, served), Namespaces: l.scannedNamespaces(),
		Version: registryVersion(reg), MaxObjects: l.o.DriftMaxObjects,
	}
	report, err := sc.Scan(ctx)
	if err != nil {
		return // the term ended
	}
	l.metrics.DriftScanned(report.Counts(), report.Time(), report.Duration())
	errs, errCount := report.Errors()
	l.log.Info("drift scan", "version", report.Version(), "kinds", len(sc.Kinds), "namespaces", len(sc.Namespaces),
		"objects", report.Objects(), "stale", report.StaleObjects(), "truncated", report.Truncated(),
		"duration", report.Duration(), "errors", errCount, "firstErrors", errs)
	l.noticeStale(report)
	if l.o.DriftReports == DriftReportsPolicyReport {
		l.writeReports(ctx, report, served)
	}
	if l.reconcile != nil {
		rc := drift.Reconciler{Patcher: dynamicObjects{l.dyn}, Limiter: l.reconcile, Metrics: l.metrics, Done: l.reconciled}
		if err := rc.Reconcile(ctx, report); err != nil && ctx.Err() == nil {
			l.log.Error(err, "reconcile")
		}
	}
}

// discover is rules.DiscoverResources of d, given up when ctx ends: a
// term that ends does not wait for an API server that does not answer.
func discover(ctx context.Context, d discovery.ServerResourcesInterface) ([]rules.ServedResource, error) {
	type found struct {
		served []rules.ServedResource
		err    error
	}
	done := make(chan found, 1) // the request outlives ctx, within its timeout
	go func() {
		served, err := rules.DiscoverResources(d)
		done <- found{served, err}
	}()
	select {
	case f := <-done:
		return f.served, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// kinds are the kinds the scan lists: the resources the registry's files
// that apply on UPDATE target (rules.ResolveRules, as the managed rules
// resolve them), one version of each, the first discovery serves (the
// group's preferred), that may be listed.
func (l *driftLoop) kinds(reg *registry.Registry, served []rules.ServedResource) []drift.Kind {
	resolved := rules.ResolveRules(reg, served, []admissionregistrationv1.OperationType{admissionregistrationv1.Update})
	seen := map[schema.GroupResource]bool{}
	var kinds []drift.Kind
	for _, r := range served {
		if _, ok := resolved.Operations[r.GroupVersionResource]; !ok || seen[r.GroupResource()] || !slices.Contains(r.Verbs, "list") {
			continue
		}
		seen[r.GroupResource()] = true
		kinds = append(kinds, drift.Kind{Group: r.Group, Version: r.Version, Resource: r.Resource, Kind: r.Kind})
	}
	return kinds
}

// scannedNamespaces are the namespaces opted in (--namespace-selector),
// without those the webhook never patches: kube-system and the registry
// namespace.
func (l *driftLoop) scannedNamespaces() []string {
	return slices.DeleteFunc(l.namespaces.Names(l.s.optIn), func(ns string) bool {
		return ns == "kube-system" || ns == l.s.namespace
	})
}

// registryVersion names the registry a scan runs with: the first 12 hex
// digits of the SHA-256 of the name and version of each file that
// applies, in order; it changes when a file is added, removed, edited or
// moved.
func registryVersion(reg *registry.Registry) string {
	var b strings.Builder
	for _, f := range reg.InOrder() {
		if f.File != nil {
			fmt.Fprintf(&b, "%s@%s\n", f.File.Name(), reg.Version(f.File.Name()))
		}
	}
	return registry.Version(b.String())
}

// noticeStale records an Event on each stale object of the report that
// has none for the report's registry version, within the rate; those
// past it get theirs at a later scan.
func (l *driftLoop) noticeStale(r *drift.Report) {
	noticed := map[types.UID]string{}
	for _, ns := range r.Namespaces() {
		for _, f := range r.Stale(ns) {
			uid := types.UID(f.Ref.UID)
			if l.noticed[uid] == r.Version() {
				noticed[uid] = r.Version()
				continue
			}
			if !l.events.Allow() {
				continue
			}
			noticed[uid] = r.Version()
			items := make([]string, 0, len(f.Files))
			for _, c := range f.Files {
				item := c.File + ": " + strings.Join(c.Fields, ", ")
				if c.Immutable != "" {
					item += " (not reconcilable: an UPDATE may not change " + c.Immutable + ")"
				}
				items = append(items, item)
			}
			l.recorder.Eventf(objectReference(f.Ref), nil, corev1.EventTypeNormal, ReasonStale, "Scan", "%s",
				admission.EventNote("the registry (version "+r.Version()+") would change it:", items))
		}
	}
	l.noticed = noticed // the stale objects only: flat in the objects scanned
}

// reconciled records the Event of one reconcile.
func (l *driftLoop) reconciled(res drift.Reconciled) {
	ref := objectReference(res.Finding.Ref)
	if res.Result == metrics.ReconcileDone {
		l.recorder.Eventf(ref, nil, corev1.EventTypeNormal, ReasonReconciled, "Reconcile", "%s",
			admission.EventNote("updated through the API server for the files marked reconcile:", res.Finding.FileNames()))
		return
	}
	l.log.Info("reconcile", "object", res.Finding.Ref.String(), "result", res.Result, "error", res.Err)
	l.recorder.Eventf(ref, nil, corev1.EventTypeWarning, ReasonReconcileFailed, "Reconcile", "%s",
		admission.EventNote(res.Result+": "+res.Err.Error(), nil))
}

// objectReference is the reference of an Event on the object of ref.
func objectReference(ref drift.ObjectRef) *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: ref.Kind.APIVersion(), Kind: ref.Kind.Kind, Namespace: ref.Namespace,
		Name: ref.Name, UID: types.UID(ref.UID), ResourceVersion: ref.ResourceVersion}
}

// writeReports writes the report of each namespace with stale objects
// (drift.PolicyReport), with a server-side apply, and deletes kpatch's
// report of every other namespace (nothing stale there now, or no longer
// scanned); a truncated scan, which did not look at every object, deletes
// none. When the PolicyReport CRD is not served it logs so once and
// writes nothing.
func (l *driftLoop) writeReports(ctx context.Context, r *drift.Report, served []rules.ServedResource) {
	if !slices.ContainsFunc(served, func(s rules.ServedResource) bool { return s.GroupVersionResource == policyReports }) {
		if !l.noCRDLogged {
			l.log.Info("no PolicyReport is written: the API server serves no " + policyReports.GroupResource().String() + " " + policyReports.Version)
			l.noCRDLogged = true
		}
		return
	}
	l.noCRDLogged = false
	reports := l.dyn.Resource(policyReports)
	for _, ns := range r.Namespaces() {
		body, err := json.Marshal(drift.PolicyReport(r, ns, 0))
		if err == nil {
			_, err = reports.Namespace(ns).Patch(ctx, drift.PolicyReportName, types.ApplyPatchType, body,
				metav1.PatchOptions{FieldManager: driftFieldManager, Force: ptr.To(true)})
		}
		if err != nil {
			l.log.Error(err, "writing the PolicyReport", "namespace", ns)
		}
	}
	if r.Truncated() {
		return
	}
	existing, err := reports.List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=kpatch",
		FieldSelector: "metadata.name=" + drift.PolicyReportName})
	if err != nil {
		l.log.Error(err, "listing the PolicyReports")
		return
	}
	for _, item := range existing.Items {
		ns := item.GetNamespace()
		if len(r.Stale(ns)) > 0 {
			continue
		}
		err := reports.Namespace(ns).Delete(ctx, drift.PolicyReportName, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: ptr.To(item.GetUID())}})
		if err != nil && !apierrors.IsNotFound(err) {
			l.log.Error(err, "deleting the PolicyReport", "namespace", ns)
		}
	}
}

// dynamicObjects lists and patches the objects of the scan through the
// API server (drift.Lister, drift.Patcher): no cache of them.
type dynamicObjects struct{ dyn dynamic.Interface }

var (
	_ drift.Lister  = dynamicObjects{}
	_ drift.Patcher = dynamicObjects{}
)

// List lists one page of the objects of kind in namespace.
func (d dynamicObjects) List(ctx context.Context, kind drift.Kind, namespace string, limit int64, cont string) (drift.Page, error) {
	return drift.ListFunc(func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
		return d.dyn.Resource(gvr).Namespace(namespace).List(ctx, opts)
	}).List(ctx, kind, namespace, limit, cont)
}

// Patch sends the merge patch of a reconcile.
func (d dynamicObjects) Patch(ctx context.Context, ref drift.ObjectRef, mergePatch []byte) error {
	gvr := schema.GroupVersionResource{Group: ref.Kind.Group, Version: ref.Kind.Version, Resource: ref.Kind.Resource}
	_, err := d.dyn.Resource(gvr).Namespace(ref.Namespace).Patch(ctx, ref.Name, types.MergePatchType, mergePatch,
		metav1.PatchOptions{FieldManager: admission.FieldManager})
	return err
}
