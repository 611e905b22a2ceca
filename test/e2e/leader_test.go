package e2e

import (
	"bytes"
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

// frozenAnswer posts the AdmissionReview of Deployment freeze/frozen
// (replicas: 1) to w and returns the replicas its patch sets ("-" when
// none).
func frozenAnswer(w *cluster.Webhook) (string, error) {
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "frozen", Operation: admissionv1.Create, Namespace: "freeze", Name: "frozen",
			Kind:   metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Object: runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"frozen","namespace":"freeze"},"spec":{"replicas":1}}`)},
		},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return "", err
	}
	resp, err := env.HTTPClient().Post(fmt.Sprintf("https://127.0.0.1:%d%s?timeout=3s", w.Port, w.Path("/mutate")), "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var got admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK || got.Response == nil {
		return "", fmt.Errorf("HTTP %s: %v", resp.Status, err)
	}
	if got.Response.UID != "frozen" || !got.Response.Allowed {
		return "", fmt.Errorf("answer %+v", got.Response)
	}
	var ops []struct {
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	_ = json.Unmarshal(got.Response.Patch, &ops)
	for _, op := range ops {
		if op.Path == "/spec/replicas" {
			return fmt.Sprint(op.Value), nil
		}
	}
	return "-", nil
}

// ready reports whether w's /readyz answers OK.
func ready(w *cluster.Webhook) error {
	resp, err := http.Get(w.ReadyURL)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("readyz: HTTP %s", resp.Status)
	}
	return nil
}

// TestServingOutlivesTheLease freezes the API server for 20 s under a
// webhook that leads (--leader-elect): it loses the lease, and yet every
// review posted to it meanwhile is answered with the patch, /readyz stays
// OK and the process keeps running; once the API server is back, it leads
// again and a registry edit takes effect.
func TestServingOutlivesTheLease(t *testing.T) {
	var log lockedBuffer
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	w, err := env.StartWebhook(t.Context(), webhookBin, port, &log,
		"--leader-elect", "--leader-election-id=freeze", "--last-good-configmap=freeze-last-good")
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	defer w.Stop()
	registry(t, "freeze", map[string]string{"frozen.kpatch": "[freeze/deployment.frozen]\nreplicas: 4\n"})
	eventually(t, 20*time.Second, func() error {
		if got, err := frozenAnswer(w); err != nil || got != "4" {
			return fmt.Errorf("replicas %s, %v", got, err)
		}
		if !strings.Contains(log.String(), "elected leader") {
			return fmt.Errorf("not the leader yet")
		}
		return nil
	})

	thaw, err := env.Freeze()
	if err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			_ = thaw()
		}
	}()
	answered := 0
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(500 * time.Millisecond) {
		if got, err := frozenAnswer(w); err != nil || got != "4" {
			t.Errorf("review during the freeze: replicas %s, %v", got, err)
		} else {
			answered++
		}
		if err := ready(w); err != nil {
			t.Errorf("during the freeze: %v", err)
		}
		if !w.Running() {
			t.Fatalf("the webhook exited during the freeze\n%s", log.String())
		}
	}
	thawed = true
	if err := thaw(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d reviews answered with the patch during the freeze", answered)
	if !strings.Contains(log.String(), "leadership lost") {
		t.Errorf("the lease outlived a 20 s freeze: the test proves nothing\n%s", log.String())
	}

	// the API server is back: the watches re-list, an edit takes effect
	start := time.Now()
	eventually(t, 30*time.Second, func() error {
		var cm corev1.ConfigMap
		if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: "freeze"}, &cm); err != nil {
			return err
		}
		cm.Data = map[string]string{"frozen.kpatch": "[freeze/deployment.frozen]\nreplicas: 5\n"}
		return env.Client.Update(t.Context(), &cm)
	})
	eventually(t, 60*time.Second, func() error {
		if got, err := frozenAnswer(w); err != nil || got != "5" {
			return fmt.Errorf("replicas %s, %v", got, err)
		}
		return nil
	})
	t.Logf("the edit took effect %s after the API server returned", time.Since(start).Round(time.Second))
	// and it leads again
	eventually(t, 60*time.Second, func() error {
		if n := strings.Count(log.String(), "elected leader"); n < 2 {
			return fmt.Errorf("elected %d times", n)
		}
		return nil
	})
	if !w.Running() || ready(w) != nil {
		t.Errorf("after the freeze: running %v, %v", w.Running(), ready(w))
	}
	if strings.Contains(log.String(), "leader election lost") {
		t.Errorf("the manager's election ended it\n%s", log.String())
	}
}
