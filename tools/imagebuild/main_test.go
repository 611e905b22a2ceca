package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// fixture writes a stand-in binary and a license file and returns the
// arguments of imagebuild for them, writing to dir/image.tar.
func fixture(t *testing.T, dir string) []string {
	t.Helper()
	bin, lic := filepath.Join(dir, "webhook"), filepath.Join(dir, "LICENSE")
	if err := os.WriteFile(bin, []byte("\x7fELF not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lic, []byte("license text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"-binary", bin, "-file", "licenses/LICENSE=" + lic, "-arch", "arm64",
		"-created", "2026-03-04T05:06:07+01:00", "-version", "v0.3.0", "-revision", "abc123",
		"-source", "https://example.invalid/kpatch", "-tag", "example.invalid/kpatch-webhook:0.3.0",
		"-o", filepath.Join(dir, "image.tar"),
	}
}

func TestImageConfigAndFiles(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(fixture(t, dir), &out); err != nil {
		t.Fatal(err)
	}
	tag, err := name.NewTag("example.invalid/kpatch-webhook:0.3.0")
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(filepath.Join(dir, "image.tar"), &tag)
	if err != nil {
		t.Fatalf("the archive does not load as a docker-archive of the tag: %v", err)
	}
	digest, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), digest.String()) {
		t.Errorf("printed %q, not the digest %s", out.String(), digest)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 3, 4, 4, 6, 7, 0, time.UTC)
	if cfg.Config.User != "65532:65532" || !slices.Equal(cfg.Config.Entrypoint, []string{"/webhook"}) || len(cfg.Config.Cmd) != 0 {
		t.Errorf("user %q, entrypoint %q, cmd %q", cfg.Config.User, cfg.Config.Entrypoint, cfg.Config.Cmd)
	}
	if cfg.OS != "linux" || cfg.Architecture != "arm64" || !cfg.Created.Equal(created) {
		t.Errorf("platform %s/%s, created %v", cfg.OS, cfg.Architecture, cfg.Created)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.title":    "kpatch-webhook",
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.version":  "v0.3.0",
		"org.opencontainers.image.revision": "abc123",
		"org.opencontainers.image.source":   "https://example.invalid/kpatch",
		"org.opencontainers.image.created":  "2026-03-04T04:06:07Z",
	}
	for k, v := range wantLabels {
		if cfg.Config.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cfg.Config.Labels[k], v)
		}
	}
	if cfg.Config.Labels["org.opencontainers.image.description"] == "" {
		t.Error("no description label")
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want 1", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var got []string
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(created) {
			t.Errorf("%s: owner %d:%d, time %v", h.Name, h.Uid, h.Gid, h.ModTime)
		}
		got = append(got, h.Name+" "+os.FileMode(h.Mode).String())
	}
	want := []string{"webhook -r-xr-xr-x", "licenses/ -rwxr-xr-x", "licenses/LICENSE -r--r--r--"}
	if !slices.Equal(got, want) {
		t.Errorf("layer holds %q, want %q", got, want)
	}
}

// TestImageIsReproducible: the same inputs give the same archive, byte for
// byte, and so the same digest; a different revision gives another.
func TestImageIsReproducible(t *testing.T) {
	build := func(extra ...string) []byte {
		dir := t.TempDir()
		if err := run(append(fixture(t, dir), extra...), io.Discard); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "image.tar"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first, second := build(), build()
	if !bytes.Equal(first, second) {
		t.Error("two builds of the same inputs differ")
	}
	if bytes.Equal(first, build("-revision", "def456")) {
		t.Error("a build of another revision is the same")
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{},
		{"-binary", filepath.Join(dir, "missing"), "-o", filepath.Join(dir, "x.tar")},
		{"-binary", "b", "-o", "o", "-file", "no-equals"},
		{"-binary", "b", "-o", "o", "-created", "yesterday"},
		{"-binary", "b", "-o", "o", "extra"},
	} {
		if err := run(args, io.Discard); err == nil {
			t.Errorf("imagebuild %q: no error", args)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.tar")); !os.IsNotExist(err) {
		t.Errorf("a failed build left its archive: %v", err)
	}
}
