package admit

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
)

// TestAdmitPodWithOnlyGenerateName: the CREATE of a controller's Pod
// names no object (the API server makes the name after admission); a
// file whose name glob can match a name starting with its generateName
// patches it, a file with a literal name, even the generateName itself,
// does not.
func TestAdmitPodWithOnlyGenerateName(t *testing.T) {
	reg := newRegistry(t, map[string]string{
		"glob.kpatch":    "[pod.web-*]\nlabels.glob: \"yes\"\n",
		"literal.kpatch": "[pod.[web-7d9f-]]\nlabels.literal: \"yes\"\n",
		"other.kpatch":   "[pod.api-*]\nlabels.other: \"yes\"\n",
	})
	in, _ := NewInput(nil, "kpatch-system", "")
	p := &Policy{RegistryNamespace: "kpatch-system", Cluster: in}
	raw := `{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-7d9f-","namespace":"shop"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`
	res := Admit(context.Background(), logr.Discard(), p, reg, &Object{Kind: "Pod", Namespace: "shop", Operation: "CREATE", Raw: []byte(raw)}, nil)
	t.Cleanup(res.Release)
	if res.Err != nil || len(res.Messages) != 0 {
		t.Fatalf("%+v", res)
	}
	if want := `[{"op":"add","path":"/metadata/labels","value":{"glob":"yes"}}]`; string(res.Patch) != want {
		t.Errorf("patch %s, want %s", res.Patch, want)
	}
}
