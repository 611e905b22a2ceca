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

	kbuild "kpatch.dev/kpatch/internal/buildinfo"
)

func TestVersionOutput(t *testing.T) {
	saved := currentBuild
	t.Cleanup(func() { currentBuild = saved })
	currentBuild = func() kbuild.Info {
		return kbuild.Info{Version: "v1.2.3", Commit: "0123456789abcdef", CommitTime: "2026-01-02T03:04:05Z", Modified: true, GoVersion: "go1.99.1", Platform: "plan9/mips"}
	}
	code, stdout, _ := runCLI(t, nil, "", "version")
	want := "Version:   v1.2.3\nCommit:    0123456789abcdef (modified) 2026-01-02T03:04:05Z\nGo:        go1.99.1\nPlatform:  plan9/mips\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, stdout, want)
	}
	code, stdout, _ = runCLI(t, nil, "", "version", "-o", "json")
	var b kbuild.Info
	if code != 0 || json.Unmarshal([]byte(stdout), &b) != nil || b != currentBuild() {
		t.Errorf("-o json: exit %d, stdout:\n%s", code, stdout)
	}
	currentBuild = func() kbuild.Info {
		return kbuild.Info{Version: "unknown", GoVersion: "go1.99.1", Platform: "plan9/mips"}
	}
	if code, stdout, _ = runCLI(t, nil, "", "version"); code != 0 || !strings.Contains(stdout, "Version:   unknown\nCommit:    unknown\nGo:        go1.99.1") {
		t.Errorf("without build information: exit %d, stdout:\n%s", code, stdout)
	}
	if code, stdout, _ = runCLI(t, nil, "", "--version"); code != 0 || !strings.HasPrefix(stdout, "Version:   unknown\nCommit:    unknown\nGo:        go1.99.1") {
		t.Errorf("--version: exit %d, stdout:\n%s", code, stdout)
	}
	if code, _, _ = runCLI(t, nil, "", "apply", "--version"); code != 2 {
		t.Errorf("apply --version: exit %d, want 2 (usage: the flag is the root's)", code)
	}
	if code, _, _ = runCLI(t, nil, "", "version", "-o", "yaml"); code != 2 {
		t.Errorf("-o yaml: exit %d, want 2 (usage)", code)
	}
}

// TestVersionOfStampedBinary builds the binary as the release does, with
// the version and commit set by the linker, and runs `kpatch version`.
func TestVersionOfStampedBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kpatch")
	ldflags := "-X kpatch.dev/kpatch/internal/buildinfo.version=v0.9.8 -X kpatch.dev/kpatch/internal/buildinfo.commit=feedfacecafe"
	if out, err := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "Version:   v0.9.8\nCommit:    feedfacecafe\nGo:        " + runtime.Version() + "\nPlatform:  " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if string(out) != want {
		t.Errorf("kpatch version:\n%s\nwant:\n%s", out, want)
	}
	// the flag, as a user types it, prints the same
	if out, err = exec.Command(bin, "--version").Output(); err != nil || string(out) != want {
		t.Errorf("kpatch --version: %v\n%s\nwant:\n%s", err, out, want)
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
