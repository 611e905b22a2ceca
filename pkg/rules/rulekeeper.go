package rules

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/registry"
)

// ReasonPatchKindNotFound: targets of the ConfigMap's files whose kind no
// served resource has (Warning), recorded by the leader when the list of
// a ConfigMap changes.
const ReasonPatchKindNotFound = "PatchKindNotFound"

// Resync intervals of the webhook rules: while a target resolves to
// nothing (a CRD on its way), and otherwise (an aggregated API, a change
// discovery shows without an event).
const (
	rulesRetryUnserved = 15 * time.Second
	rulesResync        = 10 * time.Minute
)

// RulesKeeper keeps the rules of the webhook's own
// MutatingWebhookConfiguration equal to the resources the registry's
// files target (ResolveRules), so that the API server calls the webhook
// for the objects it can patch only. It runs on the leader.
type RulesKeeper struct {
	// Name is the MutatingWebhookConfiguration; every webhook of it gets
	// the rules.
	Name string
	// Reader reads the configuration (a cache that watches it); Writer
	// patches it; ConfigMaps reads the registry ConfigMaps for Events.
	Reader     client.Reader
	Writer     client.Writer
	ConfigMaps client.Reader
	// RegistryNamespace is the namespace of the files without one.
	RegistryNamespace string
	Registry          func() *registry.Registry
	// Discover lists the served resources.
	Discover func(context.Context) ([]ServedResource, error)
	// Operations are the webhook's (--operations): a resource's rule
	// takes those of them that the files targeting it apply on.
	Operations []admissionregistrationv1.OperationType
	Recorder   events.EventRecorder
	Log        logr.Logger

	cache    cache.Cache // the Reader, when SetupWithManager watches it
	mu       sync.Mutex
	reported map[client.ObjectKey]string // the unserved targets reported per ConfigMap
}

// Reconcile resolves the rules and patches the configuration when they
// differ.
func (k *RulesKeeper) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	reg := k.Registry()
	if reg == nil {
		return reconcile.Result{}, nil // the first sync will ask again
	}
	served, err := k.Discover(ctx)
	if err != nil && len(served) == 0 {
		return reconcile.Result{}, fmt.Errorf("discovering the served resources: %w", err)
	}
	if err != nil {
		k.Log.Error(err, "some API groups could not be discovered; their resources are left out of the webhook rules")
	}
	resolved := ResolveRules(reg, served, k.Operations)
	k.reportUnserved(ctx, resolved.Unserved)
	if err := k.apply(ctx, resolved.Rules()); err != nil {
		return reconcile.Result{}, err
	}
	if len(resolved.Unserved) > 0 {
		return reconcile.Result{RequeueAfter: rulesRetryUnserved}, nil
	}
	return reconcile.Result{RequeueAfter: rulesResync}, nil
}

// apply patches the configuration's rules to rules unless every webhook
// has them already.
func (k *RulesKeeper) apply(ctx context.Context, rules []admissionregistrationv1.RuleWithOperations) error {
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := k.Reader.Get(ctx, client.ObjectKey{Name: k.Name}, &mwc); err != nil {
		return fmt.Errorf("reading the webhook configuration %s: %w", k.Name, err)
	}
	if len(mwc.Webhooks) == 0 {
		return fmt.Errorf("the webhook configuration %s: %w", k.Name, errNoWebhooks)
	}
	base := mwc.DeepCopy()
	changed := false
	for i := range mwc.Webhooks {
		if !reflect.DeepEqual(mwc.Webhooks[i].Rules, rules) {
			mwc.Webhooks[i].Rules, changed = rules, true
		}
	}
	if !changed {
		return nil
	}
	if err := k.Writer.Patch(ctx, &mwc, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patching the rules of the webhook configuration %s: %w", k.Name, err)
	}
	k.Log.Info("webhook rules updated", "configuration", k.Name, "rules", len(rules), "resources", countResources(rules))
	return nil
}

var errNoWebhooks = errors.New("it has no webhooks")

func countResources(rules []admissionregistrationv1.RuleWithOperations) int {
	n := 0
	for _, r := range rules {
		n += len(r.Resources) * len(r.APIVersions)
	}
	return n
}

// reportUnserved records a Warning Event on each ConfigMap whose list of
// unserved targets changed to a non-empty one, and logs them.
func (k *RulesKeeper) reportUnserved(ctx context.Context, unserved []Unserved) {
	byCM := map[client.ObjectKey][]string{}
	var order []client.ObjectKey
	for _, u := range unserved {
		key := client.ObjectKey{Namespace: u.Ref.Namespace, Name: u.Ref.ConfigMap}
		if key.Namespace == "" {
			key.Namespace = k.RegistryNamespace
		}
		if _, ok := byCM[key]; !ok {
			order = append(order, key)
		}
		byCM[key] = append(byCM[key], u.String())
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	next := make(map[client.ObjectKey]string, len(byCM))
	for _, key := range order {
		note := admission.EventNote("the webhook is not called for these targets; a CRD created later is picked up:", byCM[key])
		next[key] = note
		if k.reported[key] == note {
			continue
		}
		k.Log.Info("registry targets of no served resource", "configMap", key.String(), "targets", byCM[key])
		var cm corev1.ConfigMap
		if err := k.ConfigMaps.Get(ctx, key, &cm); err != nil || k.Recorder == nil {
			continue
		}
		k.Recorder.Eventf(&cm, nil, corev1.EventTypeWarning, ReasonPatchKindNotFound, "Resolve", "%s", note)
	}
	k.reported = next
}

// DiscoverResources lists the resources d serves, every version of every
// group; with a partial failure (an aggregated API down) it returns the
// others and the error.
func DiscoverResources(d discovery.ServerResourcesInterface) ([]ServedResource, error) {
	_, lists, err := d.ServerGroupsAndResources()
	var out []ServedResource
	for _, l := range lists {
		gv, perr := schema.ParseGroupVersion(l.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range l.APIResources {
			out = append(out, ServedResource{GroupVersionResource: gv.WithResource(r.Name), Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs})
		}
	}
	return out, err
}
