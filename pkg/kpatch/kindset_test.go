package kpatch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestWorkloadKinds(t *testing.T) {
	want := []string{"CronJob", "DaemonSet", "Deployment", "Job", "Pod", "ReplicaSet", "ReplicationController", "StatefulSet"}
	if got := WorkloadKinds(); !slices.Equal(got, want) {
		t.Errorf("WorkloadKinds() = %v, want %v", got, want)
	}
}

func TestKindsExpandSetsAndGlobs(t *testing.T) {
	tests := map[string][]string{
		"[@workload.*]\nserviceAccountName: a\n":            {"cronjob", "daemonset", "deployment", "job", "pod", "replicaset", "replicationcontroller", "statefulset"},
		"[*Set.*]\nlabels.a: b\n":                           {"daemonset", "replicaset", "statefulset"},
		"[*(batch).*]\nlabels.a: b\n":                       {"cronjob", "job"},
		"[*(example.com).*]\nlabels.a: b\n":                 {AnyKind},
		"[Workload.*]\nlabels.a: b\n":                       {"workload"},
		"[configmap.a]\ndata.x: y\n[*map.a]\nlabels.a: b\n": {"configmap"},
	}
	for src, want := range tests {
		p := mustPatch(t, "f", src)
		if got := p.Kinds(); !slices.Equal(got, want) {
			t.Errorf("%q: Kinds() = %v, want %v", src, got, want)
		}
	}
}

func TestMatchesKind(t *testing.T) {
	p := mustPatch(t, "f", "[*(example.com).*]\nspec.a: b\n[@workload.*]\nserviceAccountName: a\n")
	for kind, want := range map[string]bool{"Widget": true, "pod": true, "CronJob": true, "PodTemplate": true, "ConfigMap": true} {
		if got := p.MatchesKind(kind); got != want {
			t.Errorf("MatchesKind(%q) = %v, want %v", kind, got, want)
		}
	}
	q := mustPatch(t, "f", "[@workload.*]\nserviceAccountName: a\n")
	for kind, want := range map[string]bool{"Pod": true, "PodTemplate": false, "Workload": false, "Widget": false} {
		if got := q.MatchesKind(kind); got != want {
			t.Errorf("@workload: MatchesKind(%q) = %v, want %v", kind, got, want)
		}
	}
}

// TestWorkloadIsNotTheWorkloadKind keeps Workload (scheduling.k8s.io) a
// kind: without @ it does not reach pods.
func TestWorkloadIsNotTheWorkloadKind(t *testing.T) {
	p := mustPatch(t, "f", "[workload.*]\nlabels.a: b\n")
	pod := mustObject(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: x}]}\n")
	out, err := p.Apply(pod, ApplyOptions{})
	if err != nil || out["metadata"].(map[string]any)["labels"] != nil {
		t.Errorf("[workload.*] patched a Pod: %v %v", out, err)
	}
}

func TestGlobSkipsKindsWithoutTheField(t *testing.T) {
	p := mustPatch(t, "f", "[*Set.*]\nreplicas: 2\nlabels.a: b\n")
	ds := mustObject(t, "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec: {}\n")
	out, err := p.Apply(ds, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if spec := out["spec"].(map[string]any); spec["replicas"] != nil {
		t.Errorf("replicas set on a DaemonSet: %v", out)
	}
	if out["metadata"].(map[string]any)["labels"] == nil {
		t.Errorf("the entry every kind has was skipped: %v", out)
	}
}

func TestConflictsExpandWorkloadAndAllContainers(t *testing.T) {
	a := mustPatch(t, "a", "[@workload.*.allContainers[name=main]]\nimagePullPolicy: Always\n")
	b := mustPatch(t, "b", "[deployment.web.containers[name=main]]\nimagePullPolicy: Never\n")
	c := mustPatch(t, "c", "[*Job.web]\nlabels.x: y\n")
	d := mustPatch(t, "d", "[cronjob.web]\nlabels.x: z\n")
	if got := Conflicts([]*Patch{a, b, c, d}); len(got) != 0 {
		t.Fatalf("a more specific target overrides a kind set or glob on purpose, got conflicts: %v", got)
	}
	// the other way round, the generic file wins over the specific one
	got := Conflicts([]*Patch{b, a, d, c})
	if len(got) != 2 {
		t.Fatalf("got %d conflicts, want 2: %v", len(got), got)
	}
	if got[0].Path != `spec.template.spec.containers[name=main].imagePullPolicy` {
		t.Errorf("path %q", got[0].Path)
	}
}

func TestTargetKindRoundTrip(t *testing.T) {
	for _, src := range []string{"[@workload.*]\nserviceAccountName: a\n", "[*config*.app]\nlabels.a: b\n", "[ns/*(apps/v1).w?b]\nlabels.a: b\n"} {
		f, err := Parse("f", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		assertRoundTrip(t, f)
	}
}

// BenchmarkCompileKindGlob compiles [*.*] (every built-in kind and
// version) with N and 10N entries.
func BenchmarkCompileKindGlob(b *testing.B) {
	for _, n := range []int{10, 100} {
		var sb strings.Builder
		sb.WriteString("[*.*]\n")
		for i := range n {
			fmt.Fprintf(&sb, "labels.a%d: b\n", i)
		}
		src := []byte(sb.String())
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := ParseAndCompile("f", src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
