package main

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// SBOMSpecVersion is the CycloneDX version the release's SBOMs are
// written in.
const SBOMSpecVersion = cdx.SpecVersion1_6

// SBOMFile is the name of the SBOM of a release artefact: the artefact's
// name without its .tar.gz or .tar, then .cdx.json.
func SBOMFile(artefact string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(artefact, ".tar.gz"), ".tar")
	return base + ".cdx.json"
}

// goBinary is a Go program inside a release artefact: its name there and
// its bytes.
type goBinary struct {
	name string
	data []byte
}

// binarySBOM is the CycloneDX SBOM of subject (an archive or an image)
// holding bin: the binary as an application, the modules its build info
// names (the main module at version, every dependency with its version,
// the Go standard library at the toolchain's version), and subject
// depending on the binary, the binary on every module. The build info does
// not say which module needs which, so the modules are not linked to one
// another. Every time in it is created.
func binarySBOM(subject cdx.Component, bin goBinary, version string, created time.Time) (*cdx.BOM, error) {
	info, err := buildinfo.Read(bytes.NewReader(bin.data))
	if err != nil {
		return nil, fmt.Errorf("build info of %s: %w", bin.name, err)
	}
	sum := sha256.Sum256(bin.data)
	app := cdx.Component{
		BOMRef:     "file:" + bin.name,
		Type:       cdx.ComponentTypeApplication,
		Name:       bin.name,
		Version:    version,
		Hashes:     &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex.EncodeToString(sum[:])}},
		Properties: buildProperties(info),
	}
	main := moduleComponent(info.Main.Path, version)
	components := []cdx.Component{app, main}
	for _, dep := range info.Deps {
		if dep.Replace != nil {
			dep = dep.Replace
		}
		components = append(components, moduleComponent(dep.Path, dep.Version))
	}
	std := cdx.Component{
		BOMRef:     "pkg:golang/std@" + info.GoVersion,
		Type:       cdx.ComponentTypeLibrary,
		Name:       "std",
		Version:    info.GoVersion,
		PackageURL: "pkg:golang/std@" + info.GoVersion,
	}
	components = append(components, std)
	var modules []string
	for _, c := range components[1:] {
		modules = append(modules, c.BOMRef)
	}
	bom := cdx.NewBOM()
	bom.Metadata = &cdx.Metadata{
		Timestamp: created.UTC().Format(time.RFC3339),
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{{
			Type: cdx.ComponentTypeApplication, Name: "kpatch tools/release", Version: version,
		}}},
		Component: &subject,
	}
	bom.Components = &components
	bom.Dependencies = &[]cdx.Dependency{
		{Ref: subject.BOMRef, Dependencies: &[]string{app.BOMRef}},
		{Ref: app.BOMRef, Dependencies: &modules},
	}
	return bom, nil
}

// moduleComponent is a Go module as a library, named by its package URL.
func moduleComponent(path, version string) cdx.Component {
	purl := "pkg:golang/" + path + "@" + version
	return cdx.Component{BOMRef: purl, Type: cdx.ComponentTypeLibrary, Name: path, Version: version, PackageURL: purl}
}

// buildProperties are the binary's build settings (GOOS, GOARCH,
// CGO_ENABLED, -trimpath, -ldflags...) and the Go version, as
// kpatch:build:KEY properties.
func buildProperties(info *debug.BuildInfo) *[]cdx.Property {
	props := []cdx.Property{{Name: "kpatch:build:go", Value: info.GoVersion}}
	for _, s := range info.Settings {
		props = append(props, cdx.Property{Name: "kpatch:build:" + s.Key, Value: s.Value})
	}
	return &props
}

// writeSBOM writes bom as indented JSON of SBOMSpecVersion to file.
func writeSBOM(file string, bom *cdx.BOM) error {
	var b bytes.Buffer
	enc := cdx.NewBOMEncoder(&b, cdx.BOMFileFormatJSON)
	enc.SetPretty(true)
	if err := enc.EncodeVersion(bom, SBOMSpecVersion); err != nil {
		return fmt.Errorf("encoding the SBOM: %w", err)
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}
