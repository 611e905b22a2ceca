package chart

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const gitopsDoc = "../../docs/gitops.md"

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestGitOpsDocIgnoresBothCABundles: every webhook configuration the
// defaults render, whose caBundle and path the webhook writes, has both
// fields ignored in docs/gitops.md's Argo CD Application and Flux
// HelmRelease, under the name the chart gives it.
func TestGitOpsDocIgnoresBothCABundles(t *testing.T) {
	src, err := os.ReadFile(gitopsDoc)
	if err != nil {
		t.Fatal(err)
	}
	var argo struct {
		Spec struct {
			IgnoreDifferences []struct {
				Kind, Name        string
				JQPathExpressions []string `json:"jqPathExpressions"`
			} `json:"ignoreDifferences"`
		}
	}
	var flux struct {
		Spec struct {
			DriftDetection struct {
				Ignore []struct {
					Paths  []string
					Target struct{ Kind, Name string }
				}
			} `json:"driftDetection"`
		}
	}
	for _, m := range yamlBlock.FindAllStringSubmatch(string(src), -1) {
		switch {
		case strings.Contains(m[1], "kind: Application\n"):
			err = yaml.Unmarshal([]byte(m[1]), &argo)
		case strings.Contains(m[1], "kind: HelmRelease\n"):
			err = yaml.Unmarshal([]byte(m[1]), &flux)
		}
		if err != nil {
			t.Fatalf("%s: %v", gitopsDoc, err)
		}
	}
	configs := 0
	for _, u := range render(t, nil) {
		kind := u.GetKind()
		if kind != "MutatingWebhookConfiguration" && kind != "ValidatingWebhookConfiguration" {
			continue
		}
		configs++
		argoIgnores, fluxIgnores := "", ""
		for _, d := range argo.Spec.IgnoreDifferences {
			if d.Kind == kind && d.Name == u.GetName() {
				argoIgnores += strings.Join(d.JQPathExpressions, " ")
			}
		}
		for _, d := range flux.Spec.DriftDetection.Ignore {
			if d.Target.Kind == kind && d.Target.Name == u.GetName() {
				fluxIgnores += strings.Join(d.Paths, " ")
			}
		}
		for _, field := range []string{"clientConfig.caBundle", "clientConfig.service.path"} {
			if !strings.Contains(argoIgnores, ".webhooks[]?."+field) {
				t.Errorf("%s: Argo CD's ignoreDifferences leave %s of %s %s", gitopsDoc, field, kind, u.GetName())
			}
			if !strings.Contains(fluxIgnores, "/webhooks/0/"+strings.ReplaceAll(field, ".", "/")) {
				t.Errorf("%s: Flux's drift detection does not ignore %s of %s %s", gitopsDoc, field, kind, u.GetName())
			}
		}
	}
	if configs != 2 {
		t.Errorf("the defaults render %d webhook configurations, want 2", configs)
	}
}
