package condition

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// attack builds a string of the annotation's length squared: 4 GiB of a
// 64 KiB annotation, for a few thousand of the library's cost units.
const attack = "object.metadata.annotations['a'].replace('a', object.metadata.annotations['a']).size() > 0"

// TestTheWorstCaseIsRefusedWhenItCompiles: a condition whose estimated
// worst-case cost exceeds the per-call limit does not compile, with the
// estimate, the limit, and where most of it is.
func TestTheWorstCaseIsRefusedWhenItCompiles(t *testing.T) {
	cases := []struct {
		expr      string
		workload  bool
		line, col int
		msg       string
	}{
		// the building of replace's result, which the library does not
		// charge, is what dominates
		{attack, false, 1, 34, "of it in replace()"},
		{"object.metadata.annotations['a'].split('').join(object.metadata.annotations['b']) != ''", false, 1, 44, "of it in join()"},
		{"'%.1000000000f'.format([1.0]) != ''", false, 1, 17, "of it in format()"},
		{"object.metadata.labels.exists(k, k.startsWith('team.example/'))", false, 1, 24, "of it in exists() over object.metadata.labels, which may hold 393215 items"},
		{"podSpec.containers.exists(c, c.env.exists(e, e.name == 'X'))", true, 1, 20, "of it in exists() over podSpec.containers, which may hold 120989 items"},
		{"object.spec.replicas > 1 &&\n  request.userInfo.groups.exists(g, g == 'admins')", false, 2, 27, "of it in exists() over request.userInfo.groups"},
		// a format string that is not a literal: its result is unbounded
		{"object.metadata.name.format([1]) != ''", false, 1, 22, "of it in format()"},
	}
	for _, tc := range cases {
		_, err := Compile(tc.expr, Options{Workload: tc.workload})
		var ce *Error
		if !errors.As(err, &ce) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Compile(%q) = %v, want an *Error", tc.expr, err)
			continue
		}
		if ce.Line != tc.line || ce.Column != tc.col || !strings.HasPrefix(ce.Msg, "estimated worst-case cost ") ||
			!strings.Contains(ce.Msg, " exceeds the per-call limit 1000000 (") || !strings.Contains(ce.Msg, tc.msg) {
			t.Errorf("Compile(%q) = %d:%d %s, want %d:%d with %q", tc.expr, ce.Line, ce.Column, ce.Msg, tc.line, tc.col, tc.msg)
		}
	}
}

// TestLiteralPatternsAreCountedBeforeTheyCompile: a regex literal whose
// program would take more than one call may build (7 KB of .{1000}: a
// million instructions, hundreds of MB) is refused at the pattern before
// it compiles.
func TestLiteralPatternsAreCountedBeforeTheyCompile(t *testing.T) {
	expr := "object.metadata.name.matches('" + strings.Repeat(".{1000}", 1000) + "')"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Compile(expr, Options{})
	runtime.ReadMemStats(&after)
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 1 || ce.Column != 30 || !strings.HasPrefix(ce.Msg, "compiling a regex would build ") {
		t.Fatalf("Compile = %v, want the pattern refused at 1:30", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > maxAllocPerCall && !raceDetector {
		t.Errorf("compiling allocated %d bytes", n)
	}
	if _, err := Compile("object.metadata.name.matches('^api-[a-z]{1,20}$') && object.metadata.name.findAll('[0-9]+').size() < 3", Options{}); err != nil {
		t.Errorf("an ordinary pattern: %v", err)
	}
}

// TestTheAttackIsEstimatedFarPastTheLimit: the estimate of the attack is
// what its result would take, not the thousands the library charges.
func TestTheAttackIsEstimatedFarPastTheLimit(t *testing.T) {
	_, err := Compile(attack, Options{})
	var cost uint64
	if err == nil {
		t.Fatal("the attack compiled")
	}
	if _, scanErr := fmt.Sscanf(err.(*Error).Msg, "estimated worst-case cost %d", &cost); scanErr != nil || cost < 1<<32 {
		t.Fatalf("%v: want an estimate past 2^32", err)
	}
}

// TestOrdinaryConditionsCompile: the conditions of the repository's files,
// tests and documentation, and the usual ones over lists of a pod, stay
// within the limit.
func TestOrdinaryConditionsCompile(t *testing.T) {
	for _, expr := range []string{
		"object.spec.replicas > 2",
		"has(object.metadata.labels) && object.metadata.labels.tier == 'gold'",
		"object.metadata.name.startsWith('api-')",
		"object.metadata.name.matches('^api-[a-z]+-prod$')",
		"!request.userInfo.username.startsWith('system:serviceaccount:')",
		"request.userInfo.username == 'alice' && 'admins' in request.userInfo.groups",
		"request.operation == 'UPDATE' && has(request.userInfo.groups) && 'dev' in request.userInfo.groups",
		"request.operation == 'UPDATE' && oldObject.spec.replicas != object.spec.replicas",
		"namespaceObject != null && has(namespaceObject.metadata.labels.env) && namespaceObject.metadata.labels.env == 'prod'",
		"namespaceObject.metadata.labels['app.kubernetes.io/part-of'] == 'gold-shop'",
		"params.tier == 'gold' && object.spec.replicas >= params.minReplicas",
		"'tier' in object.metadata.labels",
		"object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example/'))",
		"object.spec.template.spec.containers.all(c, c.name.size() > 0)",
		"object.spec.template.spec.containers.all(c, has(c.resources.limits))",
		"has(object.spec.template.spec.initContainers) && object.spec.template.spec.initContainers.all(c, c.image.startsWith('registry.example/'))",
		"object.metadata.?labels.?tier.orValue('') == 'gold'",
		"object.metadata.annotations['a'].contains('x')",
		"object.metadata.annotations['a'].split(',').size() > 2",
		"object.metadata.name.split('-')[0] == 'api'",
		"[object.metadata.name, object.metadata.namespace].join('/') == 'shop/web'",
		"'%s/%s'.format([object.metadata.namespace, object.metadata.name]) == 'shop/web'",
		"string(object.spec.replicas) == '3' && object.metadata.name + '-x' != ''",
		"lists.range(10).all(i, i < 20)",
	} {
		if _, err := Compile(expr, Options{}); err != nil {
			t.Errorf("Compile(%q): %v", expr, err)
		}
	}
	for _, expr := range []string{
		"podSpec.containers.exists(c, c.name == 'proxy') && podMetadata.labels.app != 'legacy'",
		"podSpec.containers.all(c, !has(c.securityContext) || c.securityContext.privileged != true)",
		"podSpec.volumes.exists(v, has(v.hostPath))",
		"podSpec.hostNetwork == true",
	} {
		if _, err := Compile(expr, Options{Workload: true}); err != nil {
			t.Errorf("Compile(%q): %v", expr, err)
		}
	}
}

// TestSizesFollowTheSchema: the sizes the estimate assumes are the
// validation's where it bounds a field, the request's otherwise, and a
// list holds as many items as the request holds of its smallest item.
func TestSizesFollowTheSchema(t *testing.T) {
	cases := map[string]uint64{
		"object.metadata.name":                           253,
		"oldObject.metadata.namespace":                   63,
		"object.metadata.labels.@values":                 63,
		"object.metadata.labels.@keys":                   317,
		"object.metadata.annotations":                    256 << 10,
		"object.metadata.annotations.@values":            256 << 10,
		"podMetadata.annotations.x":                      256 << 10,
		"object.spec.template.spec.containers.@keys.env": (3<<20 - 2) / 14, // {"name":"x"}
		// {"name":"x","image":"x"}
		"podSpec.containers":                     (3<<20 - 2) / 26,
		"podSpec.containers.@items.image":        3<<20 - 2,
		"object.spec.replicas":                   1,
		"request.userInfo.username":              1<<20 - 2,
		"params.anything":                        3<<20 - 2,
		"object.spec.thatNoBuiltinKindHas.items": 3<<20 - 2,
		// a struct as a map: its fields
		"object.metadata.creationTimestamp": 32,
	}
	for path, want := range cases {
		if got := shapeAt(strings.Split(path, ".")).size(); got != want {
			t.Errorf("%s: size %d, want %d", path, got, want)
		}
	}
}

// benchTerms is a condition of n terms joined by ||, each reading a
// label of the object or a field of its pod template.
func benchTerms(n int) string {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = fmt.Sprintf("object.metadata.labels['tier%d'] == 'gold' || object.spec.template.spec.containers[%d].image.startsWith('registry.example/')", i, i)
	}
	return strings.Join(terms, " || ")
}

// BenchmarkCompile is the compilation of a condition of N and 10N terms,
// its cost estimate included.
func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{5, 50} {
		expr := benchTerms(n)
		b.Run(fmt.Sprintf("terms=%d", 2*n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile(expr, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEstimateCost is the cost estimate alone of the conditions of
// BenchmarkCompile.
func BenchmarkEstimateCost(b *testing.B) {
	plain := environments()[0]
	for _, n := range []int{5, 50} {
		expr := benchTerms(n)
		checked, iss := plain.Compile(expr)
		if iss.Err() != nil {
			b.Fatal(iss.Err())
		}
		b.Run(fmt.Sprintf("terms=%d", 2*n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := checkCost(plain.Env, estimator, expr, checked, celconfig.PerCallLimit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
