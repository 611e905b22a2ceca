// Command imagebuild assembles the kpatch webhook's container image without
// a container engine, as ko does: one layer holding the static webhook
// binary and the license texts, on an empty base (scratch), run as the
// numeric non-root user 65532:65532. Every timestamp is fixed (-created), so
// the same binary and flags give the same image digest. It writes a
// docker-archive tarball (docker load, kind load image-archive, crane push)
// and prints the image's digest.
//
//	go run ./imagebuild -binary ../bin/image/webhook -tag kpatch-webhook:dev \
//	    -file licenses/LICENSE=../LICENSE -o ../bin/kpatch-webhook-image.tar
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// User is the numeric user and group the image runs as: no name to look
// up (the image has no /etc/passwd), and not root.
const User = "65532:65532"

// Entrypoint is where the webhook binary is in the image.
const Entrypoint = "/webhook"

// Spec is what goes into the image.
type Spec struct {
	// Binary is the path of the static linux webhook binary.
	Binary string
	// Files are more files of the image: path in the image (relative to
	// /) to the path on disk.
	Files map[string]string
	// Arch is the GOARCH the binary was built for.
	Arch string
	// Created is the time every timestamp of the image is set to.
	Created time.Time
	// Labels are the image's labels (org.opencontainers.image.*).
	Labels map[string]string
}

// Build assembles the image of s.
func Build(s Spec) (v1.Image, error) {
	if s.Arch == "" {
		return nil, errors.New("no architecture")
	}
	layerTar, err := layerArchive(s)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	img, err := mutate.Append(empty.Image, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: s.Created},
			CreatedBy: "kpatch imagebuild",
			Comment:   "the webhook binary and the license texts",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("appending the layer: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", s.Arch
	if s.Arch == "arm64" {
		cfg.Variant = "v8"
	}
	cfg.Author = ""
	cfg.Created = v1.Time{Time: s.Created}
	cfg.Config.Entrypoint = []string{Entrypoint}
	cfg.Config.Cmd = nil
	cfg.Config.User = User
	cfg.Config.WorkingDir = "/"
	cfg.Config.Labels = s.Labels
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("image config: %w", err)
	}
	return img, nil
}

// layerArchive is the layer's tar: the binary at Entrypoint, then the
// other files in path order (their directories first), each owned by root
// and not writable by the image's user, every time set to s.Created.
func layerArchive(s Spec) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	written := map[string]bool{}
	header := func(typ byte, name string, mode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: s.Created, Format: tar.FormatPAX}
	}
	add := func(name, src string, mode int64) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		name = strings.TrimPrefix(path.Clean("/"+name), "/")
		var parents []string
		for dir := path.Dir(name); dir != "." && !written[dir]; dir = path.Dir(dir) {
			parents = append([]string{dir}, parents...)
		}
		for _, dir := range parents {
			written[dir] = true
			if err := tw.WriteHeader(header(tar.TypeDir, dir+"/", 0o755, 0)); err != nil {
				return err
			}
		}
		if err := tw.WriteHeader(header(tar.TypeReg, name, mode, int64(len(data)))); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	}
	if err := add(Entrypoint, s.Binary, 0o555); err != nil {
		return nil, fmt.Errorf("the binary: %w", err)
	}
	names := make([]string, 0, len(s.Files))
	for n := range s.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := add(n, s.Files[n], 0o444); err != nil {
			return nil, fmt.Errorf("file %s: %w", n, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes img as a docker-archive tarball tagged tag to file.
func Write(file, tag string, img v1.Image) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", tag, err)
	}
	tmp := file + ".tmp"
	if err := tarball.WriteToFile(tmp, ref, img); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return os.Rename(tmp, file)
}

// fileFlags is -file PATH_IN_IMAGE=PATH, repeated.
type fileFlags map[string]string

func (f fileFlags) String() string { return fmt.Sprint(map[string]string(f)) }

func (f fileFlags) Set(v string) error {
	dst, src, ok := strings.Cut(v, "=")
	if !ok || dst == "" || src == "" {
		return fmt.Errorf("%q is not PATH_IN_IMAGE=PATH", v)
	}
	f[dst] = src
	return nil
}

// labelFlags is -label KEY=VALUE, repeated.
type labelFlags map[string]string

func (f labelFlags) String() string { return fmt.Sprint(map[string]string(f)) }

func (f labelFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	f[k] = val
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("imagebuild", flag.ContinueOnError)
	s := Spec{Files: fileFlags{}, Labels: labelFlags{}}
	var out, tag, created, version, revision, source string
	fs.StringVar(&s.Binary, "binary", "", "the static linux webhook `binary`")
	fs.StringVar(&s.Arch, "arch", "amd64", "the GOARCH the binary was built for")
	fs.Var(fileFlags(s.Files), "file", "`PATH_IN_IMAGE=PATH`: one more file of the image (repeated)")
	fs.Var(labelFlags(s.Labels), "label", "`KEY=VALUE`: one more label (repeated)")
	fs.StringVar(&created, "created", "", "RFC 3339 `time` of every timestamp of the image (the commit's time); empty: the Unix epoch")
	fs.StringVar(&version, "version", "", "org.opencontainers.image.version")
	fs.StringVar(&revision, "revision", "", "org.opencontainers.image.revision (the commit)")
	fs.StringVar(&source, "source", "", "org.opencontainers.image.source (the repository's URL)")
	fs.StringVar(&tag, "tag", "kpatch-webhook:dev", "the image's `reference` in the archive")
	fs.StringVar(&out, "o", "", "the docker-archive `file` to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if s.Binary == "" || out == "" || fs.NArg() > 0 {
		return errors.New("usage: imagebuild -binary FILE -o FILE [flags]")
	}
	s.Created = time.Unix(0, 0).UTC()
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return fmt.Errorf("-created: %w", err)
		}
		s.Created = t.UTC()
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.title":       "kpatch-webhook",
		"org.opencontainers.image.description": "kpatch mutating admission webhook: patches Kubernetes objects at admission with .kpatch files kept in ConfigMaps",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.version":     version,
		"org.opencontainers.image.revision":    revision,
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.created":     s.Created.Format(time.RFC3339),
	} {
		if _, set := s.Labels[k]; !set && v != "" {
			s.Labels[k] = v
		}
	}
	img, err := Build(s)
	if err != nil {
		return err
	}
	if err := Write(out, tag, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s %s %s\n", out, tag, digest)
	return nil
}
