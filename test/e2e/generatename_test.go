package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// imageEnv gives each container of a Pod whose name starts with web- an
// env IMAGE of its own image.
const imageEnv = "[pod.web-*.containers.*.env[-]]\nname: IMAGE\nvalue: ${item.image}\n"

// TestControllerPodsPatchedByNameGlob runs a kube-controller-manager
// (deployment and replicaset controllers only) against the API server: the
// ReplicaSet of a Deployment web creates its Pods with generateName
// web-<hash>- and no name, and the webhook admits them so; a file of
// target pod.web-* gives each of their two containers its own image as env
// IMAGE, and leaves the Pods of a Deployment api alone.
func TestControllerPodsPatchedByNameGlob(t *testing.T) {
	const ns = "generated"
	ctx := context.Background()
	var out lockedBuffer
	cm, err := env.StartControllerManager(&out, "deployment-controller", "replicaset-controller")
	if errors.Is(err, fs.ErrNotExist) && os.Getenv(cluster.RequireEnv) == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cm.Stop()
		if t.Failed() {
			t.Logf("kube-controller-manager:\n%s", out.String())
		}
	})
	namespace(t, ns, true)
	// the ServiceAccount admission plugin wants the Pods' ServiceAccount,
	// which no controller here makes
	if err := env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	registry(t, "generated", map[string]string{"image-env.kpatch": imageEnv})
	t.Cleanup(func() { // its pod.web-* is no other test's business
		_ = env.Client.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "generated", Namespace: cluster.RegistryNamespace}})
	})
	// the file is in force once a probe Pod named web-probe is patched
	eventually(t, 10*time.Second, func() error {
		probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-probe", Namespace: ns},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.25"}}}}
		if err := dryRunCreate(probe); err != nil {
			return err
		}
		if len(probe.Spec.Containers[0].Env) == 0 {
			return errors.New("the probe Pod is not patched yet")
		}
		return nil
	})

	for _, name := range []string{"web", "api"} {
		d := deployment(ns, name)
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: "nginx:1.25"}, {Name: "sidecar", Image: "busybox:1.36"}}
		if err := env.Client.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	pods := func(app string) ([]corev1.Pod, error) {
		var list corev1.PodList
		if err := env.Client.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{"app": app}); err != nil {
			return nil, err
		}
		if err := cm.Exited(); err != nil {
			t.Fatalf("kube-controller-manager: %v\n%s", err, out.String())
		}
		if len(list.Items) == 0 {
			return nil, fmt.Errorf("no Pod of %s yet", app)
		}
		return list.Items, nil
	}
	var web, api []corev1.Pod
	eventually(t, 2*time.Minute, func() (err error) {
		if web, err = pods("web"); err == nil {
			api, err = pods("api")
		}
		return err
	})

	for _, pod := range web {
		if !strings.HasPrefix(pod.GenerateName, "web-") || !strings.HasPrefix(pod.Name, pod.GenerateName) {
			t.Errorf("Pod %s of generateName %q: not made from a generateName", pod.Name, pod.GenerateName)
		}
		images := map[string]bool{}
		for _, c := range pod.Spec.Containers {
			if len(c.Env) != 1 || c.Env[0].Name != "IMAGE" || c.Env[0].Value != c.Image {
				t.Errorf("Pod %s, container %s of image %s: env %+v, want IMAGE=%s", pod.Name, c.Name, c.Image, c.Env, c.Image)
			}
			images[c.Image] = true
		}
		if len(images) != 2 {
			t.Errorf("Pod %s: images %v, want the two of the Deployment", pod.Name, images)
		}
	}
	for _, pod := range api {
		for _, c := range pod.Spec.Containers {
			if len(c.Env) != 0 {
				t.Errorf("Pod %s of Deployment api, container %s: env %+v, want none", pod.Name, c.Name, c.Env)
			}
		}
	}
}
