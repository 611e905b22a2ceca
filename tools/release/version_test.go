package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"v0.2.0", "v1.22.333", "v0.3.0-rc.1", "v1.0.0-alpha", "v1.0.0-0.3.7", "v1.0.0-x.7.z.92", "v1.0.0-alpha-1.beta--2", "v1.0.0-0a"} {
		if err := CheckVersion(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	for _, v := range []string{
		"", "dev", "0.1.0", "v1", "v1.2", "v1.2.3.4", "v01.2.3", "v1.02.3", "v1.2.03", "v1.2.3-", "v1.2.3-rc..1",
		"v1.2.3-rc.01", "v1.2.3-rc_1", "v1.2.3+build.1", "v1.2.3-rc.1+build", "V1.2.3", "v1.2.3 ", " v1.2.3", "v1.2.3\nv1.2.3",
	} {
		if err := CheckVersion(v); err == nil || !strings.Contains(err.Error(), "is not vMAJOR.MINOR.PATCH") {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestReleaseRefusesBadVersions: with -check-version and without, a bad
// version is refused before anything is written.
func TestReleaseRefusesBadVersions(t *testing.T) {
	for _, check := range []bool{true, false} {
		dist := filepath.Join(t.TempDir(), "dist")
		args := []string{"-dist", dist, "-version", "v1.2.3.4", "-url", "u", "-homepage", "h", "-platforms", "linux/amd64"}
		if check {
			args = append([]string{"-check-version"}, args...)
		}
		if err := run(args, io.Discard); err == nil || !strings.Contains(err.Error(), "is not vMAJOR.MINOR.PATCH") {
			t.Errorf("-check-version %v: %v", check, err)
		}
		if _, err := os.Stat(dist); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("-check-version %v: %s was written (%v)", check, dist, err)
		}
	}
	if err := run([]string{"-check-version", "-version", "v0.2.0", "-url", "u", "-homepage", "h"}, io.Discard); err != nil {
		t.Errorf("-check-version -version v0.2.0: %v", err)
	}
}

// TestMakeReleaseChecksVersionFirst runs `make release` with a version
// that is not semantic: it exits 2 with its usage, and leaves DIST as it
// was (no image is built either: RELEASE_IMAGE_ARCHS is empty, so a
// missing check would reach tools/release's own and still fail fast).
func TestMakeReleaseChecksVersionFirst(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on the PATH")
	}
	dist := filepath.Join(t.TempDir(), "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dist, "kept")
	if err := os.WriteFile(kept, []byte("from an earlier release"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(makeBin, "-C", "../..", "release", "VERSION=v1.2.3.4", "DIST="+dist, "RELEASE_IMAGE_ARCHS=")
	var env []string
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" {
			env = append(env, e)
		}
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(out.String(), "usage: make release VERSION=vX.Y.Z") {
		t.Errorf("make release VERSION=v1.2.3.4: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("make release VERSION=v1.2.3.4 touched DIST: %v\n%s", err, out.String())
	}
}
