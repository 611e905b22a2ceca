package chart

import (
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
)

// TestClientCA: tls.clientCA mounts the Secret or ConfigMap holding the
// API server's client CA and passes it as --client-ca-file, and the
// readiness probe, which has no client certificate, moves to the probes'
// port; without it nothing changes. Both a Secret and a ConfigMap is an
// error.
func TestClientCA(t *testing.T) {
	for _, c := range []struct {
		name     string
		values   map[string]any
		file     string // --client-ca-file, "" for none
		secret   string
		cm       string
		certsDir bool // the cert-manager volume too
	}{
		{name: "none", values: nil},
		{name: "secret", values: map[string]any{"tls": map[string]any{"clientCA": map[string]any{"secretName": "apiserver-client-ca"}}},
			file: "/client-ca/ca.crt", secret: "apiserver-client-ca"},
		{name: "configmap with cert-manager", values: map[string]any{"tls": map[string]any{
			"certManager": map[string]any{"enabled": true},
			"clientCA":    map[string]any{"configMapName": "apiserver-client-ca", "key": "client-ca.pem"},
		}}, file: "/client-ca/client-ca.pem", cm: "apiserver-client-ca", certsDir: true},
	} {
		d := typed[appsv1.Deployment](t, render(t, c.values), "Deployment")
		pod := d.Spec.Template.Spec
		container := pod.Containers[0]
		var file string
		for _, a := range container.Args {
			if v, ok := strings.CutPrefix(a, "--client-ca-file="); ok {
				file = v
			}
		}
		if file != c.file {
			t.Errorf("%s: --client-ca-file %q, want %q", c.name, file, c.file)
		}
		var mounts, volumes []string
		for _, m := range container.VolumeMounts {
			mounts = append(mounts, m.Name+":"+m.MountPath)
		}
		var secret, cm string
		for _, v := range pod.Volumes {
			volumes = append(volumes, v.Name)
			if v.Name != "client-ca" {
				continue
			}
			if v.Secret != nil {
				secret = v.Secret.SecretName
			}
			if v.ConfigMap != nil {
				cm = v.ConfigMap.Name
			}
		}
		if secret != c.secret || cm != c.cm {
			t.Errorf("%s: client CA volume of Secret %q, ConfigMap %q, want %q, %q", c.name, secret, cm, c.secret, c.cm)
		}
		if got, want := slices.Contains(mounts, "client-ca:/client-ca"), c.file != ""; got != want {
			t.Errorf("%s: mounts %v", c.name, mounts)
		}
		if got := slices.Contains(volumes, "tls") && slices.Contains(mounts, "tls:/tls"); got != c.certsDir {
			t.Errorf("%s: cert-manager volume %v, mounts %v", c.name, volumes, mounts)
		}
		probe := container.ReadinessProbe.HTTPGet
		if c.file != "" && (probe.Port.String() != "probes" || probe.Scheme == "HTTPS") ||
			c.file == "" && (probe.Port.String() != "webhook" || probe.Scheme != "HTTPS") {
			t.Errorf("%s: readiness probe %+v", c.name, probe)
		}
	}

	ch := loadChart(t)
	values := map[string]any{"tls": map[string]any{"clientCA": map[string]any{"secretName": "a", "configMapName": "b"}}}
	rv, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, capabilities())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Render(ch, rv); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("a Secret and a ConfigMap: %v", err)
	}
}
