package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/internal/status"
	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/test/cluster"
)

// buildKpatch builds the CLI into a test directory.
func buildKpatch(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kpatch")
	if out, err := exec.Command("go", "build", "-o", bin, "kpatch.dev/kpatch/cmd/kpatch").CombinedOutput(); err != nil {
		t.Fatalf("building kpatch: %v\n%s", err, out)
	}
	return bin
}

// kpatchStatus runs kpatch status as a user does, with env added to the
// environment, and returns its exit code and output.
func kpatchStatus(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"status"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// webhookReport is the PolicyReport the webhook writes in ns after a
// scan that finds Deployment web stale for file reg/app.kpatch.
func webhookReport(t *testing.T, ns string) map[string]any {
	t.Helper()
	web := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"namespace": ns, "name": "web", "uid": "uid-web"}}
	sc := &drift.Scanner{
		Lister: listerFunc(func() drift.Page { return drift.Page{Objects: []map[string]any{web}} }),
		Admitter: drift.AdmitterFunc(func(context.Context, drift.Kind, map[string]any) (drift.Admission, error) {
			return drift.Admission{Files: []drift.FileChange{{File: "reg/app.kpatch", Fields: []string{"/spec/replicas"}, Reconcile: true}}}, nil
		}),
		Kinds:      []drift.Kind{{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"}},
		Namespaces: []string{ns}, Version: "0123456789ab",
	}
	report, err := sc.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return drift.PolicyReport(report, ns, 0)
}

// contextKubeconfig is the cluster's kubeconfig with one more context,
// status, of the same cluster and user and of namespace ns.
func contextKubeconfig(t *testing.T, ns string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	current := *cfg.Contexts[cfg.CurrentContext]
	current.Namespace = ns
	cfg.Contexts["status"] = &current
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// listerFunc lists one page.
type listerFunc func() drift.Page

func (f listerFunc) List(context.Context, drift.Kind, string, int64, string) (drift.Page, error) {
	return f(), nil
}

// TestStatusReadsTheClusterAsKubectlDoes: kpatch status, run as a user
// runs it with the kubeconfig of the cluster, says when the cluster
// serves no PolicyReports, prints the stale objects of the report the
// webhook writes in a namespace (text and -o json; -n, $KUBECONFIG, the
// namespace of --context's context, -A), says when a namespace
// has none, and with --scan finds a Deployment created before the file
// that would change it, without a report.
func TestStatusReadsTheClusterAsKubectlDoes(t *testing.T) {
	ctx := context.Background()
	bin := buildKpatch(t)
	kubeconfig := []string{"--kubeconfig", env.Kubeconfig}
	crd := policyReportCRD()
	// a CRD another test deleted may still be going: wait until it is
	// gone or stays
	var err error
	eventually(t, time.Minute, func() error {
		got := crd.DeepCopy()
		if err = env.Client.Get(ctx, client.ObjectKeyFromObject(crd), got); err == nil && got.GetDeletionTimestamp() != nil {
			return errors.New("the PolicyReport CRD is being deleted")
		}
		return nil
	})
	if apierrors.IsNotFound(err) {
		code, _, stderr := kpatchStatus(t, bin, nil, append(kubeconfig, "-n", "default")...)
		if code != 1 || !strings.Contains(stderr, "the cluster serves no PolicyReports") || !strings.Contains(stderr, "--scan") {
			t.Errorf("without the CRD: exit %d, %s", code, stderr)
		}
		if err := env.Client.Create(ctx, crd); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, crd) })
	}

	const reported = "status-reported"
	namespace(t, reported, false)
	report := &unstructured.Unstructured{Object: webhookReport(t, reported)}
	eventually(t, 30*time.Second, func() error { return env.Client.Create(ctx, report.DeepCopy()) }) // once the CRD is established
	code, stdout, stderr := kpatchStatus(t, bin, []string{"KUBECONFIG=" + env.Kubeconfig}, "-n", reported)
	if want := "status-reported: 1 stale object (report, registry version 0123456789ab, scan of "; code != 0 || !strings.HasPrefix(stdout, want) ||
		!strings.Contains(stdout, "\n  Deployment web (apps/v1)\n    reg/app.kpatch: /spec/replicas (reconcile)\n") {
		t.Errorf("-n %s with $KUBECONFIG: exit %d, stdout %q, stderr %q", reported, code, stdout, stderr)
	}
	code, stdout, stderr = kpatchStatus(t, bin, nil, append(kubeconfig, "-n", reported, "-o", "json")...)
	var st status.Status
	if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil || len(st.Namespaces) != 1 || len(st.Namespaces[0].Objects) != 1 {
		t.Fatalf("-o json: exit %d, %v, stdout %q, stderr %q", code, err, stdout, stderr)
	}
	if o := st.Namespaces[0].Objects[0]; o.Kind != "Deployment" || o.Name != "web" || len(o.Files) != 1 || o.Files[0].File != "reg/app.kpatch" ||
		strings.Join(o.Files[0].Fields, ",") != "/spec/replicas" || !o.Files[0].Reconcilable || st.Namespaces[0].Source != status.SourceReport {
		t.Errorf("-o json: %+v", st.Namespaces[0])
	}
	code, stdout, stderr = kpatchStatus(t, bin, nil, "--kubeconfig", contextKubeconfig(t, reported), "--context", "status")
	if code != 0 || !strings.HasPrefix(stdout, reported+": 1 stale object") {
		t.Errorf("--context, whose namespace is %s: exit %d, stdout %q, stderr %q", reported, code, stdout, stderr)
	}
	code, stdout, stderr = kpatchStatus(t, bin, nil, append(kubeconfig, "-A")...)
	if code != 0 || !strings.Contains(stdout, reported+": 1 stale object") {
		t.Errorf("-A: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = kpatchStatus(t, bin, nil, append(kubeconfig, "-n", "default")...)
	if code != 1 || !strings.Contains(stderr, `namespace "default" has no drift report`) {
		t.Errorf("a namespace without a report: exit %d, %s", code, stderr)
	}

	const scanned = "status-scanned"
	namespace(t, scanned, false)
	for _, name := range []string{"stale", "other"} {
		if err := env.Client.Create(ctx, deployment(scanned, name)); err != nil {
			t.Fatal(err)
		}
	}
	registry(t, "status-scan", map[string]string{"stale.kpatch": "[deployment.stale]\nreplicas: 3\n"}) // after the Deployment
	t.Cleanup(func() {
		_ = env.Client.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "status-scan", Namespace: cluster.RegistryNamespace}})
	})
	code, stdout, stderr = kpatchStatus(t, bin, nil, append(kubeconfig, "--scan", "-n", scanned, "-o", "json")...)
	st = status.Status{}
	if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil || len(st.Namespaces) != 1 {
		t.Fatalf("--scan: exit %d, %v, stdout %q, stderr %q", code, err, stdout, stderr)
	}
	var found []string
	for _, o := range st.Namespaces[0].Objects {
		for _, f := range o.Files {
			found = append(found, o.Kind+" "+o.Name+" "+f.File+" "+strings.Join(f.Fields, ","))
		}
	}
	if want := "Deployment stale status-scan/stale.kpatch /spec/replicas"; len(found) != 1 || found[0] != want || st.Namespaces[0].Source != status.SourceScan {
		t.Errorf("--scan found %q (source %s), want %q; stderr %q", found, st.Namespaces[0].Source, want, stderr)
	}
	code, stdout, _ = kpatchStatus(t, bin, nil, append(kubeconfig, "--scan", "-n", scanned)...)
	if want := "  Deployment stale (apps/v1)\n    status-scan/stale.kpatch: /spec/replicas\n"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("--scan text: exit %d, %q, want %q", code, stdout, want)
	}
}
