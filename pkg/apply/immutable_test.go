package apply

import (
	"context"
	"errors"
	"testing"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

func pod(spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "labels": map[string]any{"app": "a"}}, "spec": spec}
}

func podSpec() map[string]any {
	return map[string]any{
		"containers":  []any{map[string]any{"name": "app", "image": "app:1"}},
		"tolerations": []any{map[string]any{"key": "a", "operator": "Exists"}},
	}
}

// TestImmutableOnUpdate: on an UPDATE, a file whose own changes set a
// field that an UPDATE of the kind may not change, to a value the stored
// object does not have, is left out of the object whole (Immutable, an
// *ImmutableError naming the field), which is no problem of the object;
// the files that change only what an UPDATE may change apply, and on a
// CREATE every file applies.
func TestImmutableOnUpdate(t *testing.T) {
	for _, tc := range []struct {
		name, src, op string
		obj, old      map[string]any
		want, field   string
	}{
		{"pod spec field", "[pod.p]\nspec.priorityClassName: high\n", "UPDATE", pod(podSpec()), nil, Immutable, "spec.priorityClassName"},
		{"pod spec field on CREATE", "[pod.p]\nspec.priorityClassName: high\n", "CREATE", pod(podSpec()), nil, Patched, ""},
		{"pod image", "[pod.p]\nspec.containers[name=app].image: app:2\n", "UPDATE", pod(podSpec()), nil, Patched, ""},
		{"pod container resources", "[pod.p]\nspec.containers[name=app].resources.requests.cpu: 250m\n", "UPDATE", pod(podSpec()), nil, Immutable, "spec.containers"},
		{"a label and a spec field: the file whole", "[pod.p]\nmetadata.labels.team: x\nspec.priorityClassName: high\n", "UPDATE", pod(podSpec()), nil, Immutable, "spec.priorityClassName"},
		{"a label", "[pod.p]\nmetadata.labels.team: x\n", "UPDATE", pod(podSpec()), nil, Patched, ""},
		{"toleration appended", "[pod.p.tolerations[-]]\nkey: b\noperator: Exists\n", "UPDATE", pod(podSpec()), nil, Patched, ""},
		{"toleration changed", "[pod.p]\nspec.tolerations[key=a].operator: Equal\n", "UPDATE", pod(podSpec()), nil, Immutable, "spec.tolerations"},
		{"the stored object's value", "[pod.p]\nspec.priorityClassName: high\n", "UPDATE", pod(podSpec()),
			pod(map[string]any{"priorityClassName": "high", "containers": podSpec()["containers"], "tolerations": podSpec()["tolerations"]}), Patched, ""},
		{"deployment selector", "[deployment.d]\nspec.selector.matchLabels.x: y\n", "UPDATE", selectedDeployment(), nil, Immutable, "spec.selector"},
		{"deployment template", "[deployment.d]\nspec.template.metadata.labels.x: y\n", "UPDATE", selectedDeployment(), nil, Patched, ""},
		{"immutable configmap", "[configmap.c]\ndata.a: b\n", "UPDATE", immutableConfigMap(true), nil, Immutable, "data"},
		{"mutable configmap", "[configmap.c]\ndata.a: b\n", "UPDATE", immutableConfigMap(false), nil, Patched, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := patchFile(t, "f.kpatch", tc.src)
			opts := &Options{Operation: tc.op}
			if tc.old != nil {
				opts.Admission.Objects = testObjects{old: tc.old}
			}
			for _, observed := range []bool{false, true} {
				if observed {
					opts.Observer = ObserverFunc(func(int, FileRun, map[string]any, map[string]any) {})
				}
				run, err := RunObject(context.Background(), tc.obj, []File{f}, opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := results(run.Files); got != "f.kpatch:"+tc.want {
					t.Fatalf("results %s, want f.kpatch:%s", got, tc.want)
				}
				if p := run.Problems(); len(p) != 0 {
					t.Errorf("problems %s, want none", results(p))
				}
				if tc.want != Immutable {
					continue
				}
				var ie *ImmutableError
				if !errors.As(run.Files[0].Err, &ie) || !errors.Is(ie, ErrImmutable) || ie.Field != tc.field {
					t.Errorf("err %v, want an *ImmutableError on %s", run.Files[0].Err, tc.field)
				}
				if !jsonvalue.Equal(run.Out, tc.obj) {
					t.Errorf("object changed: %v", run.Out)
				}
			}
		})
	}
}

// TestImmutableLeavesOthers: a file left out of an UPDATE leaves the
// object as the files before it left it, and the files after it apply;
// a file in audit mode that would change an immutable field is
// Immutable too, not WouldPatch, and no audit problem.
func TestImmutableLeavesOthers(t *testing.T) {
	files := []File{
		patchFile(t, "1.kpatch", "[pod.p]\nmetadata.labels.one: \"1\"\n"),
		patchFile(t, "2.kpatch", "[pod.p]\nmetadata.labels.two: \"2\"\nspec.nodeName: n\n"),
		patchFile(t, "3.kpatch", "# kpatch:mode: audit\n[pod.p]\nspec.hostname: h\n"),
		patchFile(t, "4.kpatch", "[pod.p]\nmetadata.labels.four: \"4\"\n"),
	}
	for _, stream := range []bool{false, true} {
		runs, err := Run(context.Background(), []map[string]any{pod(podSpec())}, files, &Options{Operation: "UPDATE", Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		run := runs[0]
		if got, want := results(run.Files), "1.kpatch:patched 2.kpatch:immutable 3.kpatch:immutable 4.kpatch:patched"; got != want {
			t.Errorf("results %s, want %s", got, want)
		}
		labels := run.Out["metadata"].(map[string]any)["labels"].(map[string]any)
		if labels["one"] != "1" || labels["four"] != "4" || labels["two"] != nil {
			t.Errorf("labels %v", labels)
		}
		if !jsonvalue.Equal(run.Out["spec"], podSpec()) {
			t.Errorf("spec %v", run.Out["spec"])
		}
		if p := run.AuditProblems(); len(p) != 0 {
			t.Errorf("audit problems %s", results(p))
		}
	}
}

// TestImmutableChange: the table's rules on their own.
func TestImmutableChange(t *testing.T) {
	gated := func(gates ...string) map[string]any {
		s := podSpec()
		var l []any
		for _, g := range gates {
			l = append(l, map[string]any{"name": g})
		}
		s["schedulingGates"] = l
		return pod(s)
	}
	for _, tc := range []struct {
		name               string
		old, before, after map[string]any
		want               string
	}{
		{"gate removed", gated("a", "b"), gated("a", "b"), gated("a"), ""},
		{"gate added", gated("a"), gated("a"), gated("a", "b"), "spec.schedulingGates"},
		{"unchanged by the file", gated("a"), gated("a", "b"), gated("a", "b"), ""},
		{"another kind", configMap("c", nil), configMap("c", nil), configMap("c", map[string]any{"a": "b"}), ""},
		{"a storage request grown", claim("1Gi"), claim("1Gi"), claim("2Gi"), "spec.resources"},
		{"a storage request shrunk", claim("2Gi"), claim("2Gi"), claim("1500Mi"), "spec.resources"},
		{"a storage request set back to the stored one", claim("1Gi"), claim("2Gi"), claim("1Gi"), ""},
		{"a volume's capacity", volume("10Gi", "/a"), volume("10Gi", "/a"), volume("20Gi", "/a"), ""},
		{"a volume's source", volume("10Gi", "/a"), volume("10Gi", "/a"), volume("10Gi", "/b"), "spec.hostPath"},
	} {
		if got := immutableChange(func() map[string]any { return tc.old }, tc.before, tc.after); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func selectedDeployment() map[string]any {
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d"}, "spec": map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "d"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "d"}}},
	}}
}

func immutableConfigMap(immutable bool) map[string]any {
	cm := configMap("c", nil)
	cm["immutable"] = immutable
	return cm
}

// claim is a PersistentVolumeClaim requesting storage ("": none).
func claim(storage string) map[string]any {
	requests := map[string]any{}
	if storage != "" {
		requests["storage"] = storage
	}
	return map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": "data"}, "spec": map[string]any{
		"accessModes": []any{"ReadWriteOnce"},
		"resources":   map[string]any{"requests": requests},
	}}
}

// volume is a hostPath PersistentVolume.
func volume(capacity, path string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": map[string]any{"name": "pv"}, "spec": map[string]any{
		"capacity":    map[string]any{"storage": capacity},
		"accessModes": []any{"ReadWriteOnce"},
		"hostPath":    map[string]any{"path": path},
	}}
}
