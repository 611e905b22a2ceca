package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestIdempotentPortInsertionOnReinvocation inserts a container port on a real
// API server with a second mutating webhook ordered after kpatch's (the
// configurations are called in name order) that changes the object: the
// API server defaults the new port's protocol, then reinvokes kpatch
// (reinvocationPolicy: IfNeeded), which must find the port it inserted by
// its merge key, containerPort, and add no twin.
func TestIdempotentPortInsertionOnReinvocation(t *testing.T) {
	const ns = "idempotence"
	startAnnotatingWebhook(t, ns)
	registry(t, "idempotence", map[string]string{
		"ports.kpatch": "[idempotence/deployment.ported.containers[name=app].ports[-]]\ncontainerPort: 9090\n",
	})
	namespace(t, ns, true)
	eventually(t, 10*time.Second, func() error {
		d := deployment(ns, "ported")
		if err := dryRunCreate(d); err != nil {
			return err
		}
		if d.Annotations[secondWebhookAnnotation] == "" || len(d.Spec.Template.Spec.Containers[0].Ports) == 0 {
			return fmt.Errorf("not patched by both webhooks yet: annotations %v, ports %v", d.Annotations, d.Spec.Template.Spec.Containers[0].Ports)
		}
		return nil
	})

	before := admissionRequests(t)
	d := deployment(ns, "ported")
	if err := env.Client.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	calls := admissionRequests(t) - before
	var stored appsv1.Deployment
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(d), &stored); err != nil {
		t.Fatal(err)
	}
	ports := stored.Spec.Template.Spec.Containers[0].Ports
	if len(ports) != 1 || ports[0].ContainerPort != 9090 || ports[0].Protocol != "TCP" {
		t.Errorf("ports %+v, want exactly one: 9090/TCP", ports)
	}
	if stored.Annotations[secondWebhookAnnotation] == "" {
		t.Error("the second webhook did not run")
	}
	if calls < 2 {
		t.Errorf("kpatch was called %d times for one create; want a reinvocation", calls)
	}
}

const secondWebhookAnnotation = "second.example.com/seen"

// startAnnotatingWebhook serves a second mutating webhook that annotates
// the Deployments of namespace ns, on the serving certificate of the test
// cluster, and registers it after kpatch's configuration.
func startAnnotatingWebhook(t *testing.T, ns string) {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(filepath.Join(env.CertDir, "tls.crt"), filepath.Join(env.CertDir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(annotate), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })

	port := l.Addr().(*net.TCPAddr).Port
	cfg := secondWebhookConfiguration(ns, fmt.Sprintf("https://127.0.0.1:%d/mutate", port))
	if err := env.Client.Create(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cfg) })
}

// annotate answers an AdmissionReview with a JSONPatch that sets the
// annotation secondWebhookAnnotation.
func annotate(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	var obj struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(review.Request.Object.Raw, &obj)
	ops := []map[string]any{}
	if obj.Metadata.Annotations == nil {
		ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{}})
	}
	ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations/" + strings.ReplaceAll(secondWebhookAnnotation, "/", "~1"), "value": "yes"})
	patch, _ := json.Marshal(ops)
	pt := admissionv1.PatchTypeJSONPatch
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true, Patch: patch, PatchType: &pt}
	review.Request = nil
	_ = json.NewEncoder(w).Encode(&review)
}

func secondWebhookConfiguration(ns, url string) *admissionregistrationv1.MutatingWebhookConfiguration {
	sideEffects := admissionregistrationv1.SideEffectClassNone
	failure := admissionregistrationv1.Fail
	never := admissionregistrationv1.NeverReinvocationPolicy
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "zz-second"}, // after "kpatch"
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "second.example.com",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &sideEffects,
			FailurePolicy:           &failure,
			ReinvocationPolicy:      &never,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: env.CAData},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
			}},
		}},
	}
}

var requestsLine = regexp.MustCompile(`(?m)^kpatch_admission_requests_total\{[^}]*\} (\d+)$`)

// admissionRequests sums the webhook's admission request counters.
func admissionRequests(t *testing.T) int {
	t.Helper()
	n := 0
	for _, m := range requestsLine.FindAllStringSubmatch(metrics(t), -1) {
		v, _ := strconv.Atoi(m[1])
		n += v
	}
	return n
}
