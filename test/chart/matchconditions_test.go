package chart

import (
	"encoding/json"
	"testing"

	"github.com/google/cel-go/cel"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
)

// sent evaluates the webhook's matchConditions as the API server does: a
// request is sent to the webhook only when every condition is true. The
// request is the AdmissionRequest as JSON, so that a field it omits (a
// user without groups) is absent, as it is to the API server's CEL.
func sent(t *testing.T, conditions []admissionregistrationv1.MatchCondition, user authenticationv1.UserInfo, dryRun bool) bool {
	t.Helper()
	env, err := cel.NewEnv(cel.Variable("request", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(admissionv1.AdmissionRequest{UserInfo: user, DryRun: &dryRun, Operation: admissionv1.Create})
	if err != nil {
		t.Fatal(err)
	}
	var request map[string]any
	if err := json.Unmarshal(b, &request); err != nil {
		t.Fatal(err)
	}
	for _, c := range conditions {
		ast, issues := env.Compile(c.Expression)
		if issues.Err() != nil {
			t.Fatalf("condition %s: %s: %v", c.Name, c.Expression, issues.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := prg.Eval(map[string]any{"request": request})
		if err != nil {
			t.Fatalf("condition %s on %+v: %v", c.Name, user, err)
		}
		if out.Value() != true {
			return false
		}
	}
	return true
}

// TestExcludedIdentitiesAreNotSent: webhook.exclude becomes
// matchConditions that keep the requests of the listed users, groups and
// service accounts from the webhook, and only those; webhook.matchConditions
// follow them as given.
func TestExcludedIdentitiesAreNotSent(t *testing.T) {
	mwc := typed[admissionregistrationv1.MutatingWebhookConfiguration](t, render(t, modeValues(t, "filtered")), "MutatingWebhookConfiguration")
	w := mwc.Webhooks[0]
	var names []string
	for _, c := range w.MatchConditions {
		names = append(names, c.Name)
	}
	if len(names) != 3 || names[0] != "kpatch-exclude-users" || names[1] != "kpatch-exclude-groups" || names[2] != "not-dry-run" {
		t.Fatalf("matchConditions %v", w.MatchConditions)
	}
	if w.ObjectSelector == nil || len(w.ObjectSelector.MatchExpressions) != 1 || w.ObjectSelector.MatchExpressions[0].Key != "kpatch.dev/skip" {
		t.Errorf("objectSelector %v", w.ObjectSelector)
	}
	authenticated := []string{"system:authenticated"}
	for _, c := range []struct {
		user   authenticationv1.UserInfo
		dryRun bool
		want   bool
	}{
		{authenticationv1.UserInfo{Username: "alice", Groups: authenticated}, false, true},
		{authenticationv1.UserInfo{Username: "system:kube-controller-manager", Groups: authenticated}, false, false},
		{authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:generic-garbage-collector", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}, false, false},
		{authenticationv1.UserInfo{Username: "system:serviceaccount:argocd:argocd-application-controller"}, false, false},
		// a service account of the same name in another namespace is sent
		{authenticationv1.UserInfo{Username: "system:serviceaccount:default:generic-garbage-collector", Groups: authenticated}, false, true},
		{authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:replicaset-controller", Groups: authenticated}, false, true},
		{authenticationv1.UserInfo{Username: "system:node:worker-1", Groups: []string{"system:nodes", "system:authenticated"}}, false, false},
		// no groups at all: sent, not an error
		{authenticationv1.UserInfo{Username: "bob"}, false, true},
		// the user's own condition
		{authenticationv1.UserInfo{Username: "alice", Groups: authenticated}, true, false},
	} {
		if got := sent(t, w.MatchConditions, c.user, c.dryRun); got != c.want {
			t.Errorf("%s %v (dry run %v): sent %v, want %v", c.user.Username, c.user.Groups, c.dryRun, got, c.want)
		}
	}
	// only users, only groups: one condition each
	for values, want := range map[string]string{
		`{"users":["a"]}`:             "kpatch-exclude-users",
		`{"serviceAccounts":["n/a"]}`: "kpatch-exclude-users",
		`{"groups":["g"]}`:            "kpatch-exclude-groups",
	} {
		var exclude map[string]any
		if err := json.Unmarshal([]byte(values), &exclude); err != nil {
			t.Fatal(err)
		}
		mwc := typed[admissionregistrationv1.MutatingWebhookConfiguration](t, render(t, map[string]any{"webhook": map[string]any{"exclude": exclude}}), "MutatingWebhookConfiguration")
		if c := mwc.Webhooks[0].MatchConditions; len(c) != 1 || c[0].Name != want {
			t.Errorf("%s: matchConditions %v", values, c)
		}
	}
}
