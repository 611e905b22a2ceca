package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kregistry "kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/test/cluster"
)

// auditTrailFiles: one file changes every Deployment, one finds it as it
// says already, one is in audit mode.
var auditTrailFiles = map[string]string{
	"a-team.kpatch":  "[audittrail/deployment.*]\nlabels.team: shop\n",
	"b-same.kpatch":  "[audittrail/deployment.*.containers.name=app]\nimage: nginx:1.25\n",
	"c-audit.kpatch": "# kpatch:mode: audit\n[audittrail/deployment.*]\nlabels.tier: gold\n",
}

// TestAuditTrail: on the real API server, with --annotate-applied the
// object carries kpatch.dev/applied naming the file that changed it (at
// its version) and not the file that changed nothing nor the audit-mode
// file, a value the client wrote being overwritten; the API server's
// audit log records the answer's audit annotations (applied,
// would-apply); the audit-mode file changes nothing and is counted
// would-patch; with --events-on-patch an
// Event on the object names the file.
func TestAuditTrail(t *testing.T) {
	const ns = "audittrail"
	o := newOwnWebhook(t, "audittrail-e2e", []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
	}})
	o.namespace(t, ns)
	o.registry(t, cluster.RegistryNamespace, "audittrail", auditTrailFiles)
	o.start(t, "--annotate-applied", "--events-on-patch")
	ctx := context.Background()
	c := env.Client

	eventually(t, 30*time.Second, func() error {
		p := deployment(ns, "probe")
		if err := c.Create(ctx, p, client.DryRunAll); err != nil {
			return err
		}
		if p.Labels["team"] != "shop" {
			return fmt.Errorf("not patched yet: labels %v", p.Labels)
		}
		return nil
	})

	d := deployment(ns, "web")
	d.Annotations = map[string]string{"kpatch.dev/applied": "audittrail/forged.kpatch@000000000000"}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	want := "audittrail/a-team.kpatch@" + kregistry.Version(auditTrailFiles["a-team.kpatch"])
	if got := d.Annotations["kpatch.dev/applied"]; got != want {
		t.Errorf("kpatch.dev/applied = %q, want %q (a-team changed the object; b-same changed nothing; c-audit is in audit mode)", got, want)
	}
	if d.Labels["team"] != "shop" || d.Labels["tier"] != "" {
		t.Errorf("labels %v: want team from a-team, and no tier: c-audit changes nothing", d.Labels)
	}

	// the API server's audit log records the answer's audit annotations,
	// under the webhook's name
	wouldApply := "audittrail/c-audit.kpatch@" + kregistry.Version(auditTrailFiles["c-audit.kpatch"])
	eventually(t, 30*time.Second, func() error {
		annotations, err := auditAnnotations(env.AuditLog, "create", "deployments", ns, "web")
		if err != nil {
			return err
		}
		if got := annotations["mutate.kpatch.dev/applied"]; got != want {
			return fmt.Errorf("audit annotation mutate.kpatch.dev/applied = %q, want %q (all: %v)", got, want, annotations)
		}
		if got := annotations["mutate.kpatch.dev/would-apply"]; got != wouldApply {
			return fmt.Errorf("audit annotation mutate.kpatch.dev/would-apply = %q, want %q (all: %v)", got, wouldApply, annotations)
		}
		return nil
	})

	token, err := env.MetricsToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := env.Scrape(ctx, o.wh, token)
	if err != nil {
		t.Fatal(err)
	}
	if line := grep(body, `kpatch_file_applications_total{file="audittrail/c-audit.kpatch",result="would-patch"}`); line == "" || strings.HasSuffix(line, " 0") {
		t.Errorf("the audit-mode file's would-patch counter: %q", line)
	}
	if line := grep(body, `kpatch_file_applications_total{file="audittrail/c-audit.kpatch",result="patched"}`); !strings.HasSuffix(line, " 0") {
		t.Errorf("the audit-mode file counted patched: %q", line)
	}

	eventually(t, 30*time.Second, func() error {
		var list eventsv1.EventList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Kind == "Deployment" && e.Regarding.Name == "web" && e.Reason == "Patched" {
				if !strings.Contains(e.Note, want) || strings.Contains(e.Note, "b-same") || strings.Contains(e.Note, "c-audit") {
					return fmt.Errorf("note %q, want it to name %s alone", e.Note, want)
				}
				return nil
			}
		}
		return fmt.Errorf("no Patched Event on Deployment web among %d", len(list.Items))
	})
}

// auditEvent is what the tests read of an audit.k8s.io/v1 Event.
type auditEvent struct {
	Verb      string `json:"verb"`
	Stage     string `json:"stage"`
	ObjectRef struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"objectRef"`
	Annotations map[string]string `json:"annotations"`
}

// auditAnnotations returns the annotations of the completed request verb
// of the object resource namespace/name in the API server's audit log.
func auditAnnotations(log, verb, resource, namespace, name string) (map[string]string, error) {
	if log == "" {
		return nil, fmt.Errorf("the control plane writes no audit log")
	}
	data, err := os.ReadFile(log)
	if err != nil {
		return nil, err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e auditEvent
		if len(line) == 0 || json.Unmarshal(line, &e) != nil {
			continue
		}
		if e.Verb == verb && e.Stage == "ResponseComplete" && e.ObjectRef.Resource == resource && e.ObjectRef.Namespace == namespace && e.ObjectRef.Name == name {
			return e.Annotations, nil
		}
	}
	return nil, fmt.Errorf("no %s of %s %s/%s in the audit log", verb, resource, namespace, name)
}
