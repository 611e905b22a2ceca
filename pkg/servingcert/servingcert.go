// Package servingcert gives the webhook its own TLS where cert-manager is
// not installed: cert-manager's pkg/server/tls keeps a CA in a Secret and
// issues and rotates the serving certificate, and Keeper writes that CA
// into the caBundle of the webhook's MutatingWebhookConfiguration and of
// its ValidatingWebhookConfiguration of the same name (the registry's
// validation), which cert-manager's cainjector would otherwise do.
package servingcert

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	cmtls "github.com/cert-manager/cert-manager/pkg/server/tls"
	"github.com/cert-manager/cert-manager/pkg/server/tls/authority"
	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options configure a Keeper.
type Options struct {
	// Namespace and SecretName locate the Secret that holds the CA; every
	// replica shares it.
	Namespace, SecretName string
	// DNSNames are the serving certificate's names: the Service's.
	DNSNames []string
	// WebhookConfiguration is the MutatingWebhookConfiguration whose
	// caBundle is kept current, and the ValidatingWebhookConfiguration of
	// that name when there is one.
	WebhookConfiguration string
	RESTConfig           *rest.Config
	// CADuration and LeafDuration default to 5 years and 7 days.
	CADuration, LeafDuration time.Duration
	// Resync is how often the caBundle is checked besides CA rotations;
	// default a minute.
	Resync time.Duration
	Log    logr.Logger
}

// Keeper serves the certificate and keeps the caBundle current. It is a
// controller-runtime Runnable.
type Keeper struct {
	o         Options
	reader    client.Reader
	writer    client.Writer
	source    *cmtls.DynamicSource
	authority *authority.DynamicAuthority
}

// New creates a Keeper.
func New(o Options) (*Keeper, error) {
	if o.SecretName == "" || o.Namespace == "" || len(o.DNSNames) == 0 || o.WebhookConfiguration == "" {
		return nil, errors.New("self-managed TLS needs a namespace, a Secret name, DNS names and a webhook configuration name")
	}
	if o.CADuration == 0 {
		o.CADuration = 5 * 365 * 24 * time.Hour
	}
	if o.LeafDuration == 0 {
		o.LeafDuration = 7 * 24 * time.Hour
	}
	if o.Resync == 0 {
		o.Resync = time.Minute
	}
	auth := &authority.DynamicAuthority{
		SecretNamespace: o.Namespace,
		SecretName:      o.SecretName,
		SecretLabels:    map[string]string{"app.kubernetes.io/managed-by": "kpatch-webhook"},
		RESTConfig:      o.RESTConfig,
		CommonName:      "kpatch-webhook-ca",
		CADuration:      o.CADuration,
		LeafDuration:    o.LeafDuration,
	}
	return &Keeper{
		o:         o,
		authority: auth,
		source:    &cmtls.DynamicSource{DNSNames: o.DNSNames, Authority: auth, RetryInterval: time.Second},
	}, nil
}

// SetClients sets how the Keeper reads the Secret and the configuration
// (uncached: the RBAC grants get on these names only) and patches the
// configuration. Call it before Start.
func (k *Keeper) SetClients(r client.Reader, w client.Writer) { k.reader, k.writer = r, w }

// GetCertificate serves the current certificate; set it as the webhook
// server's tls.Config.GetCertificate.
func (k *Keeper) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return k.source.GetCertificate(hello)
}

// TLSOption is the webhook server option that serves the certificate.
func (k *Keeper) TLSOption(c *tls.Config) { c.GetCertificate = k.GetCertificate }

// Start runs the certificate source and keeps the caBundle current until
// ctx ends.
func (k *Keeper) Start(ctx context.Context) error {
	ctx = logr.NewContext(ctx, k.o.Log)
	errs := make(chan error, 1)
	go func() { errs <- k.source.Start(ctx) }()
	rotated := make(chan struct{}, 1)
	k.authority.WatchRotation(rotated)
	defer k.authority.StopWatchingRotation(rotated)
	ticker := time.NewTicker(k.o.Resync)
	defer ticker.Stop()
	quick := time.NewTicker(500 * time.Millisecond) // until the first CA exists
	defer quick.Stop()
	synced := false
	for {
		select {
		case <-ctx.Done():
			return <-errs
		case err := <-errs:
			return err
		case <-rotated:
		case <-ticker.C:
		case <-quick.C:
			if synced {
				quick.Stop()
				continue
			}
		}
		ok, err := k.syncCABundle(ctx)
		if err != nil {
			k.o.Log.Error(err, "keeping the caBundle current")
		}
		synced = synced || ok
	}
}

// NeedLeaderElection is false: every replica serves and syncs.
func (k *Keeper) NeedLeaderElection() bool { return false }

// syncCABundle writes the CA (and the previous one, while it is valid)
// into every webhook of the configurations whose caBundle differs: the
// MutatingWebhookConfiguration, and the ValidatingWebhookConfiguration of
// the same name unless there is none. It reports whether a CA existed.
func (k *Keeper) syncCABundle(ctx context.Context) (bool, error) {
	var secret corev1.Secret
	err := k.reader.Get(ctx, types.NamespacedName{Namespace: k.o.Namespace, Name: k.o.SecretName}, &secret)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ca := secret.Data[corev1.ServiceAccountRootCAKey] // "ca.crt"
	if len(ca) == 0 {
		return false, nil
	}
	key := types.NamespacedName{Name: k.o.WebhookConfiguration}
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := k.reader.Get(ctx, key, &mwc); err != nil {
		return true, err
	}
	configs := make([]*admissionregistrationv1.WebhookClientConfig, len(mwc.Webhooks))
	for i := range mwc.Webhooks {
		configs[i] = &mwc.Webhooks[i].ClientConfig
	}
	if err := k.writeCABundle(ctx, &mwc, configs, ca); err != nil {
		return true, err
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := k.reader.Get(ctx, key, &vwc); apierrors.IsNotFound(err) {
		return true, nil // the registry's validation is not installed
	} else if err != nil {
		return true, err
	}
	configs = make([]*admissionregistrationv1.WebhookClientConfig, len(vwc.Webhooks))
	for i := range vwc.Webhooks {
		configs[i] = &vwc.Webhooks[i].ClientConfig
	}
	return true, k.writeCABundle(ctx, &vwc, configs, ca)
}

// writeCABundle patches the caBundle of each of the configuration's
// webhooks (configs, in order) that differs from the bundle of ca.
func (k *Keeper) writeCABundle(ctx context.Context, obj client.Object, configs []*admissionregistrationv1.WebhookClientConfig, ca []byte) error {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value string `json:"value"`
	}
	var ops []op
	for i, c := range configs {
		if bundle := caBundle(ca, c.CABundle); !bytes.Equal(c.CABundle, bundle) {
			ops = append(ops, op{"add", fmt.Sprintf("/webhooks/%d/clientConfig/caBundle", i), base64.StdEncoding.EncodeToString(bundle)})
		}
	}
	if len(ops) == 0 {
		return nil
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	if err := k.writer.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return err
	}
	kind := "MutatingWebhookConfiguration"
	if _, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
		kind = "ValidatingWebhookConfiguration"
	}
	k.o.Log.Info("wrote the CA into the webhook configuration", "configuration", obj.GetName(), "kind", kind)
	return nil
}

// caBundle is the CA, followed by the certificates of the current bundle
// that are other CAs still valid: after a rotation the CA it replaced stays
// trusted until it expires, so calls made with the old bundle do not fail.
// It depends only on the CA Secret and the configuration, so every replica
// computes the same bundle.
func caBundle(ca, current []byte) []byte {
	out := bytes.Clone(ca)
	rest := current
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return out
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil || !c.IsCA || time.Now().After(c.NotAfter) {
			continue
		}
		encoded := pem.EncodeToMemory(block)
		if bytes.Contains(out, encoded) {
			continue
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, encoded...)
	}
}
