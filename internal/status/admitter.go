package status

import (
	"context"
	"encoding/json"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/registry"
)

// admitter admits a listed object as an UPDATE that leaves it as it is
// stored, through the one admission path (admit.Admit), and says which
// files would change it (drift.Observer).
type admitter struct {
	registry *registry.Registry
	policy   *admit.Policy
}

var _ drift.Admitter = (*admitter)(nil)

// Admit admits obj, of kind, as an UPDATE by an unnamed user: the old
// object and the new are obj.
func (a *admitter) Admit(ctx context.Context, kind drift.Kind, obj map[string]any) (drift.Admission, error) {
	old, err := json.Marshal(obj)
	if err != nil {
		return drift.Admission{}, err
	}
	meta, _ := obj["metadata"].(map[string]any)
	namespace, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	req := &admissionv1.AdmissionRequest{
		Operation: admissionv1.Update, Namespace: namespace, Name: name,
		Kind:     metav1.GroupVersionKind{Group: kind.Group, Version: kind.Version, Kind: kind.Kind},
		Resource: metav1.GroupVersionResource{Group: kind.Group, Version: kind.Version, Resource: kind.Resource},
	}
	var observed drift.Observer
	p := *a.policy // the object's own Observer
	p.Observer = &observed
	res := admit.Admit(ctx, logr.Discard(), &p, a.registry, &admit.Object{
		Kind: kind.Kind, Namespace: namespace, Name: name, Operation: string(admissionv1.Update),
		Decoded: obj, OldRaw: old,
	}, req)
	defer res.Release()
	if res.Err != nil {
		return drift.Admission{}, res.Err
	}
	adm := drift.Admission{Files: observed.Files()}
	if len(res.Patch) > 0 {
		var ops []struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(res.Patch, &ops); err != nil {
			return drift.Admission{}, err
		}
		for _, op := range ops {
			adm.Ops = append(adm.Ops, op.Path)
		}
	}
	return adm, nil
}
