// Command release writes the release artefacts of kpatch to a directory
// (make release VERSION=v0.2.0 writes dist/):
//
//   - kpatch_VERSION_OS_ARCH.tar.gz for each platform: the kpatch CLI, the
//     same binary as kubectl-kpatch (so that `kubectl kpatch ...` finds
//     it on the PATH), kubectl_complete-kpatch (kubectl's completion of
//     the plugin, cmd/kpatch), LICENSE and THIRD_PARTY_NOTICES;
//   - kpatch-webhook-CHARTVERSION.tgz: the Helm chart with its version and
//     appVersion set to the release's (without the leading v, which is
//     also the image tag the chart deploys by default);
//   - kpatch-webhook-image_VERSION_linux_ARCH.tar: the image archives
//     (make image) given with -image;
//   - kpatch.krew.yaml: the krew plugin manifest (krew.yaml.tmpl) with the
//     archives' URLs under -url and their SHA-256 sums;
//   - checksums.txt: the SHA-256 of every other file, as sha256sum -c
//     reads it.
//
// Every binary is static (CGO_ENABLED=0), built with -trimpath, and reports
// the release's version and commit (internal/buildinfo). Every time in
// the archives is -created (the commit's time), so that one commit and Go
// toolchain give the same files.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

//go:embed krew.yaml.tmpl
var krewTemplate string

// semver is a release version: vMAJOR.MINOR.PATCH with an optional
// pre-release.
var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

// Release is what to build and where.
type Release struct {
	// Root is the kpatch module's directory; Dist where the artefacts go
	// (it must be empty or absent).
	Root, Dist string
	// Version is the release (v0.2.0); Commit the commit it is built from.
	Version, Commit string
	// Created is the time of every file in the archives.
	Created time.Time
	// Platforms are the GOOS/GOARCH pairs of the CLI.
	Platforms []string
	// Images are the image archives by GOARCH.
	Images map[string]string
	// URLBase is where the archives will be downloaded from (the krew
	// manifest's URLs); Homepage the project's page.
	URLBase, Homepage string
	// Log receives one line per step.
	Log io.Writer
}

// ChartVersion is the chart's version and appVersion for a release
// version: without its leading v.
func ChartVersion(version string) string { return strings.TrimPrefix(version, "v") }

// CLIArchive is the name of the CLI's archive for a platform.
func CLIArchive(version, goos, goarch string) string {
	return fmt.Sprintf("kpatch_%s_%s_%s.tar.gz", version, goos, goarch)
}

// ImageArchive is the name of the image archive for an architecture.
func ImageArchive(version, goarch string) string {
	return fmt.Sprintf("kpatch-webhook-image_%s_linux_%s.tar", version, goarch)
}

// Run writes the release.
func (r Release) Run() error {
	if !semver.MatchString(r.Version) {
		return fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH", r.Version)
	}
	if entries, err := os.ReadDir(r.Dist); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty", r.Dist)
	}
	if err := os.MkdirAll(r.Dist, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "kpatch-release")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	license := filepath.Join(r.Root, "LICENSE")
	notices := filepath.Join(r.Root, "THIRD_PARTY_NOTICES")
	var krew []krewPlatform
	for _, p := range r.Platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return fmt.Errorf("platform %q is not GOOS/GOARCH", p)
		}
		bin := filepath.Join(work, goos+"_"+goarch, "kpatch")
		if err := r.build(goos, goarch, bin); err != nil {
			return err
		}
		name := CLIArchive(r.Version, goos, goarch)
		err := writeTarGz(filepath.Join(r.Dist, name), r.Created, []archiveFile{
			{name: "kpatch", src: bin, mode: 0o755},
			{name: "kubectl-kpatch", src: bin, mode: 0o755},
			{name: "kubectl_complete-kpatch", src: filepath.Join(r.Root, "cmd", "kpatch", "kubectl_complete-kpatch"), mode: 0o755},
			{name: "LICENSE", src: license, mode: 0o644},
			{name: "THIRD_PARTY_NOTICES", src: notices, mode: 0o644},
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		sum, err := sha256File(filepath.Join(r.Dist, name))
		if err != nil {
			return err
		}
		krew = append(krew, krewPlatform{OS: goos, Arch: goarch, URL: strings.TrimSuffix(r.URLBase, "/") + "/" + name, SHA256: sum})
		r.logf("%s", name)
	}
	chart, err := r.packageChart(work)
	if err != nil {
		return err
	}
	r.logf("%s", chart)
	arches := make([]string, 0, len(r.Images))
	for a := range r.Images {
		arches = append(arches, a)
	}
	sort.Strings(arches)
	for _, a := range arches {
		name := ImageArchive(r.Version, a)
		if err := copyFile(r.Images[a], filepath.Join(r.Dist, name)); err != nil {
			return fmt.Errorf("image archive for %s: %w", a, err)
		}
		r.logf("%s", name)
	}
	if len(krew) > 0 {
		if err := r.writeKrew(krew); err != nil {
			return err
		}
		r.logf("kpatch.krew.yaml")
	}
	if err := writeChecksums(r.Dist); err != nil {
		return err
	}
	r.logf("checksums.txt")
	return nil
}

func (r Release) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, "release: "+format+"\n", args...)
	}
}

// build builds the CLI for a platform into out.
func (r Release) build(goos, goarch, out string) error {
	ldflags := "-s -w -X kpatch.dev/kpatch/internal/buildinfo.version=" + r.Version + " -X kpatch.dev/kpatch/internal/buildinfo.commit=" + r.Commit
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, "./cmd/kpatch")
	cmd.Dir = r.Root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/kpatch for %s/%s: %v\n%s", goos, goarch, err, b)
	}
	return nil
}

// packageChart writes the chart, its version and appVersion stamped, as
// the archive `helm package` would, with every time set to r.Created.
func (r Release) packageChart(work string) (string, error) {
	c, err := loader.LoadDir(filepath.Join(r.Root, "charts", "kpatch-webhook"))
	if err != nil {
		return "", fmt.Errorf("loading the chart: %w", err)
	}
	c.Metadata.Version = ChartVersion(r.Version)
	c.Metadata.AppVersion = ChartVersion(r.Version)
	saved, err := chartutil.Save(c, work)
	if err != nil {
		return "", fmt.Errorf("packaging the chart: %w", err)
	}
	name := filepath.Base(saved)
	if err := retimeTarGz(saved, filepath.Join(r.Dist, name), r.Created); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return name, nil
}

// krewPlatform is one platform of the krew manifest.
type krewPlatform struct{ OS, Arch, URL, SHA256 string }

func (r Release) writeKrew(platforms []krewPlatform) error {
	t, err := template.New("krew.yaml.tmpl").Option("missingkey=error").Parse(krewTemplate)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	err = t.Execute(&b, map[string]any{"Version": r.Version, "Homepage": r.Homepage, "URLBase": r.URLBase, "Platforms": platforms})
	if err != nil {
		return fmt.Errorf("krew manifest: %w", err)
	}
	return os.WriteFile(filepath.Join(r.Dist, "kpatch.krew.yaml"), b.Bytes(), 0o644)
}

// archiveFile is a file of an archive: its name there, where it is read
// from, its mode.
type archiveFile struct {
	name string
	src  string
	mode int64
}

// writeTarGz writes a gzipped tar of files, owned by root, at time t.
func writeTarGz(out string, t time.Time, files []archiveFile) error {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		data, err := os.ReadFile(f.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(data)), ModTime: t, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// retimeTarGz copies a gzipped tar with every entry's times set to t.
func retimeTarGz(in, out string, t time.Time) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		h.ModTime, h.AccessTime, h.ChangeTime = t, time.Time{}, time.Time{}
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeChecksums writes checksums.txt: the SHA-256 of every other file of
// dir, by name, in sha256sum's format.
func writeChecksums(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range entries {
		if e.Name() == "checksums.txt" || !e.Type().IsRegular() {
			continue
		}
		sum, err := sha256File(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, e.Name())
	}
	return os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(b.String()), 0o644)
}

// imageFlags is -image GOARCH=FILE, repeated.
type imageFlags map[string]string

func (f imageFlags) String() string { return fmt.Sprint(map[string]string(f)) }

func (f imageFlags) Set(v string) error {
	arch, file, ok := strings.Cut(v, "=")
	if !ok || arch == "" || file == "" {
		return fmt.Errorf("%q is not GOARCH=FILE", v)
	}
	f[arch] = file
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	r := Release{Images: imageFlags{}, Log: log}
	var platforms, created string
	fs.StringVar(&r.Root, "root", "..", "the kpatch module's `directory`")
	fs.StringVar(&r.Dist, "dist", "../dist", "the `directory` to write, empty or absent")
	fs.StringVar(&r.Version, "version", "", "the release `version`, vMAJOR.MINOR.PATCH")
	fs.StringVar(&r.Commit, "commit", "", "the `commit` the release is built from")
	fs.StringVar(&created, "created", "", "RFC 3339 `time` of the files in the archives (the commit's time); empty: the Unix epoch")
	fs.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64", "GOOS/GOARCH `list` of the CLI, comma-separated")
	fs.Var(imageFlags(r.Images), "image", "`GOARCH=FILE`: an image archive of the webhook (make image), repeated")
	fs.StringVar(&r.URLBase, "url", "", "the `URL` the archives are downloaded from, for the krew manifest")
	fs.StringVar(&r.Homepage, "homepage", "", "the project's `URL`, for the krew manifest")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New("no arguments: use the flags")
	}
	if r.URLBase == "" || r.Homepage == "" {
		return errors.New("-url and -homepage are needed for the krew manifest")
	}
	r.Created = time.Unix(0, 0).UTC()
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return fmt.Errorf("-created: %w", err)
		}
		r.Created = t.UTC()
	}
	if platforms != "" {
		r.Platforms = strings.Split(platforms, ",")
	}
	return r.Run()
}
