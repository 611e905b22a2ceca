package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// replFile copies, into the Deployments repl-* of the namespace repl
// only, its own image tag into an env var and a new annotation, and the
// region of the source ConfigMap settings of its namespace into an
// annotation.
const replFile = `replacements:
- source:
    kind: Deployment
    fieldPath: spec.template.spec.containers.[name=app].image
    options: {delimiter: ':', index: 1}
  targets:
  - select: {kind: Deployment, name: repl-.*, namespace: repl}
    fieldPaths:
    - spec.template.spec.containers.[name=app].env.[name=VERSION].value
  - select: {kind: Deployment, name: repl-.*, namespace: repl}
    fieldPaths: [metadata.annotations.version]
    options: {create: true}
- source: {kind: ConfigMap, name: settings, fieldPath: data.region}
  targets:
  - select: {kind: Deployment, name: repl-.*, namespace: repl}
    fieldPaths: [metadata.annotations.region]
    options: {create: true}
`

// replWeb is a Deployment repl-<name>, whose env var VERSION has a
// placeholder. The tag 1.25 stays the string "1.25" in the new
// annotation (the number 1.25 the API server would refuse).
func replWeb(name string) *appsv1.Deployment {
	d := deployment("repl", "repl-"+name)
	d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "VERSION", Value: "unknown"}}
	return d
}

// envValue is the value of the env var name of the Deployment's first
// container, "" when unset.
func envValue(d *appsv1.Deployment, name string) string {
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// TestReplacementsAtAdmission: a replacements file of the registry copies
// a Deployment's image tag into its env, and a value of a ConfigMap
// labelled kpatch.dev/source=true of its namespace into an annotation;
// an edit of that ConfigMap reaches the next Deployment within 2 s.
func TestReplacementsAtAdmission(t *testing.T) {
	ctx := context.Background()
	namespace(t, "repl", true)
	settings := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "repl", Labels: map[string]string{"kpatch.dev/source": "true"}},
		Data:       map[string]string{"region": "eu-west-1"},
	}
	if err := env.Client.Create(ctx, settings); err != nil {
		t.Fatal(err)
	}
	registry(t, "replacements", map[string]string{"repl.yaml": replFile})
	eventually(t, 10*time.Second, func() error { return replaced(replWeb("dry"), "eu-west-1") })

	d := replWeb("web")
	if err := env.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	var stored appsv1.Deployment
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(d), &stored); err != nil {
		t.Fatal(err)
	}
	if envValue(&stored, "VERSION") != "1.25" || stored.Annotations["version"] != "1.25" || stored.Annotations["region"] != "eu-west-1" {
		t.Errorf("stored Deployment: env %v, annotations %v", stored.Spec.Template.Spec.Containers[0].Env, stored.Annotations)
	}

	settings.Data["region"] = "us-east-1"
	if err := env.Client.Update(ctx, settings); err != nil {
		t.Fatal(err)
	}
	took := eventually(t, 2*time.Second, func() error { return replaced(replWeb("next"), "us-east-1") })
	t.Logf("the ConfigMap's edit reached admission in %s", took)
}

// replaced dry-runs the creation of d and checks the replacements' result.
func replaced(d *appsv1.Deployment, region string) error {
	if err := dryRunCreate(d); err != nil {
		return err
	}
	if got := envValue(d, "VERSION"); got != "1.25" {
		return fmt.Errorf("VERSION = %q, want the image tag 1.25", got)
	}
	if got := d.Annotations["region"]; got != region {
		return fmt.Errorf("region = %q, want %q", got, region)
	}
	return nil
}
