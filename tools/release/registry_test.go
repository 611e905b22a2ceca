package main

import (
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	helmregistry "helm.sh/helm/v3/pkg/registry"
)

// testRegistry serves an OCI distribution registry in memory for the
// test and returns its host:port.
func testRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// pushImageIndex pushes the image index of the layout p, as
// `crane push DIR` does, to a registry, and checks that a pull for each
// platform gets the image of that digest.
func pushImageIndex(t *testing.T, idx v1.ImageIndex, digests map[string]v1.Hash) {
	t.Helper()
	ref, err := name.NewTag(testRegistry(t)+"/kpatch-webhook:0.7.1-rc.1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatalf("pushing the image index: %v", err)
	}
	for arch, want := range digests {
		p := v1.Platform{OS: "linux", Architecture: arch}
		img, err := remote.Image(ref, remote.WithPlatform(p))
		if err != nil {
			t.Fatalf("pulling %s for %s: %v", ref, p, err)
		}
		if got, err := img.Digest(); err != nil || got != want {
			t.Errorf("a pull for %s gets %s (%v), want %s", p, got, err, want)
		}
	}
}

// pullChartWithHelm pushes the chart's manifest of the layout p (digest
// manifest) to a registry, then pulls it with Helm's registry client (as
// `helm pull oci://...` does) and returns what Helm reads as the chart's
// archive and its name and version.
func pullChartWithHelm(t *testing.T, p layout.Path, manifest v1.Hash) (data []byte, chartName, version string) {
	t.Helper()
	img, err := p.Image(manifest)
	if err != nil {
		t.Fatal(err)
	}
	host := testRegistry(t)
	ref, err := name.NewTag(host+"/charts/kpatch-webhook:0.7.1-rc.1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatalf("pushing the chart: %v", err)
	}
	client, err := helmregistry.NewClient(helmregistry.ClientOptPlainHTTP(),
		helmregistry.ClientOptCredentialsFile(filepath.Join(t.TempDir(), "config.json")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.Pull(host + "/charts/kpatch-webhook:0.7.1-rc.1")
	if err != nil {
		t.Fatalf("helm pull: %v", err)
	}
	return res.Chart.Data, res.Chart.Meta.Name, res.Chart.Meta.Version
}
