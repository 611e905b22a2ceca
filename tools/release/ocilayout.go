package main

import (
	"archive/tar"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// RefNameAnnotation is the annotation of an OCI image layout's index.json
// entry that names it (the tag `crane push` and `skopeo copy oci-archive:`
// push it under unless told another).
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// writeLayoutTar writes the OCI image layout in dir (oci-layout,
// index.json, blobs/) to out as a tar, the layout at its root: entries in
// path order, owned by root, every time t, so that one layout gives one
// archive.
func writeLayoutTar(dir, out string, t time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: t, Format: tar.FormatPAX})
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: t, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
