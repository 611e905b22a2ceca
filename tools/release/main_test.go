package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/yaml"
)

// TestRelease writes a release of this machine's platform only (the full
// four-platform build is `make release`) and checks what is in it: names,
// archive contents, the binary's version, the stamped chart, the krew
// manifest and the checksums.
func TestRelease(t *testing.T) {
	dist := filepath.Join(t.TempDir(), "dist")
	image := filepath.Join(t.TempDir(), "image.tar")
	if err := os.WriteFile(image, []byte("stand-in image archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	args := []string{
		"-root", "../..", "-dist", dist, "-version", "v0.7.1-rc.1", "-commit", "0123abcd",
		"-created", "2026-05-06T07:08:09Z", "-platforms", platform, "-image", "amd64=" + image,
		"-url", "https://example.invalid/releases/v0.7.1-rc.1", "-homepage", "https://example.invalid/kpatch",
	}
	var log bytes.Buffer
	if err := run(args, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	cli := CLIArchive("v0.7.1-rc.1", runtime.GOOS, runtime.GOARCH)
	wantFiles := []string{"checksums.txt", "kpatch-webhook-0.7.1-rc.1.tgz", "kpatch-webhook-image_v0.7.1-rc.1_linux_amd64.tar", "kpatch.krew.yaml", cli}
	slices.Sort(wantFiles)
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, wantFiles) {
		t.Fatalf("dist holds %q, want %q", got, wantFiles)
	}

	// The checksums are those of every other file.
	f, err := os.Open(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q", sc.Text())
		}
		sums[name] = sum
	}
	for _, name := range wantFiles {
		if name == "checksums.txt" {
			continue
		}
		sum, err := sha256File(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if sums[name] != sum {
			t.Errorf("checksums.txt gives %s %q, the file's is %s", name, sums[name], sum)
		}
	}
	if len(sums) != len(wantFiles)-1 {
		t.Errorf("checksums.txt has %d lines, want %d", len(sums), len(wantFiles)-1)
	}

	// The CLI's archive: kpatch and kubectl-kpatch, the same executable,
	// the license texts, all at the commit's time.
	files := readTarGz(t, filepath.Join(dist, cli))
	var names []string
	for _, f := range files {
		names = append(names, f.name)
		if !f.modTime.Equal(time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)) || f.uid != 0 {
			t.Errorf("%s: time %v, owner %d", f.name, f.modTime, f.uid)
		}
	}
	if !slices.Equal(names, []string{"kpatch", "kubectl-kpatch", "kubectl_complete-kpatch", "LICENSE", "THIRD_PARTY_NOTICES"}) {
		t.Fatalf("%s holds %q", cli, names)
	}
	if !bytes.Contains(files[2].data, []byte("exec kubectl-kpatch __complete \"$@\"")) || files[2].mode&0o111 == 0 {
		t.Errorf("kubectl_complete-kpatch is not the executable completion shim:\n%s", files[2].data)
	}
	if !bytes.Equal(files[0].data, files[1].data) || files[0].mode&0o111 == 0 || files[1].mode&0o111 == 0 {
		t.Error("kpatch and kubectl-kpatch are not the same executable")
	}
	if !bytes.Contains(files[3].data, []byte("Apache License")) || !bytes.Contains(files[4].data, []byte("k8s.io/client-go")) {
		t.Error("LICENSE or THIRD_PARTY_NOTICES is not the repository's")
	}
	bin := filepath.Join(t.TempDir(), "kubectl-kpatch")
	if err := os.WriteFile(bin, files[1].data, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "Version:   v0.7.1-rc.1\nCommit:    0123abcd\n") {
		t.Errorf("kubectl-kpatch version:\n%s", out)
	}

	// The chart: version and appVersion stamped, every file of it there.
	c, err := loader.LoadFile(filepath.Join(dist, "kpatch-webhook-0.7.1-rc.1.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Metadata.Version != "0.7.1-rc.1" || c.Metadata.AppVersion != "0.7.1-rc.1" {
		t.Errorf("chart version %q, appVersion %q", c.Metadata.Version, c.Metadata.AppVersion)
	}
	src, err := loader.LoadDir("../../charts/kpatch-webhook")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Templates) != len(src.Templates) || len(c.Files) != len(src.Files) || c.Schema == nil {
		t.Errorf("the packaged chart has %d templates and %d files, the chart %d and %d", len(c.Templates), len(c.Files), len(src.Templates), len(src.Files))
	}

	// The image archive is copied as it is.
	if b, _ := os.ReadFile(filepath.Join(dist, "kpatch-webhook-image_v0.7.1-rc.1_linux_amd64.tar")); string(b) != "stand-in image archive" {
		t.Errorf("image archive: %q", b)
	}

	// The krew manifest: one platform, the archive's URL and checksum.
	b, err := os.ReadFile(filepath.Join(dist, "kpatch.krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var plugin struct {
		APIVersion string `json:"apiVersion"`
		Kind       string
		Metadata   struct{ Name string }
		Spec       struct {
			Version          string
			Homepage         string
			ShortDescription string `json:"shortDescription"`
			Description      string
			Platforms        []struct {
				Selector struct{ MatchLabels map[string]string }
				URI      string
				SHA256   string
				Bin      string
				Files    []struct{ From, To string }
			}
		}
	}
	if err := yaml.UnmarshalStrict(b, &plugin); err != nil {
		t.Fatalf("kpatch.krew.yaml: %v\n%s", err, b)
	}
	if plugin.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || plugin.Kind != "Plugin" || plugin.Metadata.Name != "kpatch" || plugin.Spec.Version != "v0.7.1-rc.1" || len(plugin.Spec.Platforms) != 1 {
		t.Fatalf("kpatch.krew.yaml:\n%s", b)
	}
	p := plugin.Spec.Platforms[0]
	if p.Selector.MatchLabels["os"] != runtime.GOOS || p.Selector.MatchLabels["arch"] != runtime.GOARCH ||
		p.URI != "https://example.invalid/releases/v0.7.1-rc.1/"+cli || p.SHA256 != sums[cli] || p.Bin != "kubectl-kpatch" {
		t.Errorf("krew platform %+v", p)
	}
	for _, f := range p.Files {
		if !slices.Contains(names, f.From) {
			t.Errorf("krew installs %s, which the archive does not hold", f.From)
		}
	}

	// A second run refuses the directory it wrote.
	if err := run(args, io.Discard); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a second release into the same directory: %v", err)
	}
}

func TestReleaseRefusesBadVersions(t *testing.T) {
	for _, v := range []string{"", "0.1.0", "v1", "v1.2", "v01.2.3", "dev"} {
		args := []string{"-dist", t.TempDir(), "-version", v, "-url", "u", "-homepage", "h", "-platforms", ""}
		if err := run(args, io.Discard); err == nil || !strings.Contains(err.Error(), "is not vMAJOR.MINOR.PATCH") {
			t.Errorf("version %q: %v", v, err)
		}
	}
}

// tarFile is a file read from a tar.
type tarFile struct {
	name    string
	mode    int64
	uid     int
	modTime time.Time
	data    []byte
}

func readTarGz(t *testing.T, path string) []tarFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var files []tarFile
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, tarFile{name: h.Name, mode: h.Mode, uid: h.Uid, modTime: h.ModTime, data: data})
	}
}
