package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

func TestClassify(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	for _, c := range []struct {
		name    string
		err     error
		patched bool
		want    Outcome
	}{
		{"patched", nil, true, Patched},
		{"unpatched", nil, false, AllowedUnpatched},
		{"denied by the webhook", apierrors.NewForbidden(gr, "web", fmt.Errorf("admission webhook %q denied the request: no", webhookName)), false, Denied},
		{"forbidden by RBAC", apierrors.NewForbidden(gr, "web", errors.New("user cannot create")), false, Errored},
		{"a patch that does not apply", apierrors.NewInternalError(errors.New("doc is missing path")), false, Refused},
		{"a patched object that does not validate", apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", nil), false, Refused},
		{"a timeout", apierrors.NewTimeoutError("slow", 1), false, Errored},
		{"a conflict", apierrors.NewConflict(gr, "web", errors.New("changed")), false, Errored},
		{"a transport error", errors.New("connection refused"), false, Errored},
	} {
		if got := classify(c.err, c.patched); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestTallyCountsPerChannelAndOutcome(t *testing.T) {
	tally := NewTally()
	tally.Add(Answer{Channel: "create", Outcome: Patched, Latency: 3 * time.Millisecond})
	tally.Add(Answer{Channel: "create", Outcome: AllowedUnpatched, Latency: time.Millisecond, Violation: "admitted unpatched"})
	tally.Add(Answer{Channel: "update", Outcome: Patched, Latency: 2 * time.Millisecond})
	tally.Add(Answer{Channel: "update", Outcome: Errored, Latency: time.Hour})
	tally.Violate("replica %s exited", "a")

	if got := tally.Channels(); strings.Join(got, ",") != "create,update" {
		t.Errorf("channels %v", got)
	}
	if c := tally.Counts("create"); c[Patched] != 1 || c[AllowedUnpatched] != 1 || c[Errored] != 0 {
		t.Errorf("create: %v", c)
	}
	if c := tally.Counts(); c[Patched] != 2 || c[AllowedUnpatched] != 1 || c[Errored] != 1 {
		t.Errorf("all: %v", c)
	}
	// an error has no latency of an answer
	if l := tally.Latencies(); len(l) != 3 || percentile(l, 100) != 3*time.Millisecond {
		t.Errorf("latencies %v", l)
	}
	n, v := tally.Violations()
	if n != 2 || len(v) != 2 || v[0] != "create: admitted unpatched" || v[1] != "replica a exited" {
		t.Errorf("violations %d %q", n, v)
	}
	for range 2 * maxViolations {
		tally.Violate("more")
	}
	if n, v := tally.Violations(); n != 2+2*maxViolations || len(v) != maxViolations {
		t.Errorf("violations %d, kept %d", n, len(v))
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(101-i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := percentile(d, p); got != want {
			t.Errorf("p%g = %s, want %s", p, got, want)
		}
	}
	if percentile(nil, 99) != 0 {
		t.Error("p99 of nothing")
	}
}

// TestEditsAllowTheEditRace: an answer may carry an older version than the
// newest (the webhook sees an edit late), within maxStale, but never one
// written after the answer, nor one that failed; within an exempt
// interval the version in force when it began stays allowed.
func TestEditsAllowTheEditRace(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	e := NewEdits(at(0))
	for i := 1; i <= 60; i++ {
		v := e.Begin(at(float64(i)))
		if i == 30 {
			e.Fail(v)
			continue
		}
		e.End(v, at(float64(i)+0.1), fmt.Sprint(1000+i))
	}
	const stale = 5 * time.Second
	for _, c := range []struct {
		name         string
		v            int
		sent, answer float64
		ok           bool
	}{
		{"the newest", 10, 10.5, 10.6, true},
		{"written while the request was in flight", 11, 10.5, 11.05, true},
		{"its update began after the answer", 12, 10.5, 11.5, false},
		{"late by less than maxStale", 6, 10.5, 10.6, true},
		{"late by more than maxStale", 4, 10.5, 10.6, false},
		{"a version that failed", 30, 35, 35.1, false},
		{"never written", 61, 70, 70.1, false},
		{"the initial version, early on", 0, 2, 2.1, true},
	} {
		if err := e.Check(c.v, at(c.sent), at(c.answer), stale); (err == nil) != c.ok {
			t.Errorf("%s: version %d sent at %g: %v, want ok %v", c.name, c.v, c.sent, err, c.ok)
		}
	}
	end := e.Exempt(at(40))
	end(at(55))
	if err := e.Check(36, at(50), at(50.1), stale); err != nil {
		t.Errorf("within the exempt interval, the version in force maxStale before it began: %v", err)
	}
	if err := e.Check(33, at(50), at(50.1), stale); err == nil {
		t.Error("within the exempt interval, a version older than the one in force maxStale before it began")
	}
	if err := e.Check(36, at(58), at(58.1), stale); err == nil {
		t.Error("after the exempt interval, a stale version")
	}
	if !e.Exempted(at(50)) || e.Exempted(at(56)) {
		t.Error("Exempted")
	}
	if got := e.Staleness(10, at(13)); got != 1900*time.Millisecond {
		t.Errorf("staleness of version 10 at 13 s: %s", got)
	}
	if got := e.Staleness(60, at(70)); got != 0 {
		t.Errorf("staleness of the newest: %s", got)
	}
	if v := e.FirstAfter(at(29.5)); v != 31 {
		t.Errorf("first version after 29.5 s: %d (30 failed)", v)
	}
	if !e.BeganAfter(41, at(40)) || e.BeganAfter(40, at(40)) {
		t.Error("BeganAfter")
	}
}

// TestEditsOrderARaceAsStored: two versions written at once are in force
// in the order the API server stored them (their resourceVersions), not in
// the order they began: the one stored last is the registry in force, and
// past maxStale the other one is stale, whichever began first.
func TestEditsOrderARaceAsStored(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	e := NewEdits(at(0))
	one := e.Begin(at(1))
	e.End(one, at(1.1), "100")
	a, b := e.Begin(at(2)), e.Begin(at(2))
	// b returned first but was stored last
	e.End(b, at(2.25), "120")
	e.End(a, at(2.5), "110")
	if v, when := e.Latest(); v != b || !when.Equal(at(2.25)) {
		t.Errorf("in force: version %d written at %s, want %d", v, when, b)
	}
	const stale = 5 * time.Second
	if err := e.Check(a, at(3), at(3.1), stale); err != nil {
		t.Errorf("the version stored first, soon after: %v", err)
	}
	if err := e.Check(a, at(9), at(9.1), stale); err == nil {
		t.Error("the version stored first, past maxStale: not stale")
	}
	if err := e.Check(b, at(9), at(9.1), stale); err != nil {
		t.Errorf("the version stored last, past maxStale: %v", err)
	}
	if err := e.Check(one, at(9), at(9.1), stale); err == nil {
		t.Error("the version before the race, past maxStale: not stale")
	}
	if got := e.Staleness(a, at(3)); got != 750*time.Millisecond {
		t.Errorf("staleness of the version stored first at 3 s: %s", got)
	}
	if got := e.Staleness(b, at(3)); got != 0 {
		t.Errorf("staleness of the version in force: %s", got)
	}
}

func TestMarksCheck(t *testing.T) {
	const nonce = "n0nce"
	good := func(kind string, v int) Marks {
		return Marks{Kind: kind, Version: fmt.Sprint(v), Parity: parity(v), Owner: ownerMark("soak-a", nonce), Tenant: tenantMark("soak-a", nonce), Replicas: replicas(v)}
	}
	for _, kind := range []string{kindDeployment, kindPod} {
		if v, err := good(kind, 7).Check("soak-a", nonce); v != 7 || err != nil {
			t.Errorf("%s: %d %v", kind, v, err)
		}
	}
	if _, err := (Marks{Kind: kindPod}).Check("soak-a", nonce); !errors.Is(err, errNoMarks) {
		t.Errorf("no marks: %v", err)
	}
	for name, m := range map[string]Marks{
		"a torn answer: the parity of another version":   func() Marks { m := good(kindDeployment, 7); m.Parity = parity(8); return m }(),
		"a torn answer: the replicas of another version": func() Marks { m := good(kindDeployment, 7); m.Replicas = replicas(8); return m }(),
		"no owner":                   func() Marks { m := good(kindDeployment, 7); m.Owner = ""; return m }(),
		"another namespace's tenant": func() Marks { m := good(kindPod, 7); m.Tenant = tenantMark("soak-b", nonce); return m }(),
		"not a version":              func() Marks { m := good(kindPod, 7); m.Version = "seven"; return m }(),
	} {
		if _, err := m.Check("soak-a", nonce); err == nil || errors.Is(err, errNoMarks) {
			t.Errorf("%s: %v", name, err)
		}
	}
	forged := good(kindPod, 7)
	forged.LastGood = lastGoodForged
	if _, err := forged.Check("soak-a", nonce); err == nil {
		t.Error("the forged last good version's mark passed")
	}
	genuine := good(kindPod, 7)
	genuine.LastGood = lastGoodGenuine
	if _, err := genuine.Check("soak-a", nonce); err != nil {
		t.Errorf("the genuine last good version's mark: %v", err)
	}
	updated := good(kindDeployment, 7)
	updated.Updated = "yes"
	if updated.CheckOperation(true) != nil || updated.CheckOperation(false) == nil || good(kindPod, 7).CheckOperation(true) == nil || good(kindPod, 7).CheckOperation(false) != nil {
		t.Error("the UPDATE-only file's mark: on every UPDATE, never on a CREATE")
	}
	if err := (Marks{Kind: kindDeployment, Updated: "yes"}).Untouched(); err == nil {
		t.Error("the UPDATE-only file's mark on an object no file targets")
	}
	if err := (Marks{Kind: kindDeployment, Replicas: 1}).Untouched(); err != nil {
		t.Error(err)
	}
	if err := (Marks{Kind: kindDeployment, Tenant: "x"}).Untouched(); err == nil {
		t.Error("a tenant's mark on an object no file targets")
	}
}

func TestForeignData(t *testing.T) {
	ns := []string{"soak-a", "soak-b", "soak-c"}
	text := `[{"op":"add","path":"/metadata/annotations","value":{"o":"` + ownerMark("soak-b", "x") + `"}}]`
	if got := foreignData(text, "soak-b", "x", ns); got != nil {
		t.Errorf("its own namespace's data: %v", got)
	}
	if got := foreignData(text, "soak-a", "x", ns); len(got) != 1 || got[0] != ownerMark("soak-b", "x") {
		t.Errorf("another namespace's data: %v", got)
	}
	if got := foreignData(text, "soak-a", "y", ns); got != nil {
		t.Errorf("another run's nonce: %v", got)
	}
}

func TestForgeriesOwnNamespace(t *testing.T) {
	fs := forgeries([]string{"soak-a", "soak-b"})
	if len(fs) != 12 {
		t.Fatalf("%d forgeries", len(fs))
	}
	mismatched := 0
	for _, f := range fs {
		if f.object == "" && f.own() != f.claimed || f.object != "" && f.own() != f.object {
			t.Errorf("%+v belongs to %q", f, f.own())
		}
		if f.object != "" && f.object != f.claimed {
			mismatched++
		}
	}
	if mismatched != 8 {
		t.Errorf("%d forgeries claim a namespace the object does not name", mismatched)
	}
}

// TestRegistryFilesCompile: the soak's files are valid in the format the
// registry compiles, every version of them.
func TestRegistryFilesCompile(t *testing.T) {
	for v := range 3 {
		if _, err := kpatch.ParseAndCompile("version.kpatch", []byte(versionFile(v))); err != nil {
			t.Errorf("version %d: %v", v, err)
		}
	}
	if _, err := kpatch.ParseAndCompile("tenant.kpatch", []byte(tenantFile("soak-a", "x"))); err != nil {
		t.Error(err)
	}
	p, err := kpatch.ParseAndCompile(updateOnlyKey, []byte(updateOnlyFile))
	if err != nil {
		t.Fatal(err)
	}
	if ops := p.Operations(); ops != kpatch.OperationUpdate {
		t.Errorf("the UPDATE-only file applies on %v", ops)
	}
	for _, mark := range []string{lastGoodGenuine, lastGoodForged} {
		if _, err := kpatch.ParseAndCompile(lastGoodFileKey, []byte(lastGoodFile(mark))); err != nil {
			t.Errorf("%s: %v", mark, err)
		}
	}
	if _, err := kpatch.ParseAndCompile(lastGoodFileKey, []byte(brokenFile)); err == nil {
		t.Error("the broken file compiles")
	}
	if !replacement.IsReplacementsFile([]byte(ownerFile)) {
		t.Error("the owner file is not a replacements file")
	}
	if _, err := replacement.Parse("owner.yaml", []byte(ownerFile)); err != nil {
		t.Error(err)
	}
}

// TestEventBound: a second's worth at each start, then the rate.
func TestEventBound(t *testing.T) {
	if got := eventBound(1, []time.Duration{10 * time.Second, 2500 * time.Millisecond}); got != 1+10+1+2 {
		t.Errorf("rate 1: %d", got)
	}
	if got := eventBound(2.5, []time.Duration{4 * time.Second}); got != 3+10 {
		t.Errorf("rate 2.5: %d", got)
	}
}

// TestStartProbeJudge: connections refused, then 503, then patches of a
// version in force pass; an unpatched 200, a 503 after a patch, a stale
// version, another status and a torn answer do not.
func TestStartProbeJudge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := NewEdits(t0)
	v := e.Begin(t0.Add(time.Second))
	e.End(v, t0.Add(1100*time.Millisecond), "10")
	sent := t0.Add(2 * time.Second)
	refused := &url.Error{Op: "Post", URL: "https://127.0.0.1:1/mutate", Err: syscall.ECONNREFUSED}
	unsynced := &statusError{Code: http.StatusServiceUnavailable, Body: `{"kind":"Status","message":"kpatch: the registry has not synced yet"}`}
	noToken := &statusError{Code: http.StatusServiceUnavailable, Body: "kpatch: the webhook has not read its path token yet; retry later"}
	judge := func(p *StartProbe, v int, err error) string {
		return p.judge(v, err, sent, sent.Add(time.Millisecond), t0, e, 500*time.Millisecond)
	}
	p := &StartProbe{}
	for _, a := range []struct {
		v   int
		err error
	}{{-1, refused}, {-1, refused}, {-1, noToken}, {-1, unsynced}, {v, nil}, {v, nil}} {
		if why := judge(p, a.v, a.err); why != "" {
			t.Errorf("%d %v: %s", a.v, a.err, why)
		}
	}
	if p.Refused != 2 || p.Unsynced != 2 || p.Patched != 2 || p.FirstPatched != 2001*time.Millisecond {
		t.Errorf("counted %+v", p)
	}
	if why := judge(p, -1, unsynced); why == "" {
		t.Error("a 503 after a patch")
	}
	for name, a := range map[string]struct {
		v   int
		err error
	}{
		"admitted unpatched":   {-1, errNoMarks},
		"a stale version":      {0, nil},
		"another status":       {-1, &statusError{Code: http.StatusInternalServerError, Body: "boom"}},
		"a torn answer":        {v, errors.New("version 1 with parity \"even\"")},
		"a 503 of another why": {-1, &statusError{Code: http.StatusServiceUnavailable, Body: "busy"}},
	} {
		if why := judge(&StartProbe{}, a.v, a.err); why == "" {
			t.Errorf("%s passed", name)
		}
	}
}
