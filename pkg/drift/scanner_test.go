package drift

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"kpatch.dev/kpatch/pkg/metrics"
)

// fixedClock is a clock that moves a second each time it is read.
func fixedClock() func() time.Time {
	t := time.Unix(1700000000, 0)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func refs(findings []Finding) []string {
	var out []string
	for _, f := range findings {
		out = append(out, f.Ref.String()+":"+strings.Join(f.FileNames(), ","))
	}
	return out
}

// TestScanFindsStale: every kind in every namespace is admitted; the
// objects an admission would change are in the report with their files,
// the others are not; the counts are per kind and file.
func TestScanFindsStale(t *testing.T) {
	l := &fakeLister{}
	l.add(deployments, object(deployments, "a", "web", "mirror"), object(deployments, "a", "api", ""), object(deployments, "b", "db", "limits"))
	l.add(pods, object(pods, "a", "web-1", "mirror"), object(pods, "b", "db-1", ""), object(pods, "c", "other", "mirror"))
	s := &Scanner{Lister: l, Admitter: AdmitterFunc(fakeAdmit), Kinds: []Kind{deployments, pods}, Namespaces: []string{"a", "b"}, Version: "v9", Now: fixedClock()}
	r, err := s.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Namespaces(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("namespaces %v, want a and b (c is not scanned)", got)
	}
	s.Namespaces = append(s.Namespaces, "d")
	if r, _ := s.Scan(context.Background()); !reflect.DeepEqual(r.Scanned(), []string{"a", "b", "d"}) || !reflect.DeepEqual(r.Namespaces(), []string{"a", "b"}) {
		t.Errorf("scanned %v, stale in %v: want d scanned, with nothing stale", r.Scanned(), r.Namespaces())
	}
	if got := refs(r.Stale("a")); !reflect.DeepEqual(got, []string{"Deployment a/web:mirror", "Pod a/web-1:mirror"}) {
		t.Errorf("stale in a: %v", got)
	}
	if got := refs(r.Stale("b")); !reflect.DeepEqual(got, []string{"Deployment b/db:limits"}) {
		t.Errorf("stale in b: %v", got)
	}
	want := []metrics.DriftCount{{Kind: "Deployment", File: "limits", Objects: 1}, {Kind: "Deployment", File: "mirror", Objects: 1}, {Kind: "Pod", File: "mirror", Objects: 1}}
	if got := r.Counts(); !reflect.DeepEqual(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if r.Objects() != 5 || r.StaleObjects() != 3 || r.Truncated() || r.Version() != "v9" {
		t.Errorf("objects %d, stale %d, truncated %v, version %q", r.Objects(), r.StaleObjects(), r.Truncated(), r.Version())
	}
	if r.Time() != time.Unix(1700000001, 0) || r.Duration() != time.Second {
		t.Errorf("time %v, duration %v", r.Time(), r.Duration())
	}
	ref := r.Stale("a")[0].Ref
	if ref.UID != "uid-web" || ref.ResourceVersion != "7" || ref.Kind != deployments {
		t.Errorf("ref %+v", ref)
	}
}

// TestScanFollowsPages: a kind is listed page by page, each list asking
// for the page the last one's continue token names, until the last.
func TestScanFollowsPages(t *testing.T) {
	l := &fakeLister{}
	for _, n := range []string{"a1", "a2", "a3", "a4", "a5"} {
		l.add(deployments, object(deployments, "a", n, "f"))
	}
	s := &Scanner{Lister: l, Admitter: AdmitterFunc(fakeAdmit), Kinds: []Kind{deployments}, Namespaces: []string{"a"}, PageSize: 2}
	r, err := s.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`deployments/a 2 ""`, `deployments/a 2 "2"`, `deployments/a 2 "4"`}; !reflect.DeepEqual(l.calls, want) {
		t.Errorf("lists %q, want %q", l.calls, want)
	}
	if r.Objects() != 5 || r.StaleObjects() != 5 {
		t.Errorf("objects %d, stale %d: want every object of every page", r.Objects(), r.StaleObjects())
	}
}

// TestScanTruncated: a scan admits MaxObjects objects at most; with
// objects left it stops, lists nothing more and says it was truncated;
// when they were the last, it is complete.
func TestScanTruncated(t *testing.T) {
	l := &fakeLister{}
	for _, n := range []string{"a1", "a2", "a3"} {
		l.add(deployments, object(deployments, "a", n, "f"))
	}
	l.add(deployments, object(deployments, "b", "b1", "f"), object(deployments, "b", "b2", "f"))
	s := &Scanner{Lister: l, Admitter: AdmitterFunc(fakeAdmit), Kinds: []Kind{deployments, pods}, Namespaces: []string{"a", "b"}, PageSize: 2, MaxObjects: 4}
	r, err := s.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated() || r.Objects() != 4 || r.StaleObjects() != 4 {
		t.Errorf("truncated %v, objects %d, stale %d: want truncated at 4", r.Truncated(), r.Objects(), r.StaleObjects())
	}
	for _, c := range l.calls {
		if strings.HasPrefix(c, "pods/") {
			t.Errorf("listed %s after the bound", c)
		}
	}
	if got := r.Scanned(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("scanned %v, want a and b", got)
	}
	s.Namespaces = []string{"a", "b", "c"}
	if r, _ := s.Scan(context.Background()); !reflect.DeepEqual(r.Scanned(), []string{"a", "b"}) {
		t.Errorf("scanned %v: c, past the bound, is not scanned", r.Scanned())
	}
	s.Namespaces = []string{"a", "b"}
	s.MaxObjects, l.calls = 5, nil
	if r, _ := s.Scan(context.Background()); r.Truncated() || r.Objects() != 5 {
		t.Errorf("exactly MaxObjects: truncated %v, objects %d", r.Truncated(), r.Objects())
	}
}

// TestScanGoesOnPastErrors: a namespace it may not list and an object
// that does not admit are errors of the report; the others are scanned.
func TestScanGoesOnPastErrors(t *testing.T) {
	l := &fakeLister{fail: map[string]bool{"deployments/a": true}}
	l.add(deployments, object(deployments, "a", "x", "f"), object(deployments, "b", "bad", "error"), object(deployments, "b", "good", "f"))
	s := &Scanner{Lister: l, Admitter: AdmitterFunc(fakeAdmit), Kinds: []Kind{deployments}, Namespaces: []string{"a", "b"}}
	r, err := s.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errs, n := r.Errors()
	if n != 2 || len(errs) != 2 || !strings.Contains(errs[0], `list deployments in "a"`) || !strings.Contains(errs[1], "Deployment b/bad") {
		t.Errorf("errors %q (%d)", errs, n)
	}
	if got := refs(r.Stale("b")); !reflect.DeepEqual(got, []string{"Deployment b/good:f"}) {
		t.Errorf("stale in b: %v", got)
	}
}

// TestScanCanceled: a scan whose context ends returns its error, not a
// report.
func TestScanCanceled(t *testing.T) {
	l := &fakeLister{}
	l.add(deployments, object(deployments, "a", "x", "f"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	admit := AdmitterFunc(func(ctx context.Context, k Kind, obj map[string]any) (Admission, error) {
		return Admission{}, ctx.Err()
	})
	s := &Scanner{Lister: l, Admitter: admit, Kinds: []Kind{deployments}, Namespaces: []string{"a"}}
	if r, err := s.Scan(ctx); err != context.Canceled || r != nil {
		t.Errorf("report %v, error %v: want context.Canceled", r, err)
	}
}

// TestReportIsImmutable: what a report returns are copies: changing
// them leaves the report as it was.
func TestReportIsImmutable(t *testing.T) {
	l := &fakeLister{}
	l.add(deployments, object(deployments, "a", "x", "f"))
	r, err := (&Scanner{Lister: l, Admitter: AdmitterFunc(fakeAdmit), Kinds: []Kind{deployments}, Namespaces: []string{"a"}}).Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.Stale("a")[0].Ref.Name = "changed"
	r.Counts()[0].Objects = 99
	if r.Stale("a")[0].Ref.Name != "x" || r.Counts()[0].Objects != 1 {
		t.Error("a report changed through what it returned")
	}
}
