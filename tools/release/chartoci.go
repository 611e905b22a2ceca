package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// The media types of a Helm chart stored in an OCI registry: its config
// (the chart's metadata as JSON) and its one layer (the packaged chart).
const (
	HelmConfigMediaType = types.MediaType("application/vnd.cncf.helm.config.v1+json")
	HelmChartMediaType  = types.MediaType("application/vnd.cncf.helm.chart.content.v1.tar+gzip")
)

// ChartLayoutArchive is the name of the chart's OCI artefact: an OCI image
// layout, in a tar, whose index.json names the chart's manifest.
func ChartLayoutArchive(version string) string {
	return fmt.Sprintf("kpatch-webhook-chart_%s.oci.tar", version)
}

// writeChartLayout writes, in the empty directory dir, the OCI image layout
// of the packaged chart chartTgz as `helm push` would push it: a manifest
// whose config is the chart's metadata (Chart.yaml as JSON) and whose one
// layer is chartTgz, named by the chart's version (+ written _, as Helm
// tags it). Its annotations are the chart's title, version, description and
// the time created.
func writeChartLayout(dir, chartTgz string, created time.Time) error {
	c, err := loader.LoadFile(chartTgz)
	if err != nil {
		return fmt.Errorf("loading the packaged chart: %w", err)
	}
	config, err := json.Marshal(c.Metadata)
	if err != nil {
		return err
	}
	content, err := os.ReadFile(chartTgz)
	if err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	blob := func(mt types.MediaType, data []byte) (v1.Descriptor, error) {
		h := v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", sha256.Sum256(data))}
		if err := p.WriteBlob(h, io.NopCloser(bytes.NewReader(data))); err != nil {
			return v1.Descriptor{}, err
		}
		return v1.Descriptor{MediaType: mt, Digest: h, Size: int64(len(data))}, nil
	}
	configDesc, err := blob(HelmConfigMediaType, config)
	if err != nil {
		return err
	}
	layerDesc, err := blob(HelmChartMediaType, content)
	if err != nil {
		return err
	}
	manifest, err := json.Marshal(v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		Config:        configDesc,
		Layers:        []v1.Descriptor{layerDesc},
		Annotations: map[string]string{
			"org.opencontainers.image.title":       c.Metadata.Name,
			"org.opencontainers.image.version":     c.Metadata.Version,
			"org.opencontainers.image.description": c.Metadata.Description,
			"org.opencontainers.image.created":     created.UTC().Format(time.RFC3339),
		},
	})
	if err != nil {
		return err
	}
	desc, err := blob(types.OCIManifestSchema1, manifest)
	if err != nil {
		return err
	}
	desc.Annotations = map[string]string{RefNameAnnotation: strings.ReplaceAll(c.Metadata.Version, "+", "_")}
	return p.AppendDescriptor(desc)
}
