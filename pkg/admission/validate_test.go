package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// validator is the validator of a watcher synced once with objs.
func validator(t *testing.T, tenants bool, limits registry.Limits, objs ...runtime.Object) *RegistryValidator {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithRuntimeObjects(objs...).Build()
	w, _ := replica(c, true)
	w.TenantRegistries, w.Limits = tenants, limits
	syncOnce(t, w)
	return NewRegistryValidator(w)
}

// editReview is the request of an edit of cm.
func editReview(t *testing.T, op admissionv1.Operation, cm *corev1.ConfigMap) admission.Request {
	t.Helper()
	raw, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	req := admission.Request{}
	req.UID, req.Operation, req.Namespace, req.Name = "uid", op, cm.Namespace, cm.Name
	req.Object.Raw = raw
	return req
}

// check validates an edit and returns whether it is allowed, the denial's
// message and the warnings.
func check(t *testing.T, v *RegistryValidator, op admissionv1.Operation, cm *corev1.ConfigMap) (bool, string, []string) {
	t.Helper()
	resp := v.Handle(context.Background(), editReview(t, op, cm))
	msg := ""
	if resp.Result != nil {
		msg = resp.Result.Message
	}
	if !resp.Allowed && resp.Result.Code != http.StatusUnprocessableEntity {
		t.Errorf("denied with code %d, want 422: %s", resp.Result.Code, msg)
	}
	for _, w := range resp.Warnings {
		if strings.ContainsAny(w, "\n\r\t") {
			t.Errorf("warning with a control character, which the API server drops: %q", w)
		}
	}
	return resp.Allowed, msg, resp.Warnings
}

func TestValidateRefusesAFileThatDoesNotCompile(t *testing.T) {
	v := validator(t, false, registry.Limits{}, registryConfigMap("good", map[string]string{"f.kpatch": goodFile}))
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		cm := registryConfigMap("edited", map[string]string{"ok.kpatch": goodFile3, "scale.kpatch": "[deployment.web]\nreplcas: 3\n"})
		allowed, msg, _ := check(t, v, op, cm)
		if allowed || !strings.Contains(msg, "edited/scale.kpatch:2:1: ") || strings.Contains(msg, "ok.kpatch") {
			t.Errorf("%s: allowed %v, message %q; want refused at edited/scale.kpatch:2:1", op, allowed, msg)
		}
		// the same content as lint's error, position first, one a line
		if !strings.HasPrefix(msg, "kpatch: edited/scale.kpatch:2:1: ") || !strings.Contains(msg, "did you mean replicas?") {
			t.Errorf("%s: message %q", op, msg)
		}
	}
	// every error of the ConfigMap, each on a line of its own
	cm := registryConfigMap("edited", map[string]string{"a.kpatch": brokenFile, "b.kpatch": "nonsense\n"})
	if allowed, msg, _ := check(t, v, admissionv1.Create, cm); allowed || !strings.Contains(msg, "edited/a.kpatch:1:1") || !strings.Contains(msg, "\nedited/b.kpatch:1:1") {
		t.Errorf("two broken files: allowed %v, message %q", allowed, msg)
	}
}

// TestValidateRefusesACostlyCondition: an edit whose condition's
// worst-case cost exceeds the per-call limit is refused at the condition,
// with the estimate and the limit.
func TestValidateRefusesACostlyCondition(t *testing.T) {
	v := validator(t, true, registry.Limits{}, markedNamespace("team-a"))
	allowed, msg, _ := check(t, v, admissionv1.Create, tenantConfigMap("team-a", "mine", map[string]string{"costly.kpatch": costlyFile}))
	if allowed || !strings.HasPrefix(msg, "kpatch: team-a/mine/costly.kpatch:2:49: when: estimated worst-case cost ") ||
		!strings.Contains(msg, " exceeds the per-call limit 1000000 (") || !strings.Contains(msg, " of it in replace())") {
		t.Errorf("allowed %v, message %q", allowed, msg)
	}
}

func TestValidateAcceptsAGoodEditAndWhatIsNotARegistryConfigMap(t *testing.T) {
	v := validator(t, false, registry.Limits{}, registryConfigMap("good", map[string]string{"f.kpatch": goodFile}))
	if allowed, msg, warns := check(t, v, admissionv1.Update, registryConfigMap("good", map[string]string{"f.kpatch": goodFile3})); !allowed || len(warns) != 0 {
		t.Errorf("a good edit: allowed %v (%s), warnings %v", allowed, msg, warns)
	}
	// the label removed, another namespace without tenants, a DELETE
	unlabelled := registryConfigMap("good", map[string]string{"f.kpatch": brokenFile})
	unlabelled.Labels = nil
	elsewhere := tenantConfigMap("shop", "t", map[string]string{"f.kpatch": brokenFile})
	for name, cm := range map[string]*corev1.ConfigMap{"unlabelled": unlabelled, "other namespace": elsewhere} {
		if allowed, msg, _ := check(t, v, admissionv1.Update, cm); !allowed {
			t.Errorf("%s: refused: %s", name, msg)
		}
	}
	if allowed, msg, _ := check(t, v, admissionv1.Delete, registryConfigMap("good", map[string]string{"f.kpatch": brokenFile})); !allowed {
		t.Errorf("a DELETE was checked: %s", msg)
	}
}

func TestValidateRefusesAnEditBeyondALimit(t *testing.T) {
	limits := registry.Limits{MaxFiles: 3, MaxFileSize: 100}
	v := validator(t, false, limits, registryConfigMap("b", map[string]string{"f.kpatch": goodFile, "g.kpatch": goodFile3}))
	large := "[deployment.web]\n" + strings.Repeat("labels.a: b\n", 10)
	if allowed, msg, _ := check(t, v, admissionv1.Create, registryConfigMap("z", map[string]string{"large.kpatch": large})); allowed || !strings.Contains(msg, "z/large.kpatch: the file is larger than a registry file may be") {
		t.Errorf("a file too large: allowed %v, message %q", allowed, msg)
	}
	// z's second file is past the third: refused, with the limit named
	if allowed, msg, _ := check(t, v, admissionv1.Create, registryConfigMap("z", map[string]string{"a.kpatch": goodFile, "b.kpatch": goodFile})); allowed || !strings.Contains(msg, "z/b.kpatch: the registry holds more files than it may") {
		t.Errorf("a file past --max-registry-files: allowed %v, message %q", allowed, msg)
	}
	// a, before b in limit order, pushes b's files out: they apply now
	allowed, msg, _ := check(t, v, admissionv1.Create, registryConfigMap("a", map[string]string{"a.kpatch": goodFile, "b.kpatch": goodFile}))
	if allowed || !strings.Contains(msg, "b/g.kpatch: the registry holds more files than it may") || !strings.Contains(msg, "with this edit it would not") {
		t.Errorf("pushing another ConfigMap's file out: allowed %v, message %q", allowed, msg)
	}
}

func TestValidateMetadata(t *testing.T) {
	v := validator(t, false, registry.Limits{}, registryConfigMap("base", map[string]string{
		"common.kpatch": "[deployment.web]\nlabels.common: a\n",
	}))
	// a requirement the registry does not hold: a warning, the next
	// ConfigMap may bring it
	allowed, msg, warns := check(t, v, admissionv1.Create, registryConfigMap("team", map[string]string{
		"needs.kpatch": "# kpatch:requires: later/thing\n[deployment.web]\nlabels.needs: a\n",
	}))
	if !allowed || len(warns) != 1 || !strings.Contains(warns[0], "team/needs.kpatch:1:20: warning: requires later/thing, which names no patch file") {
		t.Errorf("a requirement not held: allowed %v (%s), warnings %q", allowed, msg, warns)
	}
	// a conflict with a file the registry applies: refused
	allowed, msg, _ = check(t, v, admissionv1.Create, registryConfigMap("team", map[string]string{
		"mine.kpatch": "# kpatch:conflicts: base/common\n[deployment.web]\nlabels.mine: a\n",
	}))
	if allowed || !strings.Contains(msg, "team/mine.kpatch:1:") {
		t.Errorf("conflicts: with an enabled file: allowed %v, message %q", allowed, msg)
	}
	// a cycle within the ConfigMap: refused
	allowed, msg, _ = check(t, v, admissionv1.Create, registryConfigMap("team", map[string]string{
		"a.kpatch": "# kpatch:requires: b\n[deployment.web]\nlabels.a: a\n",
		"b.kpatch": "# kpatch:requires: a\n[deployment.web]\nlabels.b: b\n",
	}))
	if allowed || !strings.Contains(msg, "requires form a cycle") {
		t.Errorf("a cycle: allowed %v, message %q", allowed, msg)
	}
}

func TestValidateWarnsOfConflictsAndNonIdempotentConstructs(t *testing.T) {
	v := validator(t, false, registry.Limits{}, registryConfigMap("a", map[string]string{"f.kpatch": goodFile}))
	allowed, msg, warns := check(t, v, admissionv1.Create, registryConfigMap("b", map[string]string{
		"f.kpatch":   goodFile3,
		"del.kpatch": "[deployment.web.containers.name=app]\nargs.0[delete]:\n",
	}))
	if !allowed {
		t.Fatalf("refused: %s", msg)
	}
	text := strings.Join(warns, "\n")
	if !strings.Contains(text, "spec.replicas: set by 2 files (a/f.kpatch:2:1, b/f.kpatch:2:1 to 3); b/f.kpatch:2:1 wins") {
		t.Errorf("no warning of the contested field: %q", warns)
	}
	if !strings.Contains(text, "b/del.kpatch:2:6: warning: not idempotent") {
		t.Errorf("no warning of the delete by index: %q", warns)
	}
	// a ConfigMap that writes no contested field is not told of others'
	if _, _, warns := check(t, v, admissionv1.Create, registryConfigMap("c", map[string]string{"g.kpatch": "[pod.*]\nlabels.x: y\n"})); len(warns) != 0 {
		t.Errorf("warnings of other files: %q", warns)
	}
}

// TestValidateConflictsShowTheEditsValuesOnly: the warning of a contested
// field names every file that writes it, but shows the values of the
// edited ConfigMap's files only, whoever applies last: a review made up
// to claim a tenant's namespace (or a user who may create ConfigMaps
// there, not read them) learns where the tenant's files are, not what
// they hold.
func TestValidateConflictWarningsShowTheEditsValuesOnly(t *testing.T) {
	v := validator(t, true, registry.Limits{},
		tenantConfigMap("shop", "a-theirs", map[string]string{"secret.kpatch": "[deployment.web]\nreplicas: 41\nlabels.tier: gold-secret\n"}),
		tenantConfigMap("shop", "z-theirs", map[string]string{"later.kpatch": "[deployment.web]\nreplicas: 43\n"}),
		markedNamespace("shop"))
	allowed, msg, warns := check(t, v, admissionv1.Create, tenantConfigMap("shop", "m-forged", map[string]string{"probe.kpatch": "[deployment.web]\nreplicas: 2\nlabels.tier: probe\n"}))
	text := strings.Join(warns, "\n")
	if !allowed {
		t.Fatalf("refused: %s", msg)
	}
	for _, want := range []string{"shop/a-theirs/secret.kpatch:2:1, shop/m-forged/probe.kpatch:2:1 to 2, shop/z-theirs/later.kpatch:2:1); shop/z-theirs/later.kpatch:2:1 wins (applies last)",
		"labels.tier: set by 2 files (shop/a-theirs/secret.kpatch:3:1, shop/m-forged/probe.kpatch:3:1 to \"probe\"); shop/m-forged/probe.kpatch:3:1 wins (applies last, \"probe\")"} {
		if !strings.Contains(text, want) {
			t.Errorf("no warning %q in %q", want, warns)
		}
	}
	for _, secret := range []string{"41", "43", "gold-secret"} {
		if strings.Contains(text, secret) {
			t.Errorf("the warnings show %q, a value of another ConfigMap's file: %q", secret, warns)
		}
	}
}

func TestValidateTenantSeesItsOwnNamespaceOnly(t *testing.T) {
	limits := registry.Limits{MaxFiles: 3}
	v := validator(t, true, limits,
		registryConfigMap("admin", map[string]string{"f.kpatch": goodFile}),
		tenantConfigMap("zz-other", "secret-name", map[string]string{"secret-key.kpatch": goodFile, "more.kpatch": goodFile}),
		markedNamespace("shop"), markedNamespace("zz-other"))
	// a tenant naming another namespace does not compile
	allowed, msg, _ := check(t, v, admissionv1.Create, tenantConfigMap("shop", "reg", map[string]string{"f.kpatch": "[other/deployment.web]\nreplicas: 2\n"}))
	if allowed || !strings.Contains(msg, "shop/reg/f.kpatch:1:1: the target names namespace \"other\"") {
		t.Errorf("a tenant's file naming another namespace: allowed %v, message %q", allowed, msg)
	}
	// a labelled ConfigMap of a namespace not marked is no registry: not
	// checked, whatever it holds
	if allowed, msg, _ := check(t, v, admissionv1.Create, tenantConfigMap("unmarked", "reg", map[string]string{"f.kpatch": brokenFile})); !allowed {
		t.Errorf("a ConfigMap of an unmarked namespace was checked: %s", msg)
	}
	// each tenant has a budget of its own (registry.Tenancy.Limits): shop's
	// file cannot push zz-other's out, and the answer names none of them
	allowed, msg, warns := check(t, v, admissionv1.Create, tenantConfigMap("shop", "reg", map[string]string{"f.kpatch": goodFile}))
	if !allowed || strings.Contains(msg+strings.Join(warns, "\n"), "secret") {
		t.Errorf("a tenant beside another: allowed %v, message %q, warnings %q", allowed, msg, warns)
	}
}

func TestValidateNotCheckedIsAdmittedWithAWarning(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()
	w, _ := replica(c, true)
	v := NewRegistryValidator(w) // never synced
	allowed, _, warns := check(t, v, admissionv1.Create, registryConfigMap("x", map[string]string{"f.kpatch": brokenFile}))
	if !allowed || len(warns) != 1 || !strings.Contains(warns[0], "not checked: the registry has not synced yet") {
		t.Errorf("before the first sync: allowed %v, warnings %q", allowed, warns)
	}
	syncOnce(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp := v.Handle(ctx, editReview(t, admissionv1.Create, registryConfigMap("x", map[string]string{"f.kpatch": brokenFile})))
	if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "context canceled") {
		t.Errorf("a request whose context ended: %+v", resp)
	}
}

func TestValidateLeavesTheWatcherAsItWas(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(registryConfigMap("reg", map[string]string{"f.kpatch": goodFile})).Build()
	w, events := replica(c, true)
	syncOnce(t, w)
	events.take()
	v := NewRegistryValidator(w)
	if allowed, _, _ := check(t, v, admissionv1.Update, registryConfigMap("reg", map[string]string{"f.kpatch": brokenFile})); allowed {
		t.Fatal("a broken edit allowed")
	}
	if got := replicas(t, w.Current()); got != "2" {
		t.Errorf("the registry in force changed: replicas %s", got)
	}
	// the edit, stored anyway (the webhook was down), is reported as
	// before: the validation did not make the watcher see it
	edit(t, c, "reg", map[string]string{"f.kpatch": brokenFile})
	syncOnce(t, w)
	if ev := events.take(); len(ev) != 1 || ev[0].reason != ReasonPatchCompileFailed {
		t.Errorf("Events after the broken edit: %+v", ev)
	}
}

func TestValidateForgedNamespaceIsAnError(t *testing.T) {
	v := validator(t, false, registry.Limits{})
	req := editReview(t, admissionv1.Create, registryConfigMap("x", map[string]string{"f.kpatch": goodFile}))
	req.Namespace = "other"
	resp := v.Handle(context.Background(), req)
	if resp.Allowed || resp.Result.Code != http.StatusBadRequest {
		t.Errorf("a review whose namespaces differ: %+v", resp.Result)
	}
}

// BenchmarkValidateOneKeyEdit measures the check of a one-key edit in a
// registry of n files: the held ConfigMaps listed (deep copies, as from
// the manager's cache), a fork of the compiler, a build that compiles the
// edited file, and the conflict analysis.
func BenchmarkValidateOneKeyEdit(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cms := syntheticRegistry(n, false)
			for i := range cms {
				cms[i].Labels = registryLabels
			}
			w, _ := replica(nil, true)
			w.Client, w.Store = cachedList(cms), nil
			if err := w.Sync(context.Background()); err != nil {
				b.Fatal(err)
			}
			v := NewRegistryValidator(w)
			cm := cms[3].DeepCopy()
			cm.Data["f00301.kpatch"] = "[deployment.app-301]\nreplicas: 9\n"
			req := admission.Request{}
			req.Operation, req.Namespace, req.Name = admissionv1.Update, cm.Namespace, cm.Name
			req.Object.Raw, _ = json.Marshal(cm)
			b.ReportAllocs()
			for b.Loop() {
				if resp := v.Handle(context.Background(), req); !resp.Allowed {
					b.Fatal(resp.Result.Message)
				}
			}
		})
	}
}

// cachedList lists deep copies of its ConfigMaps, as the manager's cache
// does, and reads nothing else.
type cachedList []corev1.ConfigMap

func (c cachedList) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("not supported")
}

func (c cachedList) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	l := list.(*corev1.ConfigMapList)
	l.Items = make([]corev1.ConfigMap, len(c))
	for i := range c {
		c[i].DeepCopyInto(&l.Items[i])
	}
	return nil
}

func TestValidateCountsResults(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithRuntimeObjects(registryConfigMap("good", map[string]string{"f.kpatch": goodFile})).Build()
	w, _ := replica(c, true)
	w.Metrics = metrics.NewMetrics(prometheus.NewRegistry())
	v := NewRegistryValidator(w)
	check(t, v, admissionv1.Create, registryConfigMap("x", map[string]string{"f.kpatch": goodFile3})) // not synced
	syncOnce(t, w)
	check(t, v, admissionv1.Update, registryConfigMap("good", map[string]string{"f.kpatch": goodFile3}))
	check(t, v, admissionv1.Create, registryConfigMap("edited", map[string]string{"scale.kpatch": "[deployment.web]\nreplcas: 3\n"}))
	check(t, v, admissionv1.Create, registryConfigMap("other", map[string]string{"n.kpatch": "[deployment.web]\ncontainers.name=main.args[delete=0]:\n"}))
	check(t, v, admissionv1.Delete, registryConfigMap("good", nil))
	for result, want := range map[string]float64{
		metrics.ValidationUnchecked: 1, metrics.ValidationAccepted: 1, metrics.ValidationRefused: 1,
		metrics.ValidationWarned: 1, metrics.ValidationSkipped: 1,
	} {
		if got := testutil.ToFloat64(w.Metrics.RegistryValidations.WithLabelValues(result)); got != want {
			t.Errorf("kpatch_registry_validations_total{result=%q} = %v, want %v", result, got, want)
		}
	}
}

// TestValidateLeavesALargerConfigMapThanTheAPIServerStoresUnchecked: a
// review of a registry ConfigMap holding more than 1 MiB of data (the
// API server refuses it before it calls a validating webhook, so it is
// made up) is admitted with a warning, unchecked and uncompiled, whatever
// it holds.
func TestValidateLeavesALargerConfigMapThanTheAPIServerStoresUnchecked(t *testing.T) {
	v := validator(t, false, registry.Limits{}, registryConfigMap("good", map[string]string{"f.kpatch": goodFile}))
	v.Watcher.Metrics = metrics.NewMetrics(prometheus.NewRegistry())
	big := "[deployment.web]\nreplcas: 3\n" + strings.Repeat("# padding\n", (maxConfigMapData+10)/10)
	allowed, msg, warns := check(t, v, admissionv1.Create, registryConfigMap("big", map[string]string{"f.kpatch": big}))
	if !allowed || len(warns) != 1 || !strings.Contains(warns[0], "not checked: the ConfigMap holds 1048") || !strings.Contains(warns[0], "more than the 1048576 the API server stores") {
		t.Errorf("a ConfigMap over 1 MiB: allowed %v, message %q, warnings %q", allowed, msg, warns)
	}
	if n := testutil.ToFloat64(v.Watcher.Metrics.RegistryValidations.WithLabelValues(metrics.ValidationUnchecked)); n != 1 {
		t.Errorf("kpatch_registry_validations_total{result=unchecked} = %v", n)
	}
	// at the bound, it is checked
	atBound := "[deployment.web]\nreplcas: 3\n"
	atBound += strings.Repeat("#", maxConfigMapData-len(atBound)-1) + "\n"
	if allowed, _, _ := check(t, v, admissionv1.Create, registryConfigMap("big", map[string]string{"f.kpatch": atBound})); allowed {
		t.Error("a broken ConfigMap of exactly 1 MiB was not checked")
	}
}

// TestValidateGivesOneUserNoMoreThanTheirShare: a user with as many
// validations waiting or running as one may have is answered at once,
// unchecked, with a warning; another user still waits for the place.
func TestValidateGivesOneUserNoMoreThanTheirShare(t *testing.T) {
	v := validator(t, false, registry.Limits{}, registryConfigMap("good", map[string]string{"f.kpatch": goodFile}))
	ctx := context.Background()
	if err := v.turns.acquire(ctx, "hostile"); err != nil {
		t.Fatal(err)
	}
	waiting, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range maxValidationsPerUser - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v.turns.acquire(waiting, "hostile") == nil {
				v.turns.release("hostile")
			}
		}()
	}
	for end := time.Now().Add(failsafe); ; time.Sleep(time.Millisecond) {
		v.turns.mu.Lock()
		n := v.turns.held["hostile"]
		v.turns.mu.Unlock()
		if n == maxValidationsPerUser {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%d validations of the user held", n)
		}
	}
	req := editReview(t, admissionv1.Create, registryConfigMap("x", map[string]string{"f.kpatch": brokenFile}))
	req.UserInfo.Username = "hostile"
	resp := v.Handle(ctx, req)
	if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "not checked: as many validations of this user") || !strings.Contains(resp.Warnings[0], `user "hostile"`) {
		t.Errorf("one more validation of the user: %+v", resp)
	}
	// another user's waits its turn: its context ends first here
	req.UserInfo.Username = "admin"
	short, cancel := context.WithCancel(ctx)
	cancel()
	if resp := v.Handle(short, req); !resp.Allowed || !strings.Contains(strings.Join(resp.Warnings, ""), "context canceled") {
		t.Errorf("another user's validation: %+v", resp)
	}
	stop()
	wg.Wait()
	v.turns.release("hostile")
	if allowed, _, _ := check(t, v, admissionv1.Create, registryConfigMap("x", map[string]string{"f.kpatch": brokenFile})); allowed {
		t.Error("after the user's validations ended, a broken edit was not checked")
	}
}
