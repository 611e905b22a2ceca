package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ImageIndexArchive is the name of the multi-architecture image's
// archive: an OCI image layout, in a tar, whose index.json names the image
// index of every architecture's image.
func ImageIndexArchive(version string) string {
	return fmt.Sprintf("kpatch-webhook-image_%s.oci.tar", version)
}

// WebhookPath is where the webhook binary is in the image (tools/imagebuild).
const WebhookPath = "webhook"

// ociImage reads the docker-archive at file (make image) as an image with
// the OCI media types (manifest, config, layers): the same config and
// layer blobs, so the same image ID and layer digests, under a manifest an
// OCI image index can name.
func ociImage(file string) (v1.Image, error) {
	img, err := tarball.ImageFromPath(file, nil)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	oci := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	adds := make([]mutate.Addendum, 0, len(layers))
	for _, l := range layers {
		adds = append(adds, mutate.Addendum{Layer: l, MediaType: types.OCILayer})
	}
	if oci, err = mutate.Append(oci, adds...); err != nil {
		return nil, err
	}
	return mutate.ConfigFile(oci, cfg)
}

// imageIndex is the OCI image index of images (by GOARCH, in the order of
// arches), each entry with the platform its config names, which must be
// linux and the GOARCH it is given for.
func imageIndex(images map[string]v1.Image, arches []string) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range arches {
		cfg, err := images[arch].ConfigFile()
		if err != nil {
			return nil, err
		}
		p := cfg.Platform()
		if p == nil || p.OS != "linux" || p.Architecture != arch {
			return nil, fmt.Errorf("the image given for %s is for %v", arch, p)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: images[arch], Descriptor: v1.Descriptor{Platform: p}})
	}
	return idx, nil
}

// imageBinary is the webhook binary of img (WebhookPath in its layers).
func imageBinary(img v1.Image) ([]byte, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the image has no /%s", WebhookPath)
		}
		if err != nil {
			return nil, err
		}
		if strings.TrimPrefix(path.Clean("/"+h.Name), "/") == WebhookPath && h.Typeflag == tar.TypeReg {
			return io.ReadAll(tr)
		}
	}
}
