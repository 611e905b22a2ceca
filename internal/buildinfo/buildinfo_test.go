package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func toolchainInfo() (*debug.BuildInfo, bool) {
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

// stamp sets what the linker would, and the toolchain's build information,
// for the test's duration.
func stamp(t *testing.T, v, c string, read func() (*debug.BuildInfo, bool)) {
	t.Helper()
	savedV, savedC, savedRead := version, commit, readBuildInfo
	t.Cleanup(func() { version, commit, readBuildInfo = savedV, savedC, savedRead })
	version, commit, readBuildInfo = v, c, read
}

func TestCurrent(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name          string
		version       string
		commit        string
		read          func() (*debug.BuildInfo, bool)
		want          Info
		wantFormatted string
	}{{
		name:          "toolchain stamps only",
		read:          toolchainInfo,
		want:          Info{Version: "v1.2.3", Commit: "0123456789abcdef", CommitTime: "2026-01-02T03:04:05Z", Modified: true, GoVersion: "go1.99.1", Platform: platform},
		wantFormatted: "v1.2.3 (commit 0123456789abcdef (modified), go1.99.1, " + platform + ")",
	}, {
		name:    "linker stamps win over the toolchain's",
		version: "v0.4.0", commit: "fedcba9876543210",
		read:          toolchainInfo,
		want:          Info{Version: "v0.4.0", Commit: "fedcba9876543210", GoVersion: "go1.99.1", Platform: platform},
		wantFormatted: "v0.4.0 (commit fedcba9876543210, go1.99.1, " + platform + ")",
	}, {
		name:    "linker stamps of the same commit keep its time",
		version: "v0.4.0", commit: "0123456789abcdef",
		read: toolchainInfo,
		want: Info{Version: "v0.4.0", Commit: "0123456789abcdef", CommitTime: "2026-01-02T03:04:05Z", Modified: true, GoVersion: "go1.99.1", Platform: platform},
	}, {
		name:          "nothing known",
		read:          func() (*debug.BuildInfo, bool) { return nil, false },
		want:          Info{Version: "unknown", GoVersion: runtime.Version(), Platform: platform},
		wantFormatted: "unknown (commit unknown, " + runtime.Version() + ", " + platform + ")",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			stamp(t, tc.version, tc.commit, tc.read)
			got := Current()
			if got != tc.want {
				t.Errorf("Current() = %+v, want %+v", got, tc.want)
			}
			if tc.wantFormatted != "" && got.String() != tc.wantFormatted {
				t.Errorf("String() = %q, want %q", got.String(), tc.wantFormatted)
			}
		})
	}
}
