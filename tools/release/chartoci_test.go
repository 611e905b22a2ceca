package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// checkChartLayout checks the chart's OCI artefact: an OCI image layout
// whose index.json names one manifest, tagged with the chart's version,
// whose config is the chart's metadata (Helm's config media type) and
// whose one layer is the packaged chart chartTgz (Helm's content media
// type), as `helm push chartTgz` would push it, and that Helm pulls from a
// registry it is pushed to.
func checkChartLayout(t *testing.T, file, chartTgz string) {
	t.Helper()
	p, _, desc := readLayoutTar(t, file, types.OCIManifestSchema1, "0.7.1-rc.1")
	raw, err := readBlob(p, desc.Digest.String())
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		MediaType string
		Config    struct{ MediaType, Digest string }
		Layers    []struct{ MediaType, Digest string }
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.MediaType != string(types.OCIManifestSchema1) || manifest.Config.MediaType != string(HelmConfigMediaType) ||
		len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != string(HelmChartMediaType) {
		t.Fatalf("the chart's manifest:\n%s", raw)
	}
	config, err := readBlob(p, manifest.Config.Digest)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Name, Version, AppVersion string }
	if err := json.Unmarshal(config, &meta); err != nil || meta.Name != "kpatch-webhook" || meta.Version != "0.7.1-rc.1" || meta.AppVersion != "0.7.1-rc.1" {
		t.Errorf("the chart's config (%v):\n%s", err, config)
	}
	content, err := readBlob(p, manifest.Layers[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(chartTgz)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(content, want) {
		t.Error("the chart's layer is not the packaged chart")
	}
	data, chartName, version := pullChartWithHelm(t, p, desc.Digest)
	if !bytes.Equal(data, want) || chartName != "kpatch-webhook" || version != "0.7.1-rc.1" {
		t.Errorf("helm pulls the chart %s %s, %d bytes; want kpatch-webhook 0.7.1-rc.1, the packaged chart's %d", chartName, version, len(data), len(want))
	}
}

// readBlob reads the blob of digest (sha256:HEX) from the layout, checking
// it against the digest.
func readBlob(p layout.Path, digest string) ([]byte, error) {
	h, err := v1.NewHash(digest)
	if err != nil {
		return nil, err
	}
	b, err := p.Bytes(h)
	if err != nil {
		return nil, err
	}
	if got := fmt.Sprintf("sha256:%x", sha256.Sum256(b)); got != digest {
		return nil, fmt.Errorf("blob %s has the digest %s", digest, got)
	}
	return b, nil
}
