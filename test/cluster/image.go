package cluster

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
)

// ImageEnv names the environment variable that points at the webhook's
// image archive (a docker-archive, as `make image` writes it). When it is
// set, BuildWebhook takes the webhook binary out of the image instead of
// building it, so that the suites test the binary that ships; `make e2e`
// sets it.
const ImageEnv = "KPATCH_WEBHOOK_IMAGE"

// ImageConfig is the part of an image's configuration the tests check.
type ImageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		User       string            `json:"User"`
		Entrypoint []string          `json:"Entrypoint"`
		Cmd        []string          `json:"Cmd"`
		Labels     map[string]string `json:"Labels"`
	} `json:"config"`
}

// ImageFile is a regular file of an image's file system.
type ImageFile struct {
	Data []byte
	Mode fs.FileMode
	UID  int
	GID  int
}

// Image is an image read from a docker-archive: its tags, configuration
// and the regular files of its layers, applied in order.
type Image struct {
	Tags   []string
	Config ImageConfig
	Files  map[string]ImageFile
}

// ReadImage reads the one image of a docker-archive tarball. It needs
// nothing but the standard library, so that the product's module does not
// depend on an image library for its tests.
func ReadImage(archive string) (*Image, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries := map[string][]byte{}
	tr := tar.NewReader(bufio.NewReader(f))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", archive, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", archive, h.Name, err)
		}
		entries[path.Clean(h.Name)] = b
	}
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(entries["manifest.json"], &manifest); err != nil {
		return nil, fmt.Errorf("%s: manifest.json: %w", archive, err)
	}
	if len(manifest) != 1 {
		return nil, fmt.Errorf("%s: %d images, want 1", archive, len(manifest))
	}
	m := manifest[0]
	img := &Image{Tags: m.RepoTags, Files: map[string]ImageFile{}}
	if err := json.Unmarshal(entries[path.Clean(m.Config)], &img.Config); err != nil {
		return nil, fmt.Errorf("%s: config %s: %w", archive, m.Config, err)
	}
	for _, l := range m.Layers {
		b, ok := entries[path.Clean(l)]
		if !ok {
			return nil, fmt.Errorf("%s: no layer %s", archive, l)
		}
		if err := img.apply(b); err != nil {
			return nil, fmt.Errorf("%s: layer %s: %w", archive, l, err)
		}
	}
	return img, nil
}

// apply adds the regular files of a layer (gzipped or not) to the image,
// and removes those its whiteout entries remove.
func (img *Image) apply(layer []byte) error {
	var r io.Reader = bytes.NewReader(layer)
	if bytes.HasPrefix(layer, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		r = gz
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean("/" + h.Name)
		if base := path.Base(name); strings.HasPrefix(base, ".wh.") {
			gone := path.Join(path.Dir(name), strings.TrimPrefix(base, ".wh."))
			for p := range img.Files {
				if p == gone || strings.HasPrefix(p, gone+"/") {
					delete(img.Files, p)
				}
			}
			continue
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		img.Files[name] = ImageFile{Data: b, Mode: h.FileInfo().Mode(), UID: h.Uid, GID: h.Gid}
	}
}

// WebhookFromImage writes the entrypoint of the image archive, the
// webhook binary, to dir and returns its path.
func WebhookFromImage(archive, dir string) (string, error) {
	img, err := ReadImage(archive)
	if err != nil {
		return "", err
	}
	if img.Config.OS != runtime.GOOS || img.Config.Architecture != runtime.GOARCH {
		return "", fmt.Errorf("%s is an image for %s/%s; this machine runs %s/%s binaries (make image IMAGE_ARCH=%s)",
			archive, img.Config.OS, img.Config.Architecture, runtime.GOOS, runtime.GOARCH, runtime.GOARCH)
	}
	ep := img.Config.Config.Entrypoint
	if len(ep) == 0 {
		return "", fmt.Errorf("%s: the image has no entrypoint", archive)
	}
	f, ok := img.Files[path.Clean(ep[0])]
	if !ok {
		return "", fmt.Errorf("%s: the entrypoint %s is not a file of the image", archive, ep[0])
	}
	if f.Mode&0o111 == 0 {
		return "", errors.New(archive + ": the entrypoint " + ep[0] + " is not executable")
	}
	// A new file each time: an earlier one may be running, and a running
	// binary cannot be rewritten.
	out, err := os.CreateTemp(dir, "webhook-from-image-")
	if err != nil {
		return "", err
	}
	if _, err := out.Write(f.Data); err != nil {
		out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return out.Name(), os.Chmod(out.Name(), 0o755)
}
