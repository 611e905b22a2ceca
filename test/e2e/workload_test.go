package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// workloadMirror rewrites the registry of every image of every workload
// kind, in containers and init containers, in one section.
const workloadMirror = "[@workload.*.allContainers]\nimage.registry: mirror.internal:5000\n"

// TestOneSectionMirrorsEveryWorkload creates a Deployment with an init
// container and a CronJob in an opted-in namespace: one registry file
// rewrites all their images.
func TestOneSectionMirrorsEveryWorkload(t *testing.T) {
	const ns = "workloads"
	namespace(t, ns, true)
	routeCronJobs(t, ns)
	registry(t, "workloads", map[string]string{"mirror.kpatch": workloadMirror})

	d := deployment(ns, "mirrored") // a name no other test's registry file targets
	d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "busybox:1.36"}}
	eventually(t, 10*time.Second, func() error {
		probe := d.DeepCopy()
		if err := dryRunCreate(probe); err != nil {
			return err
		}
		if got := probe.Spec.Template.Spec.Containers[0].Image; got != "mirror.internal:5000/nginx:1.25" {
			return fmt.Errorf("not patched yet: %s", got)
		}
		return nil
	})
	ctx := context.Background()
	if err := env.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	spec := d.Spec.Template.Spec
	if spec.Containers[0].Image != "mirror.internal:5000/nginx:1.25" || spec.InitContainers[0].Image != "mirror.internal:5000/busybox:1.36" {
		t.Errorf("deployment images: %s, init %s", spec.Containers[0].Image, spec.InitContainers[0].Image)
	}

	cj := cronJob(ns, "nightly")
	eventually(t, 10*time.Second, func() error {
		probe := cj.DeepCopy()
		if err := dryRunCreate(probe); err != nil {
			return err
		}
		if got := probe.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image; got != "mirror.internal:5000/example/report:2.0" {
			return fmt.Errorf("cronjob not patched yet: %s", got)
		}
		return nil
	})
	if err := env.Client.Create(ctx, cj); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cj), cj); err != nil {
		t.Fatal(err)
	}
	if got := cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image; got != "mirror.internal:5000/example/report:2.0" {
		t.Errorf("stored cronjob image: %s", got)
	}
}

func cronJob(ns, name string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: batchv1.CronJobSpec{
			Schedule: "0 3 * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyOnFailure,
					Containers:    []corev1.Container{{Name: "report", Image: "example/report:2.0"}},
				},
			}}},
		},
	}
}

// routeCronJobs sends the CronJobs of namespace ns to the webhook too:
// the shared cluster's configuration covers deployments, pods, services
// and configmaps. It adds a configuration of its own, a copy of the
// shared one's webhook for batch/v1 cronjobs in ns, removed at the end.
func routeCronJobs(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	var shared admissionregistrationv1.MutatingWebhookConfiguration
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "kpatch"}, &shared); err != nil {
		t.Fatal(err)
	}
	wh := *shared.Webhooks[0].DeepCopy()
	wh.Name = "cronjobs.kpatch.dev"
	wh.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	wh.Rules = []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"batch"}, APIVersions: []string{"v1"}, Resources: []string{"cronjobs"}},
	}}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kpatch-cronjobs"},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{wh},
	}
	if err := env.Client.Create(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cfg) })
}
