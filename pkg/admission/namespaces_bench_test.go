package admission

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// benchNamespaces returns n Namespaces team-0 to team-<n-1>, each with its
// own value of team and a label, as the webhook keeps them (informed).
func benchNamespaces(n int) (informed.Namespaces, []string) {
	var nss informed.InformedNamespaces
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("team-%d", i)
		ns := namespace(names[i], map[string]string{"values.kpatch.dev/team": names[i], "owner": "platform"})
		ns.UID, ns.ResourceVersion = types.UID("uid-"+ns.Name), "1"
		nss.OnAdd(ns, true)
	}
	return &nss, names
}

// BenchmarkBindNamespaceValues is the per-namespace values of one
// request alone (Registry.BindObject with the Namespace of the Handler's
// cluster, as admit.Admit binds them, each binding cached): a file reading
// a parameter each Namespace sets, one reading a label of the Namespace,
// over n Namespaces in turn.
func BenchmarkBindNamespaceValues(b *testing.B) {
	for _, n := range []int{300, 3000} {
		b.Run(fmt.Sprintf("namespaces=%d", n), func(b *testing.B) {
			var c registry.Compiler
			reg := c.Build([]corev1.ConfigMap{valuesConfigMap}, nil).Registry
			nss, names := benchNamespaces(n)
			cluster := (*informedCluster)(&Handler{Namespaces: nss})
			obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}}
			patches := reg.Candidates("Deployment", names[0], "web")
			bind := func(namespace string) []apply.FileRun {
				ref := kpatch.RefOf(obj, namespace)
				ns, _ := cluster.Namespace(namespace)
				_, failed := reg.BindObject(patches, registry.NewObjectContext("Deployment", &ref, ns.Namespace(), ns.Values(), obj))
				return failed
			}
			for _, name := range names { // every binding made once, then cached
				bind(name)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if failed := bind(names[i%n]); len(failed) > 0 {
					b.Fatal(failed[0].Err)
				}
				i++
			}
		})
	}
}

// BenchmarkReplacementNamespaceSource is what a request's replacements
// pay to read their sources (informedCluster.Read): the object's
// Namespace as a decoded object, over n Namespaces in turn.
func BenchmarkReplacementNamespaceSource(b *testing.B) {
	for _, n := range []int{300, 3000} {
		b.Run(fmt.Sprintf("namespaces=%d", n), func(b *testing.B) {
			nss, names := benchNamespaces(n)
			src := (*informedCluster)(&Handler{Namespaces: nss})
			for _, name := range names { // each Namespace read once
				src.Read(name)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if sources, _ := src.Read(names[i%n]); len(sources) != 1 {
					b.Fatal("no Namespace")
				}
				i++
			}
		})
	}
}
