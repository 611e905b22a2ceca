package admit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/metrics"
)

// admitRaw admits raw, a Deployment web of namespace, by reg and the
// input objs as the cluster.
func admitRaw(t *testing.T, reg Registry, namespace, op, raw string, objs ...map[string]any) Result {
	t.Helper()
	in, warnings := NewInput(objs, "kpatch-system", "")
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	p := &Policy{RegistryNamespace: "kpatch-system", Cluster: in}
	res := Admit(context.Background(), logr.Discard(), p, reg, &Object{Kind: "Deployment", Namespace: namespace, Name: "web", Operation: op, Raw: []byte(raw)}, nil)
	t.Cleanup(res.Release)
	return res
}

// TestAdmitPatchesWithTheNamespaceValues: a file reading a label of the
// object's Namespace is bound to the Namespace of the cluster, and the
// answer is its JSONPatch.
func TestAdmitPatchesWithTheNamespaceValues(t *testing.T) {
	reg := newRegistry(t, map[string]string{"team.kpatch": "[deployment.web]\nlabels.team: ${namespace.labels.team}\n"})
	shop := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop", "labels": map[string]any{"team": "t1"}}}
	res := admitRaw(t, reg, "shop", "", deploymentJSON, shop)
	if res.Err != nil || res.Run == nil || !res.Ran || len(res.Messages) != 0 {
		t.Fatalf("%+v", res)
	}
	if want := `[{"op":"add","path":"/metadata/labels","value":{"team":"t1"}}]`; string(res.Patch) != want {
		t.Errorf("patch %s, want %s", res.Patch, want)
	}
}

// TestAdmitLeavesWhatItNeverPatches: kube-system, the registry namespace,
// an object no file may target (never decoded: it need not be JSON) and
// an UPDATE of an object being deleted pass without a run; an object
// that does not decode, or claims another namespace, is an internal
// error; a nil registry is one that has not synced.
func TestAdmitLeavesWhatItNeverPatches(t *testing.T) {
	reg := newRegistry(t, map[string]string{"f.kpatch": "[deployment.web]\nreplicas: 2\n"})
	deleting := strings.Replace(deploymentJSON, `"namespace":"shop"`, `"namespace":"shop","deletionTimestamp":"2024-01-01T00:00:00Z"`, 1)
	for name, tc := range map[string]struct {
		namespace, op, raw string
		reason             string // of the internal error, "" for none
	}{
		"kube-system":          {"kube-system", "", "not JSON", ""},
		"registry namespace":   {"kpatch-system", "", "not JSON", ""},
		"no file targets it":   {"shop", "", "not JSON", ""},
		"terminating UPDATE":   {"shop", string(admissionv1.Update), deleting, ""},
		"not JSON":             {"shop", "", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"`, metrics.ReasonDecode},
		"another namespace":    {"jobs", "", deploymentJSON, metrics.ReasonNamespaceMismatch},
		"CREATE, not deleting": {"shop", "", deploymentJSON, ""},
	} {
		t.Run(name, func(t *testing.T) {
			var r Registry = reg
			if name == "no file targets it" {
				r = newRegistry(t, map[string]string{"f.kpatch": "[deployment.other]\nreplicas: 2\n"})
			}
			res := admitRaw(t, r, tc.namespace, tc.op, tc.raw)
			switch {
			case tc.reason != "":
				if res.Err == nil || res.Err.Reason != tc.reason {
					t.Errorf("error %v, want reason %s", res.Err, tc.reason)
				}
			case name == "CREATE, not deleting":
				if res.Err != nil || res.Patch == nil {
					t.Errorf("%+v: want a patch", res)
				}
			case res.Err != nil || res.Run != nil || res.Ran:
				t.Errorf("%+v: want no run", res)
			}
		})
	}
	res := admitRaw(t, nil, "shop", "", deploymentJSON)
	if res.Err == nil || res.Err.Reason != metrics.ReasonNotSynced {
		t.Errorf("nil registry: %v", res.Err)
	}
}

// TestAdmitTellsTheObserver: the Policy's Observer is told what each
// file did to it, with the object before and after the file.
func TestAdmitTellsTheObserver(t *testing.T) {
	reg := newRegistry(t, map[string]string{"a.kpatch": "[deployment.web]\nreplicas: 2\n", "b.kpatch": "[deployment.web]\nreplicas: 2\n"})
	in, _ := NewInput(nil, "kpatch-system", "")
	var seen []string
	obs := apply.ObserverFunc(func(_ int, r apply.FileRun, before, after map[string]any) {
		seen = append(seen, fmt.Sprintf("%s %s %v->%v", r.File.Name(), r.Result, before["spec"].(map[string]any)["replicas"], after["spec"].(map[string]any)["replicas"]))
	})
	res := Admit(context.Background(), logr.Discard(), &Policy{RegistryNamespace: "kpatch-system", Cluster: in, Observer: obs}, reg,
		&Object{Kind: "Deployment", Namespace: "shop", Name: "web", Operation: string(admissionv1.Update), Raw: []byte(deploymentJSON), OldRaw: []byte(deploymentJSON)}, nil)
	defer res.Release()
	if want := "reg/a.kpatch patched 1->2,reg/b.kpatch unchanged 2->2"; strings.Join(seen, ",") != want {
		t.Errorf("observed %q, want %q", seen, want)
	}
}
