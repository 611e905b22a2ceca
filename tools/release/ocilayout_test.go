package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// readLayoutTar unpacks the OCI image layout archive file into a new
// directory and returns it, after checking that the archive holds the
// layout at its root (oci-layout, index.json, blobs/sha256/...) and
// nothing else.
func readLayoutTar(t *testing.T, file string) layout.Path {
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
	return layout.Path(dir)
}
