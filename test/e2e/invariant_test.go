package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// invariantFiles copy the image tag into an annotation, bind integer,
// number and boolean values (3, 1.10, true, yes) into annotations and
// labels, and copy a
// ConfigMap's imagePullPolicy, Allways, into every container, and a
// label value with a space: the API server would refuse those two.
var invariantFiles = map[string]string{
	"tag.yaml": `replacements:
- source:
    kind: Deployment
    fieldPath: spec.template.spec.containers.[name=app].image
    options: {delimiter: ':', index: 1}
  targets:
  - select: {kind: Deployment, namespace: invariant}
    fieldPaths: [metadata.annotations.version]
    options: {create: true}
`,
	"values.kpatch": "[invariant/deployment.*]\nannotations.replicas: ${values.replicas}\nlabels.enabled: ${values.enabled}\nannotations.release: ${values.release}\nlabels.stable: ${values.stable}\n",
	"values.yaml":   "values:\n  replicas: 3\n  enabled: true\n  release: 1.10\n  stable: yes\n  team: web shop\n",
	"team.kpatch":   "[invariant/deployment.*]\nlabels.team: ${values.team}\n",
	"policy.yaml": `replacements:
- source: {kind: ConfigMap, name: pull, fieldPath: data.policy}
  targets:
  - select: {kind: Deployment, namespace: invariant}
    fieldPaths: ["spec.template.spec.containers.[name=app].imagePullPolicy"]
    options: {create: true}
`,
}

// TestEveryAnswerIsAccepted: with a registry whose files write a tag, an
// integer and a boolean into string fields and an imagePullPolicy outside
// its values, every Deployment is admitted; the tag 1.0 is stored as the
// string "1.0", the values as values.yaml wrote them, and the file that
// would make the object refused is left out with a warning naming it,
// the field and the reason.
func TestEveryAnswerIsAccepted(t *testing.T) {
	const ns = "invariant"
	ctx := context.Background()
	namespace(t, ns, true)
	pull := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "pull", Namespace: ns, Labels: map[string]string{"kpatch.dev/source": "true"}},
		Data:       map[string]string{"policy": "Allways"},
	}
	if err := env.Client.Create(ctx, pull); err != nil {
		t.Fatal(err)
	}
	registry(t, "invariant", invariantFiles)
	var warnings warningRecorder
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	web := func(name string) *appsv1.Deployment {
		d := deployment(ns, name)
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.0"
		return d
	}
	eventually(t, 10*time.Second, func() error {
		probe := web("probe")
		if err := c.Create(ctx, probe, client.DryRunAll); err != nil {
			return err
		}
		if probe.Annotations["version"] == "" || probe.Labels["enabled"] == "" {
			return fmt.Errorf("not patched yet: %v %v", probe.Annotations, probe.Labels)
		}
		return nil
	})

	for _, name := range []string{"web", "api", "worker"} {
		warnings = warningRecorder{}
		d := web(name)
		if err := c.Create(ctx, d); err != nil {
			t.Fatalf("Deployment %s refused: %v", name, err)
		}
		var stored appsv1.Deployment
		if err := c.Get(ctx, client.ObjectKeyFromObject(d), &stored); err != nil {
			t.Fatal(err)
		}
		if got := stored.Annotations["version"]; got != "1.0" {
			t.Errorf("%s: annotation version %q, want the tag's text 1.0", name, got)
		}
		if got := stored.Annotations["replicas"]; got != "3" {
			t.Errorf("%s: annotation replicas %q, want 3", name, got)
		}
		if got := stored.Labels["enabled"]; got != "true" {
			t.Errorf("%s: label enabled %q, want true", name, got)
		}
		if got := stored.Annotations["release"]; got != "1.10" {
			t.Errorf("%s: annotation release %q, want the value's text 1.10", name, got)
		}
		if got := stored.Labels["stable"]; got != "yes" {
			t.Errorf("%s: label stable %q, want the value's text yes", name, got)
		}
		if got := stored.Spec.Template.Spec.Containers[0].ImagePullPolicy; got == "Allways" {
			t.Errorf("%s: imagePullPolicy %q stored", name, got)
		}
		w := warnings.String()
		if got, ok := stored.Labels["team"]; ok {
			t.Errorf("%s: label team %q stored", name, got)
		}
		for _, part := range []string{"policy.yaml", "not applied", "imagePullPolicy", `"Allways" is not one of Always, IfNotPresent, Never`,
			"team.kpatch", `metadata.labels.team: "web shop" is not a valid label value`} {
			if !strings.Contains(w, part) {
				t.Errorf("%s: the warning %q does not say %q", name, w, part)
			}
		}
	}
}
