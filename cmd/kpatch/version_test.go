package main

import (
	"debug/buildinfo"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	saved := readBuildInfo
	t.Cleanup(func() { readBuildInfo = saved })
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{
			GoVersion: "go1.99.1",
			Main:      debug.Module{Path: "kpatch.dev/kpatch", Version: "v1.2.3"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "0123456789abcdef"},
				{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
				{Key: "vcs.modified", Value: "true"},
			},
		}, true
	}
	code, stdout, _ := runCLI(t, nil, "", "version")
	want := "Version:   v1.2.3\nCommit:    0123456789abcdef (modified) 2026-01-02T03:04:05Z\nGo:        go1.99.1\nPlatform:  " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, stdout, want)
	}
	code, stdout, _ = runCLI(t, nil, "", "version", "-o", "json")
	var b buildInfo
	if code != 0 || json.Unmarshal([]byte(stdout), &b) != nil || b.Version != "v1.2.3" || b.Commit != "0123456789abcdef" || !b.Modified || b.GoVersion != "go1.99.1" {
		t.Errorf("-o json: exit %d, stdout:\n%s", code, stdout)
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	if code, stdout, _ = runCLI(t, nil, "", "version"); code != 0 || !strings.Contains(stdout, "Version:   unknown\nCommit:    unknown\nGo:        "+runtime.Version()) {
		t.Errorf("without build information: exit %d, stdout:\n%s", code, stdout)
	}
}

// TestVersionOfBuiltBinary builds the binary with version control stamps
// and checks that it names the commit of the work tree.
func TestVersionOfBuiltBinary(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "kpatch")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if info, err := buildinfo.ReadFile(bin); err != nil || !slices.ContainsFunc(info.Settings, func(s debug.BuildSetting) bool { return s.Key == "vcs.revision" }) {
		t.Skip("the toolchain stamped no commit, as in a git worktree, whose .git file it does not recognise (golang/go#58218)")
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "Commit:    " + strings.TrimSpace(string(head))
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "Go:        "+runtime.Version()) {
		t.Errorf("kpatch version:\n%s\nwant a line starting %q", out, want)
	}
}
