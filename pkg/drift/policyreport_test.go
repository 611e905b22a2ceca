package drift

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func scanned(t *testing.T, l *fakeLister, namespaces ...string) *Report {
	t.Helper()
	r, err := (&Scanner{Lister: l, Admitter: AdmitterFunc(fakeAdmit), Kinds: []Kind{deployments, pods}, Namespaces: namespaces, Version: "v3", Now: fixedClock()}).Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPolicyReport: one report per namespace, named kpatch-drift, a
// result per stale object and file, naming the file as its rule and the
// fields, with fail as its result, the object as its resource, and
// whether a reconcile may update it; the summary counts the results.
func TestPolicyReport(t *testing.T) {
	l := &fakeLister{}
	l.add(deployments, object(deployments, "a", "web", "reconcile-mirror"), object(deployments, "a", "api", ""))
	l.add(pods, object(pods, "a", "web-1", "immutable-limits"))
	r := scanned(t, l, "a", "b")
	got := PolicyReport(r, "a", 0)
	want := `{"apiVersion":"wgpolicyk8s.io/v1alpha2","kind":"PolicyReport",` +
		`"metadata":{"annotations":{"kpatch.dev/registry-version":"v3"},"labels":{"app.kubernetes.io/managed-by":"kpatch"},"name":"kpatch-drift","namespace":"a"},` +
		`"results":[` +
		`{"category":"drift","message":"reconcile-mirror would change Deployment a/web: /spec/replicas","policy":"kpatch",` +
		`"properties":{"fields":"/spec/replicas","reconcilable":"true","reconcile":"true"},` +
		`"resources":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","namespace":"a","uid":"uid-web"}],` +
		`"result":"fail","rule":"reconcile-mirror","scored":true,"source":"kpatch","timestamp":{"nanos":0,"seconds":1700000001}},` +
		`{"category":"drift","message":"immutable-limits would change Pod a/web-1: /spec/selector; not reconcilable: an UPDATE may not change spec.selector","policy":"kpatch",` +
		`"properties":{"fields":"/spec/selector","reconcilable":"false","reconcile":"true"},` +
		`"resources":[{"apiVersion":"v1","kind":"Pod","name":"web-1","namespace":"a","uid":"uid-web-1"}],` +
		`"result":"fail","rule":"immutable-limits","scored":true,"source":"kpatch","timestamp":{"nanos":0,"seconds":1700000001}}],` +
		`"summary":{"error":0,"fail":2,"pass":0,"skip":0,"warn":0}}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("report\n%s\nwant\n%s", b, want)
	}
	empty := PolicyReport(r, "b", 0)
	if res := empty["results"].([]any); len(res) != 0 || empty["summary"].(map[string]any)["fail"] != int64(0) {
		t.Errorf("a namespace without stale objects: results %v, summary %v", res, empty["summary"])
	}
}

// TestPolicyReportBounded: a report holds maxResults results, its summary
// counts them all and an annotation says how many were left out; a scan
// that stopped at its bound says so too.
func TestPolicyReportBounded(t *testing.T) {
	l := &fakeLister{}
	for i := range 7 {
		l.add(deployments, object(deployments, "a", fmt.Sprintf("d%d", i), "f"))
	}
	r := scanned(t, l, "a")
	got := PolicyReport(r, "a", 3)
	results := got["results"].([]any)
	annotations := got["metadata"].(map[string]any)["annotations"].(map[string]any)
	if len(results) != 3 || got["summary"].(map[string]any)["fail"] != int64(7) || annotations[TruncatedAnnotation] != "3 of 7 results" {
		t.Errorf("%d results, summary %v, annotations %v: want 3 of 7", len(results), got["summary"], annotations)
	}
	if first := results[0].(map[string]any)["resources"].([]any)[0].(map[string]any)["name"]; first != "d0" {
		t.Errorf("first result is %v, want d0: the scan's order", first)
	}
	r.truncated = true
	if a := PolicyReport(r, "a", 10)["metadata"].(map[string]any)["annotations"].(map[string]any); !strings.Contains(a[TruncatedAnnotation].(string), "scan truncated") {
		t.Errorf("annotations %v of a truncated scan", a)
	}
}

// TestPolicyReportFieldsBounded: a result names the first fields of a
// file and how many more it changes.
func TestPolicyReportFieldsBounded(t *testing.T) {
	var fields []string
	for i := range maxReportFields + 5 {
		fields = append(fields, fmt.Sprintf("/data/k%d", i))
	}
	res := policyResult(&Finding{Ref: ObjectRef{Kind: pods, Namespace: "a", Name: "p"}}, FileChange{File: "f", Fields: fields}, 0)
	if msg := res["message"].(string); !strings.HasSuffix(msg, "/data/k19 and 5 more") || strings.Contains(msg, "/data/k20") {
		t.Errorf("message %q", msg)
	}
}
