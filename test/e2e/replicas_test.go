package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// replicaFlags run a webhook as one of the replicas of a Deployment: a
// Lease of their own and a last good store of their own, apart from the
// suite's webhook.
var replicaFlags = []string{"--leader-elect", "--leader-election-id=replicas", "--last-good-configmap=replicas-last-good"}

// startReplica starts one more webhook process on a port of its own.
func startReplica(t *testing.T, log *lockedBuffer) *cluster.Webhook {
	t.Helper()
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	w, err := env.StartWebhook(context.Background(), webhookBin, port, log, replicaFlags...)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return w
}

// replicasAnswer posts the AdmissionReview of Deployment replicas/agree
// (replicas: 1) to w and returns its JSONPatch and the replicas it sets
// ("-" when it sets none).
func replicasAnswer(w *cluster.Webhook) (string, string, error) {
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "agree", Operation: admissionv1.Create, Namespace: "replicas", Name: "agree",
			Kind:   metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Object: runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"agree","namespace":"replicas"},"spec":{"replicas":1}}`)},
		},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return "", "", err
	}
	resp, err := env.HTTPClient().Post(fmt.Sprintf("https://127.0.0.1:%d%s?timeout=3s", w.Port, w.Path("/mutate")), "application/json", bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	var got admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK || got.Response == nil {
		return "", "", fmt.Errorf("HTTP %s: %v", resp.Status, err)
	}
	var ops []struct {
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	_ = json.Unmarshal(got.Response.Patch, &ops)
	for _, op := range ops {
		if op.Path == "/spec/replicas" {
			return string(got.Response.Patch), fmt.Sprint(op.Value), nil
		}
	}
	return string(got.Response.Patch), "-", nil
}

// bothAnswer checks that every webhook sets replicas to want, with the
// same JSONPatch.
func bothAnswer(want string, webhooks ...*cluster.Webhook) error {
	var first string
	for i, w := range webhooks {
		patch, got, err := replicasAnswer(w)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("webhook %d sets replicas %s, want %s", i, got, want)
		}
		if i == 0 {
			first = patch
		} else if patch != first {
			return fmt.Errorf("the answers differ: %s and %s", first, patch)
		}
	}
	return nil
}

// TestReplicasAgreeAfterABrokenEditAndARestart runs two webhook processes
// with leader election: a good version, a broken edit, a restart of one of
// them. Both answer alike throughout, and the restarted one applies the
// last good version from its first answer on: the leader stored it.
func TestReplicasAgreeAfterABrokenEditAndARestart(t *testing.T) {
	var logA, logB, logA2 lockedBuffer
	a, b := startReplica(t, &logA), startReplica(t, &logB)
	defer func() { b.Stop() }()
	registry(t, "replicas", map[string]string{"agree.kpatch": "[replicas/deployment.agree]\nreplicas: 2\n"})
	eventually(t, 20*time.Second, func() error { return bothAnswer("2", a, b) })
	// the leader, whichever it is, stores the good version
	eventually(t, 20*time.Second, func() error {
		var store corev1.ConfigMap
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: "replicas-last-good"}, &store); err != nil {
			return err
		}
		if !strings.Contains(store.Data["replicas_agree.kpatch"], "replicas: 2") {
			return fmt.Errorf("the store holds %v", store.Data)
		}
		return nil
	})

	registry(t, "replicas", map[string]string{"agree.kpatch": "[replicas/deployment.agree\nreplicas 5\n"})
	for _, l := range []*lockedBuffer{&logA, &logB} {
		eventually(t, 20*time.Second, func() error {
			if !strings.Contains(l.String(), `"registry file does not compile","file":"replicas/agree.kpatch"`) {
				return fmt.Errorf("the broken edit is not seen yet")
			}
			return nil
		})
	}
	if err := bothAnswer("2", a, b); err != nil {
		t.Errorf("after the broken edit: %v", err)
	}

	a.Stop()
	a = startReplica(t, &logA2)
	defer func() { a.Stop() }()
	// ready means synced with the store: no waiting
	if err := bothAnswer("2", a, b); err != nil {
		t.Errorf("after a restart: %v\nrestarted webhook's log:\n%s", err, logA2.String())
	}
	if !strings.Contains(logA2.String(), `"lastGood":true`) {
		t.Errorf("the restarted webhook does not say it applies the last good version:\n%s", logA2.String())
	}
}
