package registry

import (
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
)

func layered(name, layer string, data map[string]string) corev1.ConfigMap {
	cm := configMap(name, data)
	if layer != "" {
		cm.Labels = map[string]string{LayerLabel: layer}
	}
	return cm
}

// TestCompilerLayersAndSpecificity: files apply by layer, then from the
// generic target to the specific one, then by ConfigMap name and key; a
// file's own layer line overrides its ConfigMap's label.
func TestCompilerLayersAndSpecificity(t *testing.T) {
	cms := []corev1.ConfigMap{
		layered("a-prod", "10", map[string]string{"all.kpatch": "[deployment.*]\nreplicas: 5\n"}),
		configMap("b-team", map[string]string{"web.kpatch": "[deployment.web]\nreplicas: 3\n", "shop.kpatch": "[shop/deployment.web]\nreplicas: 4\n"}),
		configMap("c-base", map[string]string{"all.kpatch": "[deployment.*]\nreplicas: 1\n", "w.kpatch": "[deployment.w*]\nreplicas: 2\n"}),
		layered("d-low", "-1", map[string]string{"x.kpatch": "[prod/deployment.web]\nreplicas: 9\n", "own.kpatch": "# kpatch:layer: 20\n[deployment.*]\nreplicas: 6\n"}),
	}
	want := "d-low/x.kpatch,c-base/all.kpatch,c-base/w.kpatch,b-team/web.kpatch,b-team/shop.kpatch,a-prod/all.kpatch,d-low/own.kpatch"
	// any order of the ConfigMaps gives the same registry order
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}} {
		var in []corev1.ConfigMap
		for _, i := range order {
			in = append(in, cms[i])
		}
		b := (&Compiler{}).Build(in, nil)
		if len(b.Problems) != 0 {
			t.Fatalf("problems: %v", b.Problems)
		}
		if got := names(b.Registry, "Deployment"); got != want {
			t.Errorf("order %v:\n got %s\nwant %s", order, got, want)
		}
		var applied []string
		for _, f := range b.Registry.Applied() {
			applied = append(applied, f.Ref.String())
		}
		if got := strings.Join(applied, ","); got != want {
			t.Errorf("Applied: %s", got)
		}
	}
	b := (&Compiler{}).Build(cms[1:3], nil)
	if got := replicas(t, b.Registry); got != "4" { // shop/deployment.web, the most specific
		t.Errorf("the specific file does not win: replicas %s", got)
	}
	if c := FindConflicts(b.Registry); c.Total != 0 {
		t.Errorf("overrides by more specific targets are conflicts: %v", c.First)
	}
}

// TestCompilerInvalidLayer: a ConfigMap whose layer label is no integer
// applies none of its files, reports each, and keeps their stored last
// good versions; the other ConfigMaps are not affected.
func TestCompilerInvalidLayer(t *testing.T) {
	var c Compiler
	good := configMap("a", map[string]string{"web.kpatch": goodFile})
	b := c.Build([]corev1.ConfigMap{good, layered("b", "high", map[string]string{"web.kpatch": goodFile3})}, nil)
	if got := names(b.Registry, "Deployment"); got != "a/web.kpatch" {
		t.Errorf("active %q", got)
	}
	if len(b.Problems) != 1 || !errors.Is(b.Problems[0].Err, ErrInvalidLayer) || b.Problems[0].Ref.ConfigMap != "b" {
		t.Fatalf("problems %v", b.Problems)
	}
	if msg := b.Problems[0].Err.Error(); !strings.Contains(msg, `kpatch.dev/layer is "high", not an integer`) {
		t.Errorf("message %q", msg)
	}
	stored := b.LastGood
	b = c.Build([]corev1.ConfigMap{good, layered("b", "1", map[string]string{"web.kpatch": goodFile3})}, stored)
	if got := names(b.Registry, "Deployment"); got != "a/web.kpatch,b/web.kpatch" {
		t.Errorf("after the fix: %q", got)
	}
	if len(b.Problems) != 1 || b.Problems[0].Err != nil {
		t.Errorf("recovery not reported: %v", b.Problems)
	}
}

// TestConflictsFollowLayers: two files of one layer setting one field
// differently conflict; the same two files in different layers do not,
// and moving a file to another layer is a new analysis.
func TestConflictsFollowLayers(t *testing.T) {
	var c Compiler
	same := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"web.kpatch": goodFile}), configMap("b", map[string]string{"web.kpatch": goodFile3})}, nil)
	report := FindConflicts(same.Registry)
	if report.Total != 1 {
		t.Fatalf("same layer: %d conflicts", report.Total)
	}
	split := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{"web.kpatch": goodFile}), layered("b", "1", map[string]string{"web.kpatch": goodFile3})}, nil)
	if report.Covers(split.Registry) {
		t.Error("a new layer is covered by the earlier analysis")
	}
	if n := FindConflicts(split.Registry).Total; n != 0 {
		t.Errorf("later layer: %d conflicts", n)
	}
	keys := []kpatch.OrderKey{}
	for _, f := range split.Registry.Applied() {
		keys = append(keys, f.Order)
	}
	if !slices.IsSortedFunc(keys, kpatch.OrderKey.Compare) || keys[1].Layer != 1 {
		t.Errorf("keys %v", keys)
	}
}

// TestRequiresComesAfterTheKey: a file applies after the files it
// requires, even one of a higher layer; the others keep their keys' order.
func TestRequiresComesAfterTheKey(t *testing.T) {
	var c Compiler
	top := configMap("top", map[string]string{"z.kpatch": "[deployment.web]\nlabels.z: top\n"})
	top.Labels = map[string]string{LayerLabel: "2"}
	b := c.Build([]corev1.ConfigMap{
		configMap("base", map[string]string{
			"a.kpatch": "# kpatch:requires: top/z\n[deployment.*]\nlabels.a: base\n",
			"b.kpatch": "[deployment.*]\nlabels.b: base\n",
		}),
		top,
	}, nil)
	var got []string
	for _, f := range b.Registry.Applied() {
		got = append(got, f.Ref.String())
	}
	if want := "base/b.kpatch,top/z.kpatch,base/a.kpatch"; strings.Join(got, ",") != want {
		t.Errorf("applied %s, want %s", strings.Join(got, ","), want)
	}
	if got := names(b.Registry, "Deployment"); got != "base/b.kpatch,top/z.kpatch,base/a.kpatch" {
		t.Errorf("the Deployment's patches %s", got)
	}
}

// TestConflictsSkipWhatAFileBuildsOn: a file that requires another
// overrides it on purpose; two unrelated files still conflict.
func TestConflictsSkipWhatAFileBuildsOn(t *testing.T) {
	var c Compiler
	b := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{
		"base.kpatch":  "[deployment.web]\nreplicas: 2\n",
		"team.kpatch":  "# kpatch:requires: base\n[deployment.web]\nreplicas: 3\n",
		"other.kpatch": "[deployment.web]\nreplicas: 4\n",
	})}, nil)
	r := FindConflicts(b.Registry)
	// base, other, team (by key): team over base is meant, the others are
	// not: one contested field, naming its three files and the winner
	want := "deployment.web spec.replicas: set by 3 files (a/base.kpatch:2:1 to 2, a/other.kpatch:2:1 to 4, a/team.kpatch:3:1 to 3); a/team.kpatch:3:1 wins (applies last, 3)"
	if r.Total != 1 || len(r.First) != 1 || r.First[0].Error() != want || r.First[0].Earlier.File != "a/other.kpatch" {
		t.Fatalf("conflicts %v (total %d), want %s", r.First, r.Total, want)
	}
	meant := c.Build([]corev1.ConfigMap{configMap("a", map[string]string{
		"base.kpatch": "[deployment.web]\nreplicas: 2\n",
		"team.kpatch": "# kpatch:requires: base\n[deployment.web]\nreplicas: 3\n",
	})}, nil)
	if r := FindConflicts(meant.Registry); r.Total != 0 {
		t.Errorf("an override of a required file is a conflict: %v", r.First)
	}
}

// TestProblemsNameTheirConfigMapWhateverTheOrder: a problem of a file that
// the order moves names that file's ConfigMap.
func TestProblemsNameTheirConfigMapWhateverTheOrder(t *testing.T) {
	var c Compiler
	b := c.Build([]corev1.ConfigMap{
		configMap("a", map[string]string{"x.kpatch": "[deployment.web]\nreplicas: 2\n"}),
		configMap("b", map[string]string{"y.kpatch": "[deployment.*]\nreplicas: three\n"}),
	}, nil)
	if len(b.Problems) != 1 {
		t.Fatalf("problems %+v", b.Problems)
	}
	if p := b.Problems[0]; p.Ref.String() != "b/y.kpatch" || p.ConfigMap.Name != "b" || p.Err == nil {
		t.Errorf("problem %+v on ConfigMap %s", p, p.ConfigMap.Name)
	}
}
