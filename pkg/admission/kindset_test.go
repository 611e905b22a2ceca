package admission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// TestKindSetsAndGlobsReachTheirObjects: files targeting @workload, a kind
// glob and a glob over a custom resource's group are found by the
// registry's index (before decoding) and applied.
func TestKindSetsAndGlobsReachTheirObjects(t *testing.T) {
	h := newHandler(t, map[string]string{
		"a-mirror.kpatch":  "[@workload.*.allContainers]\nimage.registry: mirror.internal:5000\n",
		"b-web.kpatch":     "[*.web]\nlabels.web: \"yes\"\n",
		"c-widgets.kpatch": "[*(example.com).*]\nlabels.widget: \"yes\"\n",
	})
	for _, tc := range []struct {
		name, object string
		want         []string // substrings of the JSONPatch
		none         bool
	}{
		{"deployment named web", deploymentJSON, []string{"mirror.internal:5000/", `"web":"yes"`}, false},
		{"pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"app:v1"}]}}`, []string{"mirror.internal:5000/app:v1"}, false},
		{"widget", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`, []string{`"widget":"yes"`}, false},
		{"configmap", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`, nil, true},
	} {
		// the request names the object (the name index), or not (generateName)
		for _, name := range []string{objectName(t, tc.object), ""} {
			req := request(admissionv1.Create, "shop", tc.object)
			req.Name = name
			resp := h.Handle(context.Background(), req)
			if !resp.Allowed || len(resp.Warnings) != 0 {
				t.Errorf("%s (name %q): %+v", tc.name, name, resp)
				continue
			}
			if tc.none != (len(resp.Patch) == 0) {
				t.Errorf("%s (name %q): patch %s", tc.name, name, resp.Patch)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(resp.Patch), w) {
					t.Errorf("%s (name %q): patch %s lacks %s", tc.name, name, resp.Patch, w)
				}
			}
		}
	}
}

func objectName(t *testing.T, object string) string {
	var o struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(object), &o); err != nil {
		t.Fatal(err)
	}
	return o.Metadata.Name
}
