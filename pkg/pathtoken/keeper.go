package pathtoken

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/pkg/metrics"
)

// Options configure a Keeper.
type Options struct {
	// Namespace and SecretName locate the Secret that holds the token
	// (Key); every replica shares it.
	Namespace, SecretName string
	// WebhookConfiguration names the MutatingWebhookConfiguration whose
	// webhooks are to call MutatePath with the token, and the
	// ValidatingWebhookConfiguration of that name, whose webhooks are to
	// call ValidatePath with it, when there is one. Empty: the Keeper
	// writes no configuration (whoever installs it writes the path).
	WebhookConfiguration     string
	MutatePath, ValidatePath string
	// Reader reads the Secret and the configurations, uncached (RBAC
	// grants get on these names only); Writer creates the Secret (a
	// server-side apply, authorized as create of its name) and patches
	// the configurations, as FieldManager (default "kpatch-webhook").
	Reader       client.Reader
	Writer       client.Writer
	FieldManager string
	// Resync is how often the Secret and the configurations are read
	// besides the syncs a refused request asks for; default 10 s.
	Resync  time.Duration
	Metrics *metrics.Metrics
	Log     logr.Logger
}

// Keeper keeps the token and the paths that carry it. It is a
// controller-runtime Runnable: every replica runs one.
type Keeper struct {
	o     Options
	token atomic.Pointer[string]
	// kick asks for a sync now (a refused request: the configuration may
	// have been set back, or the token replaced)
	kick    chan struct{}
	refused refusalLog
	// mu serializes syncs (Start's and a caller's)
	mu sync.Mutex
}

// kickInterval is the least time between a sync and one a refused
// request asks for: a flood of forged reviews reads the Secret and the
// configurations once a second at most.
const kickInterval = time.Second

// New returns a Keeper; it holds no token until its first sync.
func New(o Options) (*Keeper, error) {
	if o.Namespace == "" || o.SecretName == "" || o.Reader == nil || o.Writer == nil {
		return nil, errors.New("the path token needs a namespace, a Secret name and clients")
	}
	if o.WebhookConfiguration != "" && (o.MutatePath == "" || o.ValidatePath == "") {
		return nil, errors.New("the path token needs the paths it writes into the webhook configurations")
	}
	if o.Resync == 0 {
		o.Resync = 10 * time.Second
	}
	if o.FieldManager == "" {
		o.FieldManager = "kpatch-webhook"
	}
	return &Keeper{o: o, kick: make(chan struct{}, 1)}, nil
}

// Token is the token the replica serves, "" before the first sync that
// read one.
func (k *Keeper) Token() string {
	if t := k.token.Load(); t != nil {
		return *t
	}
	return ""
}

// Ready fails until the replica has read its token: before that it
// refuses every review.
func (k *Keeper) Ready(*http.Request) error {
	if k.Token() == "" {
		return fmt.Errorf("the path token has not been read from the Secret %s/%s yet", k.o.Namespace, k.o.SecretName)
	}
	return nil
}

// NeedLeaderElection is false: every replica reads its token and keeps
// the paths (they all write the same ones).
func (k *Keeper) NeedLeaderElection() bool { return false }

// Start syncs at once, then every Resync (every second until it holds a
// token) and when a refused request asks for it, until ctx ends.
func (k *Keeper) Start(ctx context.Context) error {
	for {
		if err := k.Sync(ctx); err != nil && ctx.Err() == nil {
			k.o.Log.Error(err, "keeping the path token")
		}
		last := time.Now()
		wait := k.o.Resync
		if k.Token() == "" {
			wait = time.Second
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		case <-k.kick:
			timer.Stop()
			if d := time.Until(last.Add(kickInterval)); d > 0 {
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(d):
				}
			}
		}
	}
}

// askSync asks Start for a sync, at once or after the one pending.
func (k *Keeper) askSync() {
	select {
	case k.kick <- struct{}{}:
	default:
	}
}

// Sync reads the token from its Secret, creating the Secret when it is
// missing, and writes the paths that carry it into the configurations
// that do not call them. When the Secret cannot be read or holds no
// token, the replica keeps serving the token it read before.
func (k *Keeper) Sync(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	token, err := k.load(ctx)
	if err != nil {
		return err
	}
	switch old := k.Token(); {
	case old == "":
		k.o.Log.Info("read the path token", "secret", k.o.Namespace+"/"+k.o.SecretName)
	case old != token:
		k.o.Log.Info("the path token changed: serving the new one", "secret", k.o.Namespace+"/"+k.o.SecretName)
	}
	k.token.Store(&token)
	if k.o.WebhookConfiguration == "" {
		return nil
	}
	return k.writePaths(ctx, token)
}

// load reads the token, creating its Secret when there is none.
func (k *Keeper) load(ctx context.Context) (string, error) {
	key := types.NamespacedName{Namespace: k.o.Namespace, Name: k.o.SecretName}
	var s corev1.Secret
	err := k.o.Reader.Get(ctx, key, &s)
	if apierrors.IsNotFound(err) {
		created := k.create(ctx)
		if err = k.o.Reader.Get(ctx, key, &s); apierrors.IsNotFound(err) && created != nil {
			err = created
		}
	}
	if err != nil {
		return "", fmt.Errorf("reading the path token's Secret %s: %w", key, err)
	}
	token := string(s.Data[Key])
	if err := Check(token); err != nil {
		return "", fmt.Errorf("the Secret %s, key %s: %w; delete the Secret and the webhook creates it again with a new token", key, Key, err)
	}
	return token, nil
}

// create creates the Secret with a new token, immutable: of replicas
// that create it at once, the first one's token stays and the others'
// writes are refused (the API server refuses to change the data of an
// immutable Secret), so that they all read the same. A server-side apply,
// which the API server authorizes as create of this name: a Role can grant
// it by name, which it cannot for a plain create.
func (k *Keeper) create(ctx context.Context) error {
	apply := corev1ac.Secret(k.o.SecretName, k.o.Namespace).
		WithLabels(map[string]string{"app.kubernetes.io/managed-by": "kpatch-webhook", "app.kubernetes.io/component": "path-token"}).
		WithType(corev1.SecretTypeOpaque).WithImmutable(true).
		WithData(map[string][]byte{Key: []byte(NewToken())})
	if err := k.o.Writer.Apply(ctx, apply, client.FieldOwner(k.o.FieldManager)); err != nil {
		return fmt.Errorf("creating the path token's Secret %s/%s: %w", k.o.Namespace, k.o.SecretName, err)
	}
	k.o.Log.Info("created the path token's Secret with a new token", "secret", k.o.Namespace+"/"+k.o.SecretName)
	return nil
}

// writePaths writes the paths that carry token into the
// MutatingWebhookConfiguration, and into the ValidatingWebhookConfiguration
// of the same name unless there is none.
func (k *Keeper) writePaths(ctx context.Context, token string) error {
	key := types.NamespacedName{Name: k.o.WebhookConfiguration}
	mutating := func() (client.Object, []admissionregistrationv1.WebhookClientConfig, error) {
		var c admissionregistrationv1.MutatingWebhookConfiguration
		if err := k.o.Reader.Get(ctx, key, &c); err != nil {
			return nil, nil, fmt.Errorf("reading the MutatingWebhookConfiguration %s: %w", key.Name, err)
		}
		configs := make([]admissionregistrationv1.WebhookClientConfig, len(c.Webhooks))
		for i := range c.Webhooks {
			configs[i] = c.Webhooks[i].ClientConfig
		}
		return &c, configs, nil
	}
	validating := func() (client.Object, []admissionregistrationv1.WebhookClientConfig, error) {
		var c admissionregistrationv1.ValidatingWebhookConfiguration
		if err := k.o.Reader.Get(ctx, key, &c); apierrors.IsNotFound(err) {
			return nil, nil, nil // the registry's validation is not installed
		} else if err != nil {
			return nil, nil, fmt.Errorf("reading the ValidatingWebhookConfiguration %s: %w", key.Name, err)
		}
		configs := make([]admissionregistrationv1.WebhookClientConfig, len(c.Webhooks))
		for i := range c.Webhooks {
			configs[i] = c.Webhooks[i].ClientConfig
		}
		return &c, configs, nil
	}
	if err := k.writePath(ctx, mutating, k.o.MutatePath, token); err != nil {
		return err
	}
	return k.writePath(ctx, validating, k.o.ValidatePath, token)
}

// writePath patches the paths of the configuration read gives (nothing
// when it gives none) that do not call base with token. A patch that
// fails its test (the configuration changed since it was read) is tried
// again on a new read.
func (k *Keeper) writePath(ctx context.Context, read func() (client.Object, []admissionregistrationv1.WebhookClientConfig, error), base, token string) error {
	var err error
	for range 3 {
		obj, configs, rerr := read()
		if rerr != nil || obj == nil {
			return rerr
		}
		if err = k.patch(ctx, obj, configs, base, token); !apierrors.IsInvalid(err) {
			return err
		}
	}
	return err
}

// patch patches the path of each of obj's webhooks (configs, in order)
// that does not call base with token.
func (k *Keeper) patch(ctx context.Context, obj client.Object, configs []admissionregistrationv1.WebhookClientConfig, base, token string) error {
	var ops []jsonOp
	for i, c := range configs {
		more, err := pathOps(i, c, base, token)
		if err != nil {
			return fmt.Errorf("%s %s: %w", kindOf(obj), obj.GetName(), err)
		}
		ops = append(ops, more...)
	}
	if len(ops) == 0 {
		return nil
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	if err := k.o.Writer.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(k.o.FieldManager)); err != nil {
		return fmt.Errorf("writing the path token into the %s %s: %w", kindOf(obj), obj.GetName(), err)
	}
	k.o.Log.Info("wrote the path token into the webhook configuration", "configuration", obj.GetName(), "kind", kindOf(obj), "path", base+"/...")
	return nil
}

func kindOf(obj client.Object) string {
	if _, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
		return "ValidatingWebhookConfiguration"
	}
	return "MutatingWebhookConfiguration"
}
