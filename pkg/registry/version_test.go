package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestVersion: a registry names the version of each file that applies by
// the digest of its content: the current one, or the last good one when
// the current content does not compile.
func TestVersion(t *testing.T) {
	good := "[deployment.web]\nreplicas: 2\n"
	cm := func(src, resourceVersion string) corev1.ConfigMap {
		return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "base", UID: "u1", ResourceVersion: resourceVersion}, Data: map[string]string{"web.kpatch": src}}
	}
	c := &Compiler{}
	b := c.Build([]corev1.ConfigMap{cm(good, "1")}, nil)
	if got, want := b.Registry.Version("base/web.kpatch"), Version(good); got != want || len(got) != 12 {
		t.Fatalf("version %q, want %q", got, want)
	}
	b = c.Build([]corev1.ConfigMap{cm("[deployment.web\n", "2")}, b.LastGood)
	if got, want := b.Registry.Version("base/web.kpatch"), Version(good); got != want {
		t.Errorf("with the last good version applying: version %q, want %q", got, want)
	}
	if got := b.Registry.Version("base/other.kpatch"); got != "" {
		t.Errorf("a file not in the registry has version %q", got)
	}
}
