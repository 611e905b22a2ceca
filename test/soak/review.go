package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// deploymentJSON is a Deployment as a client sends it; namespace "" leaves
// metadata.namespace out.
func deploymentJSON(namespace, name string) []byte {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
		"spec": map[string]any{
			"replicas": 1,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx:1.25"}}},
			},
		},
	})
	return b
}

// deploymentReview is the AdmissionReview of a Deployment's CREATE that
// claims namespace claimed for the object obj.
func deploymentReview(uid, claimed, name string, obj []byte) []byte {
	b, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID(uid), Operation: admissionv1.Create, Namespace: claimed, Name: name,
			Kind:     metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Resource: metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			Object:   runtime.RawExtension{Raw: obj},
		},
	})
	return b
}

// statusError is an answer other than 200 OK: no review came back.
type statusError struct {
	Code int
	Body string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %.200s", e.Code, e.Body) }

// postReview posts a review to the webhook at port, at path (/mutate and
// its path token, as the API server calls it), and returns its answer; an
// answer other than 200 OK is a *statusError.
func postReview(client *http.Client, port int, path string, body []byte) (*admissionv1.AdmissionResponse, error) {
	resp, err := client.Post(fmt.Sprintf("https://127.0.0.1:%d%s?timeout=3s", port, path), "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{Code: resp.StatusCode, Body: string(b)}
	}
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, err
	}
	if got.Response == nil {
		return nil, fmt.Errorf("an answer without a response: %.200s", b)
	}
	return got.Response, nil
}

// patched applies an answer's JSONPatch to obj, as the API server does;
// an error is an answer the API server would refuse.
func patched(obj []byte, r *admissionv1.AdmissionResponse) ([]byte, error) {
	if len(r.Patch) == 0 {
		return obj, nil
	}
	if r.PatchType == nil || *r.PatchType != admissionv1.PatchTypeJSONPatch {
		return nil, fmt.Errorf("patch type %v", r.PatchType)
	}
	p, err := jsonpatch.DecodePatch(r.Patch)
	if err != nil {
		return nil, fmt.Errorf("undecodable patch: %w", err)
	}
	out, err := p.Apply(obj)
	if err != nil {
		return nil, fmt.Errorf("the patch does not apply: %w", err)
	}
	return out, nil
}

// answerText is everything of an answer a caller reads: the patch, the
// warnings, the status message and the audit annotations.
func answerText(r *admissionv1.AdmissionResponse) string {
	var b bytes.Buffer
	b.Write(r.Patch)
	for _, w := range r.Warnings {
		b.WriteString("\n" + w)
	}
	if r.Result != nil {
		b.WriteString("\n" + r.Result.Message + "\n" + string(r.Result.Reason))
	}
	for k, v := range r.AuditAnnotations {
		b.WriteString("\n" + k + "=" + v)
	}
	return b.String()
}

// objectMarks reads the soak's marks of a Deployment in JSON.
func objectMarks(obj []byte) (Marks, error) {
	var d struct {
		Metadata struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Replicas int32 `json:"replicas"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(obj, &d); err != nil {
		return Marks{}, err
	}
	return readMarks("Deployment", d.Metadata.Labels, d.Metadata.Annotations, d.Spec.Replicas), nil
}
