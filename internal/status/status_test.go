package status

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"kpatch.dev/kpatch/pkg/drift"
)

var (
	deployments = drift.Kind{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"}
	pods        = drift.Kind{Version: "v1", Resource: "pods", Kind: "Pod"}
)

// listed is a listed object of kind k in namespace shop.
func listed(k drift.Kind, name string) map[string]any {
	return map[string]any{"apiVersion": k.APIVersion(), "kind": k.Kind, "metadata": map[string]any{"namespace": "shop", "name": name, "uid": "uid-" + name}}
}

// pageLister serves one page of objects, whatever the kind.
type pageLister map[drift.Kind][]map[string]any

func (l pageLister) List(_ context.Context, k drift.Kind, _ string, _ int64, _ string) (drift.Page, error) {
	return drift.Page{Objects: l[k]}, nil
}

// policyReport is the PolicyReport of namespace shop the webhook writes
// after a scan of objs that finds the files of changes (by object name)
// (drift.PolicyReport), at most maxResults, as the API server returns it
// (JSON numbers).
func policyReport(t *testing.T, objs pageLister, changes map[string][]drift.FileChange, maxResults int) map[string]any {
	t.Helper()
	sc := &drift.Scanner{
		Lister: objs,
		Admitter: drift.AdmitterFunc(func(_ context.Context, _ drift.Kind, obj map[string]any) (drift.Admission, error) {
			return drift.Admission{Files: changes[obj["metadata"].(map[string]any)["name"].(string)]}, nil
		}),
		Kinds: []drift.Kind{deployments, pods}, Namespaces: []string{"shop"}, Version: "3f2a9c0d1e2b",
		Now: func() time.Time { return time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC) },
	}
	report, err := sc.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(drift.PolicyReport(report, "shop", maxResults))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	shopObjects = pageLister{deployments: {listed(deployments, "web"), listed(deployments, "api")}, pods: {listed(pods, "web-1")}}
	shopChanges = map[string][]drift.FileChange{
		"web": {
			{File: "base/app.kpatch", Fields: []string{"/spec/replicas", "/spec/template/spec/containers/0/image"}},
			{File: "base/mirror.kpatch", Fields: []string{"/spec/template/spec/containers/0/image"}, Reconcile: true},
		},
		"web-1": {{File: "base/mirror.kpatch", Fields: []string{"/spec/containers/0/image"}, Reconcile: true, Immutable: "/spec/containers/0/image"}},
	}
)

// TestPrintsTheReportOfANamespace: the text lists the stale objects of a
// PolicyReport as the webhook writes it, each under its namespace with
// its files and their fields, whether a reconcile may update it, what
// the report left out; an object the registry leaves as it is is not
// listed.
func TestPrintsTheReportOfANamespace(t *testing.T) {
	many := make([]string, 25)
	for i := range many {
		many[i] = "/metadata/labels/l" + string(rune('a'+i))
	}
	for name, tc := range map[string]struct {
		objs       pageLister
		changes    map[string][]drift.FileChange
		maxResults int
		want       string
	}{
		"stale objects": {shopObjects, shopChanges, 0, `shop: 2 stale objects (report, registry version 3f2a9c0d1e2b, scan of 2026-11-29T04:00:00Z)
  Deployment web (apps/v1)
    base/app.kpatch: /spec/replicas, /spec/template/spec/containers/0/image
    base/mirror.kpatch: /spec/template/spec/containers/0/image (reconcile)
  Pod web-1 (v1)
    base/mirror.kpatch: /spec/containers/0/image (not reconcilable: an UPDATE may not change /spec/containers/0/image)
`},
		"nothing stale": {shopObjects, nil, 0, "shop: no stale objects (report, registry version 3f2a9c0d1e2b)\n"},
		"results left out": {shopObjects, shopChanges, 1, `shop: 1 stale object (report, registry version 3f2a9c0d1e2b, scan of 2026-11-29T04:00:00Z)
  truncated: 1 of 3 results
  Deployment web (apps/v1)
    base/app.kpatch: /spec/replicas, /spec/template/spec/containers/0/image
`},
		"fields left out": {pageLister{deployments: {listed(deployments, "web")}}, map[string][]drift.FileChange{"web": {{File: "labels.kpatch", Fields: many}}}, 0,
			`shop: 1 stale object (report, registry version 3f2a9c0d1e2b, scan of 2026-11-29T04:00:00Z)
  Deployment web (apps/v1)
    labels.kpatch: ` + strings.Join(many[:20], ", ") + ` and 5 more
`},
	} {
		t.Run(name, func(t *testing.T) {
			ns, err := FromPolicyReport(policyReport(t, tc.objs, tc.changes, tc.maxResults))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := Print(&out, &Status{Namespaces: []Namespace{ns}}, ""); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tc.want)
			}
		})
	}
}

// TestPrintsTheStructure: -o json and -o yaml print the structure
// docs/drift.md documents, field for field.
func TestPrintsTheStructure(t *testing.T) {
	ns, err := FromPolicyReport(policyReport(t, shopObjects, map[string][]drift.FileChange{"web-1": shopChanges["web-1"]}, 0))
	if err != nil {
		t.Fatal(err)
	}
	st := &Status{Namespaces: []Namespace{ns}}
	for format, want := range map[string]string{
		OutputJSON: `{
    "namespaces": [
        {
            "namespace": "shop",
            "source": "report",
            "registryVersion": "3f2a9c0d1e2b",
            "scanTime": "2026-11-29T04:00:00Z",
            "objects": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": "web-1",
                    "uid": "uid-web-1",
                    "files": [
                        {
                            "file": "base/mirror.kpatch",
                            "fields": [
                                "/spec/containers/0/image"
                            ],
                            "reconcile": true,
                            "reconcilable": false,
                            "immutable": "/spec/containers/0/image"
                        }
                    ]
                }
            ]
        }
    ]
}
`,
		OutputYAML: `namespaces:
- namespace: shop
  objects:
  - apiVersion: v1
    files:
    - fields:
      - /spec/containers/0/image
      file: base/mirror.kpatch
      immutable: /spec/containers/0/image
      reconcilable: false
      reconcile: true
    kind: Pod
    name: web-1
    uid: uid-web-1
  registryVersion: 3f2a9c0d1e2b
  scanTime: "2026-11-29T04:00:00Z"
  source: report
`,
	} {
		var out bytes.Buffer
		if err := Print(&out, st, format); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("-o %s:\n%s\nwant\n%s", format, out.String(), want)
		}
	}
}

// TestReadsOnlyKpatchResults: results of another source in the report
// are not kpatch's; a kpatch result without its object is an error that
// names it.
func TestReadsOnlyKpatchResults(t *testing.T) {
	report := policyReport(t, shopObjects, shopChanges, 0)
	results := report["results"].([]any)
	report["results"] = append(results, map[string]any{"source": "kyverno", "policy": "p", "rule": "r", "result": "fail"})
	ns, err := FromPolicyReport(report)
	if err != nil || len(ns.Objects) != 2 {
		t.Fatalf("%v, %+v: want the 2 objects of kpatch", err, ns)
	}
	results[0].(map[string]any)["resources"] = []any{}
	if _, err := FromPolicyReport(report); err == nil || !strings.Contains(err.Error(), "PolicyReport shop/kpatch-drift: results[0]: 0 resources") {
		t.Errorf("error %v, want the result named", err)
	}
}
