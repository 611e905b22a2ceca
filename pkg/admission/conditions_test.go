package admission

import (
	"context"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/registry"
)

// conditionFiles read every variable of a condition at admission.
var conditionFiles = map[string]string{
	registry.ParametersKey: "parameters:\n- {name: tier, type: string, default: silver}\n",
	"big.kpatch":           "# kpatch:when: object.spec.replicas > 2\n[deployment.web]\nlabels.big: \"yes\"\n",
	"gold-ns.kpatch":       "# kpatch:when: namespaceObject.metadata.labels['app.kubernetes.io/part-of'] == 'gold-shop'\n[deployment.web]\nlabels.gold-ns: \"yes\"\n",
	"people.kpatch":        "# kpatch:when: !request.userInfo.username.startsWith('system:serviceaccount:')\n[deployment.web]\nlabels.people: \"yes\"\n",
	"update.kpatch":        "# kpatch:when: request.operation == 'UPDATE' && oldObject.spec.replicas != object.spec.replicas\n[deployment.web]\nlabels.rescaled: \"yes\"\n",
	"params.kpatch":        "# kpatch:when: params.tier == 'gold'\n[deployment.web]\nlabels.param-gold: \"yes\"\n",
	"section.kpatch":       "[deployment.web]\nlabels.section-always: \"yes\"\n\n[deployment.web]\n# kpatch:when: request.dryRun == true\nlabels.section-dry: \"yes\"\n",
}

// conditionRequest is a Deployment web of ns with replicas, by user, an
// UPDATE from old replicas when old is set.
func conditionRequest(ns, user, replicas, old string) admission.Request {
	obj := func(r string) string {
		return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"` + ns + `"},"spec":{"replicas":` + r + `}}`
	}
	op := admissionv1.Create
	if old != "" {
		op = admissionv1.Update
	}
	req := request(op, ns, obj(replicas))
	req.Name = "web"
	req.UserInfo = authenticationv1.UserInfo{Username: user}
	if old != "" {
		req.OldObject = runtime.RawExtension{Raw: []byte(obj(old))}
	}
	return req
}

// addedLabels are the labels a response's JSONPatch sets, sorted.
func addedLabels(t *testing.T, resp admission.Response) []string {
	t.Helper()
	var out []string
	for _, op := range patchOf(t, resp) {
		if m, ok := op.Value.(map[string]any); ok && strings.HasSuffix(op.Path, "/labels") {
			for k := range m {
				out = append(out, k)
			}
		} else if k, ok := strings.CutPrefix(op.Path, "/metadata/labels/"); ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestHandlerConditions: a conditioned file applies where its condition
// holds, reading the admitted object, the request (operation, user, dry
// run), the old object of an UPDATE, the Namespace from the webhook's
// cache and the file's values; a section's condition leaves that section
// out only.
func TestHandlerConditions(t *testing.T) {
	h := valuesHandler(t, conditionFiles, namespaces{
		"gold":   namespace("gold", map[string]string{"values.kpatch.dev/tier": "gold"}),
		"silver": namespace("silver", nil),
	})
	dry := conditionRequest("silver", "alice", "1", "")
	dry.DryRun = new(bool)
	*dry.DryRun = true
	cases := []struct {
		name string
		req  admission.Request
		want string
	}{
		{"a small Deployment by a person", conditionRequest("silver", "alice", "1", ""), "people section-always"},
		{"a big one by a controller", conditionRequest("silver", "system:serviceaccount:kube-system:deployment-controller", "3", ""), "big section-always"},
		{"in the gold Namespace", conditionRequest("gold", "alice", "1", ""), "gold-ns param-gold people section-always"},
		{"rescaled by an UPDATE", conditionRequest("silver", "alice", "3", "1"), "big people rescaled section-always"},
		{"an UPDATE of something else", conditionRequest("silver", "alice", "3", "3"), "big people section-always"},
		{"a dry run", dry, "people section-always section-dry"},
	}
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	for _, tc := range cases {
		resp := h.Handle(context.Background(), tc.req)
		if !resp.Allowed || len(resp.Warnings) != 0 {
			t.Errorf("%s: allowed %v, warnings %q", tc.name, resp.Allowed, resp.Warnings)
		}
		if got := strings.Join(addedLabels(t, resp), " "); got != tc.want {
			t.Errorf("%s: labels %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestHandlerConditionErrors: a condition that fails on the object leaves
// its file out with a warning naming the file, the line and the CEL
// error; under --strict the object is denied, as for any file that fails.
func TestHandlerConditionErrors(t *testing.T) {
	files := map[string]string{
		"broken.kpatch": "# kpatch:when: object.spec.paused == false\n[deployment.web]\nlabels.paused: \"no\"\n",
		"fine.kpatch":   "[deployment.web]\nlabels.fine: \"yes\"\n",
	}
	h := valuesHandler(t, files, nil)
	resp := h.Handle(context.Background(), conditionRequest("shop", "alice", "1", ""))
	if got := strings.Join(addedLabels(t, resp), " "); !resp.Allowed || got != "fine" {
		t.Errorf("allowed %v, labels %q", resp.Allowed, got)
	}
	if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "kpatch: reg/broken.kpatch:1: not applied: when: condition failed: no such key: paused") {
		t.Errorf("warnings %q", resp.Warnings)
	}
	h.Strict = true
	resp = h.Handle(context.Background(), conditionRequest("shop", "alice", "1", ""))
	if resp.Allowed || !strings.Contains(resp.Result.Message, "reg/broken.kpatch:1: not applied: when:") {
		t.Errorf("strict: allowed %v, %q", resp.Allowed, resp.Result.Message)
	}
}
