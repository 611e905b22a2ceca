package registry

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// TestCandidatesAreTheFilesThatMatch holds the index to the engine's own
// matching: for a request that names the object, the candidates are
// exactly the files with a target that matches it (whatever the group);
// for one without a name, every file that matches the namespace with any
// name.
func TestCandidatesAreTheFilesThatMatch(t *testing.T) {
	targets := []string{
		"deployment.web", "deployment.[web]", "deployment.we*", "deployment.w?b", "deployment.*", "deployment.*eb",
		"shop/deployment.web", "sh*/deployment.*", "shop/deployment.x*", "other/deployment.web", "*p/deployment.web",
		`deployment.we\*`, "deployment(apps).web", "deployment(apps/v1).*", "Deployment.web-1", "deployment.web-*",
		"s?op/deployment.*", "shop-*/deployment.*",
	}
	data := map[string]string{}
	for i, target := range targets {
		data[fmt.Sprintf("f%02d.kpatch", i)] = "[" + target + "]\nreplicas: 2\n"
	}
	data["pod.kpatch"] = "[pod.web]\nlabels.a: b\n"
	data["multi.kpatch"] = "[other/deployment.x]\nreplicas: 2\n[deployment.web-2]\nreplicas: 3\n"
	var c Compiler
	built := c.Build([]corev1.ConfigMap{configMap("reg", data)}, nil)
	reg := built.Registry
	if len(built.Problems) > 0 {
		t.Fatal(built.Problems)
	}
	for _, ns := range []string{"shop", "other", "", "shop-1", "sp"} {
		for _, name := range []string{"web", "web-1", "web-2", "we*", "x", "w", "", "webx"} {
			var want []string
			ref := kpatch.ObjectRef{Kind: "Deployment", Namespace: ns, Name: name}
			for _, p := range reg.Patches("Deployment") {
				if anyTargetMatches(p, ref, name == "") {
					want = append(want, p.Name())
				}
			}
			var got []string
			for _, p := range reg.Candidates("Deployment", ns, name) {
				got = append(got, p.Name())
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s/%s: candidates %v, want %v", ns, name, got, want)
			}
		}
	}
	if got := reg.Candidates("Pod", "shop", "web"); len(got) != 1 {
		t.Errorf("pods: %d candidates", len(got))
	}
	if got := reg.Candidates("Service", "shop", "web"); got != nil {
		t.Errorf("services: %d candidates", len(got))
	}
}

// anyTargetMatches is the engine's matching, any group, any name when
// anyName.
func anyTargetMatches(p *kpatch.Patch, ref kpatch.ObjectRef, anyName bool) bool {
	f := p.File()
	var all []kpatch.Target
	for _, m := range f.Merges {
		all = append(all, m.Target)
	}
	for _, s := range f.Sections {
		all = append(all, s.Target)
	}
	for _, t := range all {
		t.HasGroup = false
		if anyName {
			t.Name, t.NameLiteral = "*", false
		}
		if t.Matches(&ref) {
			return true
		}
	}
	return false
}

// TestCandidatesOfAnObjectWithOnlyGenerateName: a request without a name
// (a CREATE with metadata.generateName) finds, among its candidates, every
// file whose target matches the object by its generateName.
func TestCandidatesOfAnObjectWithOnlyGenerateName(t *testing.T) {
	data := map[string]string{
		"glob.kpatch":    "[pod.web-*]\nlabels.a: b\n",
		"suffix.kpatch":  "[pod.*-api]\nlabels.a: b\n",
		"literal.kpatch": "[pod.[web-7d9f-]]\nlabels.a: b\n",
		"ns.kpatch":      "[shop/pod.w*]\nlabels.a: b\n",
	}
	var c Compiler
	built := c.Build([]corev1.ConfigMap{configMap("reg", data)}, nil)
	if len(built.Problems) > 0 {
		t.Fatal(built.Problems)
	}
	reg := built.Registry
	matched := 0
	for _, ns := range []string{"shop", "other"} {
		for _, generateName := range []string{"web-7d9f-", "api-", "x-"} {
			ref := kpatch.ObjectRef{Kind: "Pod", Namespace: ns, GenerateName: generateName}
			candidates := reg.Candidates("Pod", ns, "")
			for _, p := range reg.Patches("Pod") {
				if !anyTargetMatches(p, ref, false) {
					continue
				}
				matched++
				if !slices.ContainsFunc(candidates, func(f apply.File) bool { return f.Name() == p.Name() }) {
					t.Errorf("%s/%s*: %s matches, not a candidate", ns, generateName, p.Name())
				}
			}
		}
	}
	// shop: web-7d9f- by glob, suffix and ns, api- and x- by suffix; other
	// the same without ns
	if matched != 9 {
		t.Errorf("%d matches, want 9", matched)
	}
}
