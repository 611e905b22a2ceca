package admission

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/registry"
)

// patchOps handles the Deployment as the API server sends it (with its
// managedFields) with the registry files and returns the answer's
// JSONPatch, each operation as "op path value".
func patchOps(t *testing.T, files map[string]string) []string {
	t.Helper()
	built := (&registry.Compiler{}).Build([]corev1.ConfigMap{configMap("mf", files)}, nil)
	if len(built.Problems) != 0 || built.Registry.Active() != len(files) {
		t.Fatalf("registry: %v", built.Problems)
	}
	raw, err := os.ReadFile("../../internal/objectjson/testdata/deployment-apiserver.json")
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{Registry: func() *registry.Registry { return built.Registry }}
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", string(raw)))
	if !resp.Allowed || len(resp.Warnings) != 0 {
		t.Fatalf("answer: %+v", resp)
	}
	var ops []struct {
		Op, Path string
		Value    any
	}
	if err := json.Unmarshal(resp.Patch, &ops); err != nil {
		t.Fatalf("%s: %v", resp.Patch, err)
	}
	var out []string
	for _, op := range ops {
		v, _ := json.Marshal(op.Value)
		out = append(out, op.Op+" "+op.Path+" "+string(v))
	}
	return out
}

// TestManagedFieldsDecodedOnlyWhenRead: a file that cannot reach the
// object's managedFields is answered as when they are decoded, and its
// answer leaves them alone; a file whose condition reads them, or whose
// entry writes them, sees them.
func TestManagedFieldsDecodedOnlyWhenRead(t *testing.T) {
	const change = "[deployment.web]\nannotations[example.com/owner]: team-a\n\n[deployment.web.containers.name=app]\nresources.requests.cpu: 250m\n"
	plain := patchOps(t, map[string]string{"change.kpatch": change})
	// a condition that reads them: decoded whole
	decoded := patchOps(t, map[string]string{"change.kpatch": "# kpatch:when: has(object.metadata.managedFields)\n" + change})
	// a condition that cannot: decoded without them
	conditioned := patchOps(t, map[string]string{"change.kpatch": "# kpatch:when: object.spec.replicas > 0 && object.metadata.name == 'web'\n" + change})
	for _, other := range [][]string{decoded, conditioned} {
		if strings.Join(plain, "\n") != strings.Join(other, "\n") || len(plain) != 2 {
			t.Errorf("without managedFields:\n%s\nwith them:\n%s", strings.Join(plain, "\n"), strings.Join(other, "\n"))
		}
	}
	for _, op := range plain {
		if strings.Contains(op, "managedFields") {
			t.Errorf("the answer touches managedFields: %s", op)
		}
	}
	read := patchOps(t, map[string]string{
		"change.kpatch": change,
		"read.kpatch":   "# kpatch:when: size(object.metadata.managedFields) == 1\n[deployment.web]\nlabels.managed: \"yes\"\n",
	})
	if !contains(read, `add /metadata/labels/managed "yes"`) {
		t.Errorf("the condition did not see managedFields:\n%s", strings.Join(read, "\n"))
	}
	write := patchOps(t, map[string]string{"write.kpatch": "[deployment.web]\nmetadata.managedFields.0.manager: kpatch\n"})
	if !contains(write, `replace /metadata/managedFields/0/manager "kpatch"`) {
		t.Errorf("the entry did not write managedFields:\n%s", strings.Join(write, "\n"))
	}
}

func contains(ops []string, want string) bool {
	for _, op := range ops {
		if op == want {
			return true
		}
	}
	return false
}

// TestTenantFileSaysWhetherItReadsManagedFields: a tenant's file carries
// ReadsManagedFields as the registry namespace's do, so its condition
// reading them sees them at admission, and a plain one leaves them out
// of the answer.
func TestTenantFileSaysWhetherItReadsManagedFields(t *testing.T) {
	w, _ := tenantWatcher(t, tenantConfigMap("team-a", "mine", map[string]string{
		"plain.kpatch": "[deployment.web]\nlabels.plain: \"yes\"\n",
		"reads.kpatch": "# kpatch:when: size(object.metadata.managedFields) == 1\n[deployment.web]\nlabels.managed: \"yes\"\n",
	}))
	reg := w.Current()
	reads := map[string]bool{}
	for _, f := range reg.Candidates("Deployment", "team-a", "web") {
		if m := f.Meta(); m.Owner == "team-a" {
			reads[f.Name()] = m.ManagedFields
		}
	}
	if len(reads) != 2 || reads["team-a/mine/plain.kpatch"] || !reads["team-a/mine/reads.kpatch"] {
		t.Fatalf("tenant files' ManagedFields: %v", reads)
	}
	raw, err := os.ReadFile("../../internal/objectjson/testdata/deployment-apiserver.json")
	if err != nil {
		t.Fatal(err)
	}
	raw = []byte(strings.Replace(string(raw), `"namespace":"shop"`, `"namespace":"team-a"`, 1))
	h := &Handler{Registry: w.Current}
	resp := h.Handle(context.Background(), request(admissionv1.Create, "team-a", string(raw)))
	if !resp.Allowed || len(resp.Warnings) != 0 {
		t.Fatalf("answer: %+v", resp)
	}
	for _, want := range []string{`"path":"/metadata/labels/plain"`, `"path":"/metadata/labels/managed"`} {
		if !strings.Contains(string(resp.Patch), want) {
			t.Errorf("no %s in %s", want, resp.Patch)
		}
	}
	if strings.Contains(string(resp.Patch), "managedFields") {
		t.Errorf("the answer touches managedFields: %s", resp.Patch)
	}
}
