package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// fixedWebhook is the scenario "fixed": a webhook served by this process
// that answers every review with the same JSONPatch of the change, having
// read of the review only its uid. It does what any webhook must (TLS,
// HTTP/1.1 as kpatch serves it by default, reading the body, writing an
// answer) and nothing else: the lower bound of a webhook's cost on this
// API server, which kpatch's webhook is measured against.
type fixedWebhook struct {
	server *http.Server
	// url is where the API server calls it.
	url string
	// head and tail are the answer before and after the uid.
	head, tail []byte
	done       chan error
}

// fixedPatch is the change as a JSONPatch on the benchmark Deployment,
// whose container mainContainer is at index container: the annotation
// added (the object has annotations) and the cpu request replaced.
func fixedPatch(container int) []byte {
	ops := []map[string]any{
		{"op": "add", "path": "/metadata/annotations/example.com~1owner", "value": annotationVal},
		{"op": "replace", "path": "/spec/template/spec/containers/" + strconv.Itoa(container) + "/resources/requests/cpu", "value": cpuRequest},
	}
	patch, _ := json.Marshal(ops) // maps of strings always encode
	return patch
}

// containerIndex is the index of mainContainer in the Deployment.
func containerIndex(deployment []byte) (int, error) {
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name string `json:"name"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(deployment, &d); err != nil {
		return 0, fmt.Errorf("%s: %w", deploymentFile, err)
	}
	for i, c := range d.Spec.Template.Spec.Containers {
		if c.Name == mainContainer {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: no container %q", deploymentFile, mainContainer)
}

// newFixedWebhook makes the webhook that answers with patch.
func newFixedWebhook(patch []byte) *fixedWebhook {
	return &fixedWebhook{
		head: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`),
		tail: []byte(`","allowed":true,"patchType":"JSONPatch","patch":"` + base64.StdEncoding.EncodeToString(patch) + `"}}`),
	}
}

// start serves the webhook on a free port of 127.0.0.1 with the serving
// certificate of the cluster's webhook configuration (valid for that
// address), HTTP/1.1 only.
func (f *fixedWebhook) start(certDir string) error {
	cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
	if err != nil {
		return fmt.Errorf("the fixed webhook's certificate: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	f.url = "https://" + ln.Addr().String() + "/mutate"
	f.server = &http.Server{
		Handler:   f,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}},
	}
	f.done = make(chan error, 1)
	go func() { f.done <- f.server.ServeTLS(ln, "", "") }()
	return nil
}

// stop closes the server and its connections.
func (f *fixedWebhook) stop() error {
	if f.server == nil {
		return nil
	}
	err := f.server.Close()
	if serveErr := <-f.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}

// fixedBodies keep the request bodies between requests.
var fixedBodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP reads the review, finds its uid and answers with the patch.
func (f *fixedWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := fixedBodies.Get().(*bytes.Buffer)
	defer fixedBodies.Put(body)
	body.Reset()
	if _, err := body.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	uid, ok := reviewUID(body.Bytes())
	if !ok {
		http.Error(w, "no request uid in the AdmissionReview", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(f.head)+len(uid)+len(f.tail)))
	_, _ = w.Write(f.head)
	_, _ = w.Write(uid)
	_, _ = w.Write(f.tail)
}

// uidKey is how the request's uid begins in the API server's JSON: the
// first member of the request, which comes before the objects (whose
// own uids thus never come first).
var uidKey = []byte(`"uid":"`)

// reviewUID returns the request's uid in review as it is written there
// (a JSON string's content, to be written back as such): the review is
// searched up to the uid's end, not decoded.
func reviewUID(review []byte) ([]byte, bool) {
	i := bytes.Index(review, uidKey)
	if i < 0 {
		return nil, false
	}
	rest := review[i+len(uidKey):]
	for j := 0; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			j++
		case '"':
			return rest[:j], true
		}
	}
	return nil, false
}

// benchWebhookName is the name of the webhook of the configuration
// installWebhookConfiguration installs as config, as the API server's
// metrics label its calls.
func benchWebhookName(config string) string { return config + ".bench.kpatch.dev" }

// installWebhookConfiguration registers the webhook at url with the API
// server, as the MutatingWebhookConfiguration name, for Deployments in
// namespace ns, with the settings of kpatch's own configuration
// (test/cluster): v1 reviews, no side effects, ignored on failure,
// reinvoked if needed, 3 s timeout, creates and updates.
func installWebhookConfiguration(ctx context.Context, c client.Client, name, url string, caBundle []byte, ns string) error {
	sideEffects := admissionregistrationv1.SideEffectClassNone
	failure := admissionregistrationv1.Ignore
	reinvoke := admissionregistrationv1.IfNeededReinvocationPolicy
	timeout := int32(3)
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    benchWebhookName(name),
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &sideEffects,
			FailurePolicy:           &failure,
			ReinvocationPolicy:      &reinvoke,
			TimeoutSeconds:          &timeout,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns},
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"},
				},
			}},
		}},
	}
	if err := c.Create(ctx, cfg); err != nil {
		return fmt.Errorf("creating the webhook configuration %s: %w", name, err)
	}
	return nil
}

// startFixedWebhook starts the fixed webhook for the Deployment and
// registers it for namespace ns.
func (b *bench) startFixedWebhook(ctx context.Context, deployment []byte, ns string) error {
	i, err := containerIndex(deployment)
	if err != nil {
		return err
	}
	b.fixed = newFixedWebhook(fixedPatch(i))
	if err := b.fixed.start(b.cluster.CertDir); err != nil {
		return err
	}
	return installWebhookConfiguration(ctx, b.cluster.Client, "bench-fixed", b.fixed.url, b.cluster.CAData, ns)
}
