package registry

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// benchmarkGlobFile measures finding and applying one [*.*] file to a
// Deployment of namespace team-a: the file a tenant's (held to the
// allowlist, its targets narrowed) or the admin's.
func benchmarkGlobFile(b *testing.B, tenant bool) {
	src := map[string]string{"all.kpatch": "[*.*]\nlabels.all: \"yes\"\n"}
	cm := configMap("admin", src)
	if tenant {
		cm = tenantCM("team-a", "mine", src)
	}
	reg := (&Compiler{RegistryNamespace: "kpatch-system"}).Build([]corev1.ConfigMap{cm}, nil).Registry
	opts := &apply.Options{ApplyOptions: kpatch.ApplyOptions{Namespace: "team-a"}}
	b.ReportAllocs()
	for b.Loop() {
		obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "team-a"}}
		files := reg.Candidates("Deployment", "team-a", "web")
		run, err := apply.RunObject(context.Background(), obj, files, opts)
		if err != nil || len(run.Files) != 1 {
			b.Fatalf("%v: %d files", err, len(run.Files))
		}
	}
}

// BenchmarkGlobFileTenant and BenchmarkGlobFileAdmin: what holding a
// tenant's file to the allowlist costs a request.
func BenchmarkGlobFileTenant(b *testing.B) { benchmarkGlobFile(b, true) }
func BenchmarkGlobFileAdmin(b *testing.B)  { benchmarkGlobFile(b, false) }
