package admit

import "testing"

// TestAdmitItem: at admission a registry file's ${item.PATH} and per-item
// condition apply per container, as offline, and the answer is their
// JSONPatch: the container whose condition does not hold is left alone.
func TestAdmitItem(t *testing.T) {
	reg := newRegistry(t, map[string]string{"item.kpatch": "[deployment.web.containers.*]\n# kpatch:when: item.name != 'skip'\nworkingDir: /srv/${item.name}\n"})
	raw := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:1"},{"name":"skip","image":"skip:1"}]}}}}`
	res := admitRaw(t, reg, "shop", "", raw)
	if res.Err != nil || !res.Ran || len(res.Messages) != 0 {
		t.Fatalf("%+v", res)
	}
	if want := `[{"op":"add","path":"/spec/template/spec/containers/0/workingDir","value":"/srv/app"}]`; string(res.Patch) != want {
		t.Errorf("patch %s, want %s", res.Patch, want)
	}
}
