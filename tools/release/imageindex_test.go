package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// standInImages writes docker-archives of two images, as make image does
// (one layer holding /webhook, a linux config), for amd64 and arm64: the
// binary is testdata/webhook built for this machine (its build info is
// what the SBOM reads), and returns the files by GOARCH and the binary.
func standInImages(t *testing.T) (map[string]string, []byte) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "webhook")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./testdata/webhook")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/webhook: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var layerTar bytes.Buffer
	tw := tar.NewWriter(&layerTar)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: WebhookPath, Mode: 0o555, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar.Bytes())), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	images := map[string]string{}
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := mutate.Append(empty.Image, mutate.Addendum{Layer: layer, History: v1.History{Created: v1.Time{Time: time.Unix(0, 0)}}})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		cfg = cfg.DeepCopy()
		cfg.OS, cfg.Architecture = "linux", arch
		if arch == "arm64" {
			cfg.Variant = "v8"
		}
		cfg.Config.Entrypoint = []string{"/" + WebhookPath}
		if img, err = mutate.ConfigFile(img, cfg); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "image-"+arch+".tar")
		if err := tarball.WriteToFile(file, mustTag(t, "kpatch-webhook:test"), img); err != nil {
			t.Fatal(err)
		}
		images[arch] = file
	}
	return images, data
}

// checkImageIndex checks the image index archive: an OCI image layout whose
// index.json names one OCI image index, tagged with the version without
// its v, holding an OCI image per GOARCH of images with its platform,
// whose config and layers are those of the docker-archive given for it
// (the same image ID and layer digests); every blob matches its digest; a
// registry takes it, and serves each platform its image. It returns the
// images' digests by GOARCH.
func checkImageIndex(t *testing.T, file string, images map[string]string) map[string]v1.Hash {
	t.Helper()
	_, top, desc := readLayoutTar(t, file, types.OCIImageIndex, "0.7.1-rc.1")
	idx, err := top.ImageIndex(desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Index(idx); err != nil {
		t.Fatalf("the image index does not hold what it names: %v", err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIImageIndex {
		t.Errorf("the index's media type is %s", m.MediaType)
	}
	var platforms []string
	digests := map[string]v1.Hash{}
	for _, d := range m.Manifests {
		if d.Platform == nil {
			t.Fatalf("the index names %s with no platform", d.Digest)
		}
		platforms = append(platforms, d.Platform.String())
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %s", d.Platform, d.MediaType)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		manifest, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if manifest.Config.MediaType != types.OCIConfigJSON || len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != types.OCILayer {
			t.Errorf("%s: config %s, layers %v", d.Platform, manifest.Config.MediaType, manifest.Layers)
		}
		docker, err := tarball.ImageFromPath(images[d.Platform.Architecture], nil)
		if err != nil {
			t.Fatal(err)
		}
		dockerManifest, err := docker.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if manifest.Config.Digest != dockerManifest.Config.Digest || manifest.Layers[0].Digest != dockerManifest.Layers[0].Digest {
			t.Errorf("%s: config %s, layer %s; the docker-archive's %s, %s", d.Platform,
				manifest.Config.Digest, manifest.Layers[0].Digest, dockerManifest.Config.Digest, dockerManifest.Layers[0].Digest)
		}
		digests[d.Platform.Architecture] = d.Digest
	}
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64/v8"}) {
		t.Errorf("the index's platforms are %q", platforms)
	}
	pushImageIndex(t, idx, digests)
	return digests
}

// TestImageIndexRefusesAnImageOfAnotherArchitecture: an image archive given
// for one GOARCH whose config names another is an error, not an index
// entry that would send arm64 nodes an amd64 image.
func TestImageIndexRefusesAnImageOfAnotherArchitecture(t *testing.T) {
	images, _ := standInImages(t)
	img, err := ociImage(images["amd64"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := imageIndex(map[string]v1.Image{"arm64": img}, []string{"arm64"}); err == nil {
		t.Error("an amd64 image given for arm64 was put in the index")
	}
}

func mustTag(t *testing.T, s string) name.Tag {
	t.Helper()
	tag, err := name.NewTag(s)
	if err != nil {
		t.Fatal(err)
	}
	return tag
}
