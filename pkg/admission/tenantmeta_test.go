package admission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/metrics"
)

// tenantDeployment is a Deployment web of namespace team-a.
const tenantDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"team-a"},
"spec":{"replicas":50,"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}}}}`

// tenantHandler is the handler of a synced leader whose registry holds
// admin's files (the registry namespace) and team-a's files.
func tenantHandler(t *testing.T, admin, tenant map[string]string) *Handler {
	t.Helper()
	objs := []runtime.Object{tenantConfigMap("team-a", "mine", tenant)}
	if admin != nil {
		objs = append(objs, registryConfigMap("reg", admin))
	}
	w, _ := tenantWatcher(t, objs...)
	return &Handler{Registry: w.Current, RegistryNamespace: "kpatch-system", Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
}

// paths are the paths a response's patch writes, joined.
func paths(t *testing.T, h *Handler, req admission.Request) (string, admission.Response) {
	t.Helper()
	resp := h.Handle(context.Background(), req)
	var out []string
	for _, op := range patchOf(t, resp) {
		out = append(out, op.Path)
	}
	return strings.Join(out, ","), resp
}

// TestTenantFileKeepsItsOperations: a tenant's file with `#
// kpatch:operations: UPDATE` does not apply on CREATE, and applies on
// UPDATE, as an admin's would.
func TestTenantFileKeepsItsOperations(t *testing.T) {
	h := tenantHandler(t, nil, map[string]string{"t.kpatch": "# kpatch:operations: UPDATE\n[deployment.*]\nlabels.by: team-a\n"})
	h.Operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	if got, resp := paths(t, h, request(admissionv1.Create, "team-a", tenantDeployment)); got != "" || !resp.Allowed {
		t.Errorf("CREATE: patch %q (allowed %v), want none: the file applies on UPDATE only", got, resp.Allowed)
	}
	update := request(admissionv1.Update, "team-a", tenantDeployment)
	update.OldObject = update.Object
	if got, _ := paths(t, h, update); got != "/metadata/labels" {
		t.Errorf("UPDATE: patch %q, want the label", got)
	}
}

// TestTenantFileKeepsItsAuditMode: a tenant's file in audit mode that
// fails on the object is no problem of the object: no warning, and no
// denial under --strict; one that would patch changes nothing.
func TestTenantFileKeepsItsAuditMode(t *testing.T) {
	h := tenantHandler(t, nil, map[string]string{
		"fails.kpatch": "# kpatch:mode: audit\n[deployment.web]\ncontainers[name=missing].image: x\n",
		"would.kpatch": "# kpatch:mode: audit\n[deployment.*]\nlabels.audit: \"yes\"\n",
	})
	h.Strict = true
	got, resp := paths(t, h, request(admissionv1.Create, "team-a", tenantDeployment))
	if !resp.Allowed || len(resp.Warnings) != 0 || got != "" {
		t.Errorf("response allowed %v, warnings %q, patch %q: want admitted, unchanged, without a warning", resp.Allowed, resp.Warnings, got)
	}
	if resp.AuditAnnotations[AuditWouldApply] == "" || !strings.Contains(resp.AuditAnnotations[AuditWouldApply], "would.kpatch") {
		t.Errorf("audit annotations %v, want the file that would apply", resp.AuditAnnotations)
	}
}

// TestTenantConditionReadsTheRequest: a tenant's condition on the
// request's user holds for that user, with no admin file with
// conditions in the registry, and not for another.
func TestTenantConditionReadsTheRequest(t *testing.T) {
	h := tenantHandler(t, map[string]string{"plain.kpatch": "[deployment.*]\nlabels.admin: \"yes\"\n"},
		map[string]string{"t.kpatch": "# kpatch:when: request.userInfo.username == 'alice'\n[deployment.*]\nlabels.by: team-a\n"})
	for user, want := range map[string]string{"alice": "by", "bob": ""} {
		req := request(admissionv1.Create, "team-a", tenantDeployment)
		req.UserInfo = authenticationv1.UserInfo{Username: user}
		resp := h.Handle(context.Background(), req)
		var ops []string
		for _, op := range patchOf(t, resp) {
			ops = append(ops, op.Path+"="+string(mustJSON(t, op.Value)))
		}
		got := strings.Join(ops, " ")
		if has := strings.Contains(got, `"by"`); has != (want == "by") || len(resp.Warnings) != 0 {
			t.Errorf("%s: patch %s, warnings %q; want the tenant's label %v", user, got, resp.Warnings, want == "by")
		}
	}
}

// costly is a condition that costs a few units per evaluation: eleven of
// them spend a budget of 30.
const costly = "object.metadata.name.startsWith('web') && object.metadata.namespace.startsWith('team') && object.spec.replicas > 0"

// TestTenantsCannotSpendTheAdminsBudget: tenant files whose conditions
// spend the object's budget leave the admin's conditioned guardrail
// applying; the spent budget fails the tenant's last files, with warnings
// that name the admin's problems first.
func TestTenantsCannotSpendTheAdminsBudget(t *testing.T) {
	tenant := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"} {
		tenant[n+".kpatch"] = "# kpatch:when: " + costly + "\n[deployment.*]\nlabels." + n + ": x\n"
	}
	h := tenantHandler(t, map[string]string{"guard.kpatch": "# kpatch:when: object.spec.replicas > 1\n[deployment.*]\nreplicas: 1\n"}, tenant)
	h.ConditionBudget = 30
	resp := h.Handle(context.Background(), request(admissionv1.Create, "team-a", tenantDeployment))
	var replicas bool
	for _, op := range patchOf(t, resp) {
		replicas = replicas || op.Path == "/spec/replicas"
	}
	if !replicas {
		t.Errorf("the admin's guardrail did not apply: warnings %q", resp.Warnings)
	}
	if len(resp.Warnings) == 0 || !strings.Contains(strings.Join(resp.Warnings, "\n"), "budget") {
		t.Errorf("warnings %q, want the tenant files the spent budget left out", resp.Warnings)
	}
	if n := testutil.ToFloat64(h.Metrics.InternalErrors.WithLabelValues(metrics.ReasonBudgetSpent)); n != 1 {
		t.Errorf("budget-spent counted %v, want 1", n)
	}
}

// TestSpentBudgetFollowsOnError: an object on which a budget was spent is
// denied under --on-error=deny, as an internal error would be.
func TestSpentBudgetFollowsOnError(t *testing.T) {
	h := tenantHandler(t, map[string]string{"guard.kpatch": "# kpatch:when: " + costly + "\n[deployment.*]\nreplicas: 1\n"}, map[string]string{"t.kpatch": "[deployment.*]\nlabels.t: x\n"})
	h.ConditionBudget = 3
	h.OnError = ErrorPolicyDeny
	resp := h.Handle(context.Background(), request(admissionv1.Create, "team-a", tenantDeployment))
	if resp.Allowed || !strings.Contains(resp.Result.Message, "reg/guard.kpatch") {
		t.Errorf("allowed %v, message %q: want denied, naming the admin's file", resp.Allowed, resp.Result.Message)
	}
	h.OnError = ErrorPolicyAllow
	resp = h.Handle(context.Background(), request(admissionv1.Create, "team-a", tenantDeployment))
	if !resp.Allowed || len(resp.Warnings) == 0 || !strings.Contains(resp.Warnings[0], "reg/guard.kpatch") {
		t.Errorf("allowed %v, warnings %q: want admitted with a warning naming the admin's file first", resp.Allowed, resp.Warnings)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
