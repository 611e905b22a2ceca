package admission

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"

	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/registry"
)

var (
	deploymentKind = drift.Kind{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"}
	podKind        = drift.Kind{Version: "v1", Resource: "pods", Kind: "Pod"}
)

func stored(t *testing.T, src string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(src), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestStoredAdmitter: a stored object is admitted as an UPDATE by the
// webhook's ServiceAccount that changes nothing: a file that would patch
// it is a change with its fields; a file whose change an UPDATE may not
// make (a Pod's containers) is a change that names the field; a file
// whose condition leaves out the ServiceAccount, or an object as the
// files make it, is no change; a Handler that does not patch UPDATE
// changes no stored object.
func TestStoredAdmitter(t *testing.T) {
	h := newHandler(t, map[string]string{
		"label.kpatch":     "# kpatch:reconcile: true\n[deployment.web]\nlabels.team: shop\n",
		"people.kpatch":    "# kpatch:when: !request.userInfo.username.startsWith('system:serviceaccount:')\n[deployment.web]\nlabels.people: \"yes\"\n",
		"resources.kpatch": "[pod.web.containers.name=app]\nresources.requests.cpu: 250m\n",
	})
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	sa := authenticationv1.UserInfo{Username: "system:serviceaccount:kpatch-system:kpatch-webhook"}
	admitter := h.StoredAdmitter(sa, logr.Discard())
	ctx := context.Background()

	web := stored(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":1}}`)
	adm, err := admitter.Admit(ctx, deploymentKind, web)
	if err != nil {
		t.Fatal(err)
	}
	want := drift.Admission{Ops: []string{"/metadata/labels"},
		Files: []drift.FileChange{{File: "reg/label.kpatch", Fields: []string{"/metadata/labels"}, Reconcile: true}}}
	if !reflect.DeepEqual(adm, want) {
		t.Errorf("stale Deployment: %+v\nwant %+v", adm, want)
	}

	upToDate := stored(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":{"team":"shop"}}}`)
	if adm, err := admitter.Admit(ctx, deploymentKind, upToDate); err != nil || len(adm.Files) != 0 || len(adm.Ops) != 0 {
		t.Errorf("Deployment as the files make it: %+v, %v; want no change", adm, err)
	}

	adm, err = admitter.Admit(ctx, podKind, stored(t, storedPodJSON))
	if err != nil {
		t.Fatal(err)
	}
	want = drift.Admission{Files: []drift.FileChange{{File: "reg/resources.kpatch", Fields: []string{"spec.containers"}, Immutable: "spec.containers"}}}
	if !reflect.DeepEqual(adm, want) {
		t.Errorf("Pod: %+v\nwant %+v", adm, want)
	}

	h.Operations = []admissionv1.Operation{admissionv1.Create}
	if adm, err := admitter.Admit(ctx, deploymentKind, web); err != nil || len(adm.Files) != 0 {
		t.Errorf("a Handler of CREATE only: %+v, %v; want no change", adm, err)
	}
}

// TestStoredAdmitterNotSynced: before the registry's first sync a stored
// object does not admit: an error, never "as the registry makes it".
func TestStoredAdmitterNotSynced(t *testing.T) {
	h := &Handler{Registry: func() *registry.Registry { return nil }, Operations: []admissionv1.Operation{admissionv1.Update}}
	_, err := h.StoredAdmitter(authenticationv1.UserInfo{}, logr.Discard()).Admit(context.Background(), deploymentKind,
		stored(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"}}`))
	if err == nil {
		t.Fatal("no error before the first sync")
	}
}
