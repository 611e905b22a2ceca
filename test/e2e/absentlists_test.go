package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// absentListFiles move every image to a mirror and turn off message
// lookups in every init container, written on the lists themselves: a
// Deployment without init containers must be admitted as it is there.
var absentListFiles = map[string]string{
	"mirror.kpatch": "[absentlists/deployment.*.containers]\nimage.registry: mirror.internal:5000\n" +
		"[absentlists/deployment.*.initContainers]\nimage.registry: mirror.internal:5000\n",
	"lookups.kpatch": "[absentlists/deployment.*.initContainers.env[-]]\nname: LOG4J_FORMAT_MSG_NO_LOOKUPS\nvalue: \"true\"\n",
}

// TestEveryItemOfAbsentListAtAdmission: files that write on every init
// container patch a Deployment that has one, and admit one without init
// containers with its containers patched and no init container made up,
// with no warning.
func TestEveryItemOfAbsentListAtAdmission(t *testing.T) {
	const ns = "absentlists"
	namespace(t, ns, true)
	registry(t, "absentlists", absentListFiles)
	var warnings warningRecorder
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	with := deployment(ns, "with-init")
	with.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "busybox:1.36"}}
	eventually(t, 10*time.Second, func() error {
		probe := with.DeepCopy()
		if err := c.Create(ctx, probe, client.DryRunAll); err != nil {
			return err
		}
		init := probe.Spec.Template.Spec.InitContainers
		if len(init) != 1 || init[0].Image != "mirror.internal:5000/busybox:1.36" || len(init[0].Env) != 1 {
			return fmt.Errorf("not patched yet: %+v", init)
		}
		return nil
	})

	without := deployment(ns, "without-init")
	if err := c.Create(ctx, without); err != nil {
		t.Fatalf("a Deployment without init containers was refused: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(without), without); err != nil {
		t.Fatal(err)
	}
	spec := without.Spec.Template.Spec
	if spec.Containers[0].Image != "mirror.internal:5000/nginx:1.25" {
		t.Errorf("container image %s, want the mirror's", spec.Containers[0].Image)
	}
	if spec.InitContainers != nil {
		t.Errorf("init containers made up: %+v", spec.InitContainers)
	}
	if w := warnings.String(); w != "" {
		t.Errorf("warnings: %s", w)
	}
}
