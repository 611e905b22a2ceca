package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// readLayoutTar unpacks the OCI image layout archive file into a new
// directory and returns it, its index.json and the one manifest that
// names, after checking that the archive holds the layout at its root
// (oci-layout, index.json, blobs/sha256/...) and nothing else, and that
// index.json names one manifest, of mediaType, tagged tag.
func readLayoutTar(t *testing.T, file string, mediaType types.MediaType, tag string) (layout.Path, v1.ImageIndex, v1.Descriptor) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	tr := tar.NewReader(f)
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name != "oci-layout" && name != "index.json" && name != "blobs" && name != "blobs/sha256" && !strings.HasPrefix(name, "blobs/sha256/") {
			t.Fatalf("%s holds %s, not part of an OCI image layout", file, h.Name)
		}
		seen[name] = true
		path := filepath.Join(dir, filepath.FromSlash(name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !seen["oci-layout"] || !seen["index.json"] {
		t.Fatalf("%s lacks oci-layout or index.json", file)
	}
	p := layout.Path(dir)
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].MediaType != mediaType || m.Manifests[0].Annotations[RefNameAnnotation] != tag {
		t.Fatalf("%s: index.json names %+v, want one %s tagged %s", file, m.Manifests, mediaType, tag)
	}
	return p, idx, m.Manifests[0]
}
