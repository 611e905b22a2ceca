package main

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// readSBOM decodes the CycloneDX JSON file.
func readSBOM(t *testing.T, file string) *cdx.BOM {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(b), cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != SBOMSpecVersion || bom.Metadata == nil || bom.Metadata.Component == nil || bom.Components == nil {
		t.Fatalf("%s is not a CycloneDX %s SBOM with a subject and components:\n%s", file, SBOMSpecVersion, b)
	}
	if bom.Metadata.Timestamp != "2026-05-06T07:08:09Z" {
		t.Errorf("%s: timestamp %q, want the commit's time", file, bom.Metadata.Timestamp)
	}
	return &bom
}

// checkBinaryModules checks that bom lists the binary bin, named name, with
// its SHA-256, and every module its build info names at its version (the
// main module at the release's), the standard library at the toolchain's
// version, and nothing else; that the subject depends on the binary and
// the binary on every module. It returns the modules as path@version.
func checkBinaryModules(t *testing.T, bom *cdx.BOM, name string, bin []byte) []string {
	t.Helper()
	info, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{info.Main.Path + "@v0.7.1-rc.1", "std@" + info.GoVersion}
	for _, d := range info.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		want = append(want, d.Path+"@"+d.Version)
	}
	sum := sha256.Sum256(bin)
	var app *cdx.Component
	var got, refs []string
	for i, c := range *bom.Components {
		if c.Type == cdx.ComponentTypeApplication {
			app = &(*bom.Components)[i]
			continue
		}
		got = append(got, c.Name+"@"+c.Version)
		refs = append(refs, c.BOMRef)
		if c.Type != cdx.ComponentTypeLibrary || c.PackageURL != "pkg:golang/"+c.Name+"@"+c.Version {
			t.Errorf("module %s@%s: type %s, purl %q", c.Name, c.Version, c.Type, c.PackageURL)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the SBOM lists the modules\n%q\nthe binary's build info\n%q", got, want)
	}
	if app == nil || app.Name != name || app.Hashes == nil || len(*app.Hashes) != 1 || (*app.Hashes)[0].Value != hex.EncodeToString(sum[:]) {
		t.Fatalf("the SBOM's application is %+v, want %s with its SHA-256", app, name)
	}
	if bom.Dependencies == nil || len(*bom.Dependencies) != 2 {
		t.Fatalf("dependencies %+v", bom.Dependencies)
	}
	deps := *bom.Dependencies
	if deps[0].Ref != bom.Metadata.Component.BOMRef || !slices.Equal(*deps[0].Dependencies, []string{app.BOMRef}) {
		t.Errorf("the subject %s depends on %+v, want the binary %s", bom.Metadata.Component.BOMRef, deps[0], app.BOMRef)
	}
	depRefs := slices.Clone(*deps[1].Dependencies)
	slices.Sort(depRefs)
	slices.Sort(refs)
	if deps[1].Ref != app.BOMRef || !slices.Equal(depRefs, refs) {
		t.Errorf("the binary depends on %q, want every module %q", depRefs, refs)
	}
	return got
}

// checkCLISBOM checks the SBOM of the CLI archive named archive (SHA-256
// sum): the archive is its subject, the binary's modules its components.
func checkCLISBOM(t *testing.T, file, archive, sum string, bin []byte) {
	t.Helper()
	bom := readSBOM(t, file)
	s := bom.Metadata.Component
	if s.Type != cdx.ComponentTypeFile || s.Name != archive || s.Hashes == nil || (*s.Hashes)[0].Value != sum {
		t.Errorf("%s: subject %+v, want the archive %s with its SHA-256", file, s, archive)
	}
	modules := checkBinaryModules(t, bom, CLIBinary, bin)
	if !slices.ContainsFunc(modules, func(m string) bool { return strings.HasPrefix(m, "github.com/spf13/cobra@") }) {
		t.Errorf("%s does not list the CLI's cobra: %q", file, modules)
	}
}

// checkImageSBOM checks the SBOM of the image for arch: the image (its
// digest in the index) is its subject, the modules of its webhook binary
// (testdata/webhook: sigs.k8s.io/yaml) its components.
func checkImageSBOM(t *testing.T, file, arch string, digest v1.Hash, bin []byte) {
	t.Helper()
	bom := readSBOM(t, file)
	s := bom.Metadata.Component
	if s.Type != cdx.ComponentTypeContainer || s.Name != "kpatch-webhook" || s.Version != "0.7.1-rc.1" ||
		s.PackageURL != "pkg:oci/kpatch-webhook@sha256%3A"+digest.Hex+"?arch="+arch {
		t.Errorf("%s: subject %+v, want the image %s for %s", file, s, digest, arch)
	}
	modules := checkBinaryModules(t, bom, WebhookPath, bin)
	if !slices.Contains(modules, "sigs.k8s.io/yaml@v1.6.0") {
		t.Errorf("%s does not list the binary's sigs.k8s.io/yaml: %q", file, modules)
	}
}
