package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/condition"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// tenantConfigMap is a registry ConfigMap of namespace ns.
func tenantConfigMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	cm := registryConfigMap(name, data)
	cm.Namespace = ns
	return cm
}

// labelOf applies the registry's patches of Deployment to a Deployment web
// of namespace ns and returns its label "by", "-" when none.
func labelOf(t *testing.T, reg *registry.Registry, ns string) string {
	t.Helper()
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": ns}}
	run, err := apply.RunObject(context.Background(), obj, reg.Candidates("Deployment", ns, "web"), &apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: ns}})
	if err != nil {
		t.Fatal(err)
	}
	if failed := run.Failed(); len(failed) > 0 {
		t.Fatal(failed[0].Err)
	}
	obj = run.Out
	md := obj["metadata"].(map[string]any)
	if l, ok := md["labels"].(map[string]any); ok {
		return l["by"].(string)
	}
	return "-"
}

// markedNamespace is a Namespace the cluster admin marked as a tenant.
func markedNamespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{informed.TenantLabel: informed.TenantEnabled}}}
}

// tenantWatcher is a leader's watcher of objs with tenant registries,
// synced once; the namespaces of objs' ConfigMaps are marked as tenants.
func tenantWatcher(t *testing.T, objs ...runtime.Object) (*Watcher, *eventLog) {
	t.Helper()
	marked := map[string]bool{}
	for _, o := range objs {
		if cm, ok := o.(*corev1.ConfigMap); ok && cm.Namespace != "kpatch-system" && !marked[cm.Namespace] {
			marked[cm.Namespace] = true
			objs = append(objs, markedNamespace(cm.Namespace))
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithRuntimeObjects(objs...).Build()
	w, events := replica(c, true)
	w.TenantRegistries = true
	syncOnce(t, w)
	return w, events
}

// TestTenantPatchesItsOwnNamespaceOnly: a tenant's file without a
// namespace patches the objects of its ConfigMap's namespace, never
// another's; the admin's file applies after it and wins.
func TestTenantPatchesItsOwnNamespaceOnly(t *testing.T) {
	w, events := tenantWatcher(t,
		tenantConfigMap("team-a", "mine", map[string]string{"t.kpatch": "[deployment.*]\nlabels.by: team-a\n"}),
		registryConfigMap("admin", map[string]string{"a.kpatch": "[admin-wins/deployment.*]\nlabels.by: admin\n"}),
	)
	reg := w.Current()
	if got := labelOf(t, reg, "team-a"); got != "team-a" {
		t.Errorf("team-a's Deployment: label by=%s, want team-a", got)
	}
	for _, ns := range []string{"team-b", "kpatch-system", ""} {
		if got := labelOf(t, reg, ns); got != "-" {
			t.Errorf("namespace %q: a tenant's file patched it (by=%s)", ns, got)
		}
	}
	var order []string
	for _, f := range reg.Applied() {
		order = append(order, f.Ref.String())
	}
	if got := strings.Join(order, ","); got != "team-a/mine/t.kpatch,admin/a.kpatch" {
		t.Errorf("registry order %s: tenants first, then the registry namespace", got)
	}
	if ev := events.take(); len(ev) != 0 {
		t.Errorf("events %+v", ev)
	}
}

// TestAdminHasTheLastWord: on an object of a tenant's namespace, the
// admin's file applies after the tenant's.
func TestAdminHasTheLastWord(t *testing.T) {
	w, _ := tenantWatcher(t,
		tenantConfigMap("team-a", "mine", map[string]string{"t.kpatch": "[deployment.*]\nlabels.by: team-a\n"}),
		registryConfigMap("admin", map[string]string{"a.kpatch": "[team-a/deployment.*]\nlabels.by: admin\n"}),
	)
	if got := labelOf(t, w.Current(), "team-a"); got != "admin" {
		t.Errorf("label by=%s, want admin", got)
	}
}

// TestTenantNamingAnotherNamespaceDoesNotCompile: the file is refused with
// its position, and the leader records the error on the tenant's
// ConfigMap.
func TestTenantNamingAnotherNamespaceDoesNotCompile(t *testing.T) {
	w, events := tenantWatcher(t,
		tenantConfigMap("team-a", "mine", map[string]string{
			"own.kpatch":   "[team-a/deployment.*]\nlabels.by: team-a\n",
			"other.kpatch": "[deployment.x]\nlabels.a: b\n\n[team-b/deployment.*]\nlabels.by: team-a\n",
			"glob.yaml":    "- target: team-*/deployment.*\n  patch: {labels.by: team-a}\n",
		}),
	)
	var refused []string
	for _, f := range w.Current().Files() {
		if f.Err != nil {
			if !errors.Is(f.Err, registry.ErrTenantNamespace) {
				t.Errorf("%s: %v, not ErrTenantNamespace", f.Ref, f.Err)
			}
			refused = append(refused, f.Ref.Key)
		}
	}
	if strings.Join(refused, ",") != "glob.yaml,other.kpatch" {
		t.Errorf("refused %v", refused)
	}
	ev := events.take()
	if len(ev) != 1 || ev[0].regarding != "team-a/mine" || ev[0].reason != ReasonPatchCompileFailed ||
		!strings.Contains(ev[0].note, `team-a/mine/other.kpatch:4:1: the target names namespace "team-b"`) {
		t.Errorf("events %+v", ev)
	}
	if got := labelOf(t, w.Current(), "team-a"); got != "team-a" {
		t.Errorf("the tenant's valid file: by=%s", got)
	}
}

// costlyFile is a tenant's file whose condition would build a string of
// its annotation's size squared: refused when it compiles.
const costlyFile = "[team-a/deployment.*]\n# kpatch:when: object.metadata.annotations['a'].replace('a', object.metadata.annotations['a']).size() > 0\nlabels.by: costly\n"

// TestTenantCostlyConditionDoesNotCompile: a condition whose worst-case
// cost exceeds the per-call limit is a compile error, recorded on its
// ConfigMap as an Event; the tenant's other files apply.
func TestTenantCostlyConditionDoesNotCompile(t *testing.T) {
	w, events := tenantWatcher(t, tenantConfigMap("team-a", "mine", map[string]string{
		"own.kpatch":    "[team-a/deployment.*]\nlabels.by: team-a\n",
		"costly.kpatch": costlyFile,
	}))
	for _, f := range w.Current().Files() {
		if (f.Err != nil) != (f.Ref.Key == "costly.kpatch") || f.Err != nil && !errors.Is(f.Err, condition.ErrInvalid) {
			t.Errorf("%s: %v", f.Ref, f.Err)
		}
	}
	ev := events.take()
	if len(ev) != 1 || ev[0].regarding != "team-a/mine" || ev[0].reason != ReasonPatchCompileFailed ||
		!strings.Contains(ev[0].note, "team-a/mine/costly.kpatch:2:49: when: estimated worst-case cost ") ||
		!strings.Contains(ev[0].note, " exceeds the per-call limit 1000000 (") {
		t.Errorf("events %+v", ev)
	}
	if got := labelOf(t, w.Current(), "team-a"); got != "team-a" {
		t.Errorf("the tenant's valid file: by=%s", got)
	}
}

// TestTenantFilesAreNotStoredNorCrowdTheAdminOut: tenants' files have no
// last good version; each tenant has limits of its own, apart from the
// admin's and the other tenants': a tenant over its limit is refused
// alone, with an Event on its ConfigMap.
func TestTenantFilesAreNotStoredNorCrowdTheAdminOut(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		markedNamespace("aaa"), markedNamespace("bbb"),
		tenantConfigMap("aaa", "first", map[string]string{"t.kpatch": "[deployment.*]\nlabels.by: aaa\n", "u.kpatch": "[deployment.*]\nlabels.too: many\n"}),
		tenantConfigMap("bbb", "second", map[string]string{"t.kpatch": "[deployment.*]\nlabels.by: bbb\n"}),
		registryConfigMap("zzz", map[string]string{"a.kpatch": "[deployment.*]\nlabels.by: admin\n"}),
	).Build()
	w, events := replica(c, true)
	w.TenantRegistries, w.Limits = true, registry.Limits{MaxFiles: 1}
	w.Tenancy.Limits = registry.Limits{MaxFiles: 1}
	syncOnce(t, w)
	for _, f := range w.Current().Files() {
		refused := f.Ref.String() == "aaa/first/u.kpatch"
		if (f.Err != nil) != refused || refused && !errors.Is(f.Err, registry.ErrTenantTooManyFiles) {
			t.Errorf("%s: %v; aaa's second file alone should be refused, by its tenant's limit", f.Ref, f.Err)
		}
	}
	ev := events.take()
	if len(ev) != 1 || ev[0].regarding != "aaa/first" || ev[0].reason != ReasonRegistryLimitExceeded || !strings.Contains(ev[0].note, "--max-tenant-files") {
		t.Errorf("events %+v: want one RegistryLimitExceeded on aaa/first", ev)
	}
	if got := labelOf(t, w.Current(), "bbb"); got != "admin" {
		t.Errorf("bbb's Deployment: by=%s", got)
	}
	w.Limits = registry.Limits{}
	syncOnce(t, w)
	if data := storeConfigMap(t, c).Data; len(data) != 3 || data["zzz_a.kpatch"] == "" {
		t.Errorf("the store holds %v: the admin's file only", keys(data))
	}
}

// TestUnmarkedNamespaceIsNoTenant: with TenantRegistries, the registry
// ConfigMaps of a namespace the cluster admin did not mark patch nothing;
// marking it makes them a tenant registry, and removing the mark drops
// it again.
func TestUnmarkedNamespaceIsNoTenant(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{informed.TenantLabel: "yes"}}}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(ns,
		tenantConfigMap("team-a", "mine", map[string]string{"t.kpatch": "[deployment.*]\nlabels.by: team-a\n"}),
	).Build()
	w, _ := replica(c, true)
	w.TenantRegistries = true
	for _, value := range []string{"yes", informed.TenantEnabled, ""} {
		ns.Labels[informed.TenantLabel] = value
		if err := c.Update(context.Background(), ns); err != nil {
			t.Fatal(err)
		}
		syncOnce(t, w)
		want := "-"
		if value == informed.TenantEnabled {
			want = "team-a"
		}
		if got := labelOf(t, w.Current(), "team-a"); got != want {
			t.Errorf("label %s=%q: by=%s, want %s", informed.TenantLabel, value, got, want)
		}
	}
}

// TestTenantsOffByDefault: without TenantRegistries, another namespace's
// ConfigMaps are not read.
func TestTenantsOffByDefault(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		tenantConfigMap("team-a", "mine", map[string]string{"t.kpatch": "[deployment.*]\nlabels.by: team-a\n"}),
	).Build()
	w, _ := replica(c, true)
	if err := w.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(w.Current().Files()); n != 0 {
		t.Errorf("%d files: a tenant's ConfigMap was read", n)
	}
}

// TestTenantMetadataNamesItsOwnFiles: the requires: and conflicts: of a
// tenant's file name the files of its own namespace only, and an admin's
// file those of the registry namespace: a tenant cannot refuse an admin's
// file (nor another tenant's) by declaring a conflict with it, nor apply
// after an admin's file by requiring it.
func TestTenantMetadataNamesItsOwnFiles(t *testing.T) {
	cms := []corev1.ConfigMap{
		configMap("patches", map[string]string{"base.kpatch": "[deployment.*]\nlabels.by: admin\n"}),
		*tenantConfigMap("team-a", "patches", map[string]string{
			"mine.kpatch":  "# kpatch:conflicts: base\n[deployment.*]\nlabels.by: team-a\n",
			"after.kpatch": "# kpatch:requires: base\n[deployment.*]\nlabels.after: admin\n",
		}),
		*tenantConfigMap("team-b", "patches", map[string]string{"theirs.kpatch": "# kpatch:conflicts: mine\n[deployment.*]\nlabels.by: team-b\n"}),
	}
	reg := (&registry.Compiler{RegistryNamespace: "kpatch-system"}).Build(cms, nil).Registry
	got := map[string]string{}
	for _, f := range reg.Files() {
		got[f.Ref.String()] = fmt.Sprint(f.Err)
	}
	want := map[string]string{
		"patches/base.kpatch":          "<nil>",
		"team-a/patches/mine.kpatch":   "<nil>",
		"team-a/patches/after.kpatch":  "team-a/patches/after.kpatch:1:20: requires base, which names no patch file",
		"team-b/patches/theirs.kpatch": "<nil>",
	}
	for ref, w := range want {
		if got[ref] != w {
			t.Errorf("%s: error %s, want %s", ref, got[ref], w)
		}
	}
	if order := appliedNames(reg); order != "team-a/patches/mine.kpatch,team-b/patches/theirs.kpatch,patches/base.kpatch" {
		t.Errorf("applied in order %s: tenants first, the admin last", order)
	}
}

func appliedNames(reg *registry.Registry) string {
	var out []string
	for _, f := range reg.Applied() {
		out = append(out, f.Ref.String())
	}
	return strings.Join(out, ",")
}

// TestTenantReplacementsPatchItsOwnNamespaceOnly: a tenant's
// replacements file targets the objects of its own namespace only, as
// its patch files do.
func TestTenantReplacementsPatchItsOwnNamespaceOnly(t *testing.T) {
	repl := "replacements:\n- sourceValue: team-a\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.by]\n    options: {create: true}\n"
	foreign := "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: Deployment, namespace: team-.*}\n    fieldPaths: [metadata.labels.by]\n"
	reg := (&registry.Compiler{RegistryNamespace: "kpatch-system"}).Build([]corev1.ConfigMap{
		*tenantConfigMap("team-a", "mine", map[string]string{"r.yaml": repl, "s.yaml": foreign}),
	}, nil).Registry
	for _, f := range reg.Files() {
		want := f.Ref.Key == "s.yaml"
		if got := errors.Is(f.Err, registry.ErrTenantNamespace); got != want || want && !strings.HasPrefix(f.Err.Error(), `team-a/mine/s.yaml:4:5: the target's select names namespace "team-.*"`) {
			t.Errorf("%s: error %v", f.Ref, f.Err)
		}
	}
	h := &Handler{Registry: func() *registry.Registry { return reg }, RegistryNamespace: "kpatch-system", Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
	for ns, want := range map[string]int{"team-a": 1, "team-b": 0} {
		obj := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"` + ns + `"}}`
		if got := len(patchOf(t, h.Handle(context.Background(), request(admissionv1.Create, ns, obj)))); got != want {
			t.Errorf("namespace %s: %d operations, want %d", ns, got, want)
		}
	}
}

// TestTenantReplacementsReadTheirOwnSources: a tenant's replacements file
// reads the source ConfigMaps of its own namespace, never the registry
// namespace's (admin data); an admin file still falls back to them.
func TestTenantReplacementsReadTheirOwnSources(t *testing.T) {
	repl := "replacements:\n- source: {kind: ConfigMap, name: settings, fieldPath: data.region}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.region]\n    options: {create: true}\n"
	admin := registryConfigMap("admin", map[string]string{"a.yaml": strings.Replace(repl, "labels.region", "labels.adminregion", 1)})
	reg := (&registry.Compiler{RegistryNamespace: "kpatch-system"}).Build([]corev1.ConfigMap{
		*admin, *tenantConfigMap("team-a", "mine", map[string]string{"r.yaml": repl}),
	}, nil).Registry
	var s informed.SourceConfigMaps
	s.OnAdd(sourceCM("kpatch-system", "admin-secret-region"), true)
	h := &Handler{Registry: func() *registry.Registry { return reg }, RegistryNamespace: "kpatch-system", Sources: &s, Metrics: metrics.NewMetrics(prometheus.NewRegistry())}
	obj := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"team-a"}}`
	resp := h.Handle(context.Background(), request(admissionv1.Create, "team-a", obj))
	ops := fmt.Sprint(patchOf(t, resp))
	if ops != "[{add /metadata/labels map[adminregion:admin-secret-region]}]" {
		t.Errorf("operations %s", ops)
	}
	if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "team-a/mine/r.yaml") {
		t.Errorf("warnings %q: want the tenant's unresolved source", resp.Warnings)
	}
}

// TestTenantFileReadsItemsAndCEL: a tenant's file reads ${item}, a
// per-item condition and a CEL value as the registry namespace's files
// do, on the objects of its own namespace.
func TestTenantFileReadsItemsAndCEL(t *testing.T) {
	w, events := tenantWatcher(t, tenantConfigMap("team-a", "mine", map[string]string{"t.kpatch": "[deployment.*]\nlabels.by: ${cel: object.metadata.namespace}\n\n" +
		"[deployment.*.containers.*]\n# kpatch:when: item.name != 'skip'\nworkingDir: /srv/${item.name}\n"}))
	reg := w.Current()
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "team-a"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "app:1"}, map[string]any{"name": "skip", "image": "skip:1"}}}}}}
	run, err := apply.RunObject(context.Background(), obj, reg.Candidates("Deployment", "team-a", "web"), &apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: "team-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if failed := run.Failed(); len(failed) > 0 {
		t.Fatal(failed[0].Err)
	}
	md := run.Out["metadata"].(map[string]any)
	if by, _ := md["labels"].(map[string]any)["by"].(string); by != "team-a" {
		t.Errorf("label by=%q, want team-a (the CEL value)", by)
	}
	containers := run.Out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	if got := containers[0].(map[string]any)["workingDir"]; got != "/srv/app" {
		t.Errorf("container app: workingDir %v, want /srv/app", got)
	}
	if got, ok := containers[1].(map[string]any)["workingDir"]; ok {
		t.Errorf("container skip: workingDir %v, want none (its condition does not hold)", got)
	}
	if ev := events.take(); len(ev) != 0 {
		t.Errorf("events %+v", ev)
	}
}
