// Package buildinfo is what a kpatch binary knows of its own build: the
// version and commit that a release build stamps with -ldflags -X, else the
// module version and version control stamps the Go toolchain embeds.
//
// The release build (make image, make release) sets
//
//	-X kpatch.dev/kpatch/internal/buildinfo.version=v0.1.0
//	-X kpatch.dev/kpatch/internal/buildinfo.commit=<git commit>
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version and commit are stamped by the linker (-X); empty in a plain
// `go build` or `go install`.
var (
	version string
	commit  string
)

// Info is the build of the running binary.
type Info struct {
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

// readBuildInfo reads the build information the Go toolchain embeds in
// the binary; a variable so that tests can give their own.
var readBuildInfo = debug.ReadBuildInfo

// Current returns the build of the running binary: the stamped version and
// commit when the linker set them, else the module version (as `go install
// module@version` records it) and the toolchain's version control stamps.
func Current() Info {
	b := Info{Version: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := readBuildInfo(); ok {
		if info.Main.Version != "" {
			b.Version = info.Main.Version
		}
		if info.GoVersion != "" {
			b.GoVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.CommitTime = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		b.Version = version
	}
	if commit != "" && commit != b.Commit {
		b.Commit, b.CommitTime, b.Modified = commit, "", false
	}
	return b
}

// String is the build on one line: version, commit, Go version and
// platform, as the webhook's --version prints it.
func (b Info) String() string {
	return fmt.Sprintf("%s (commit %s, %s, %s)", b.Version, b.CommitText(), b.GoVersion, b.Platform)
}

// Text is the build as `kpatch version` prints it: version, commit (with
// its time, when known), Go version and platform, one per line.
func (b Info) Text() string {
	commit := b.CommitText()
	if b.CommitTime != "" {
		commit += " " + b.CommitTime
	}
	return fmt.Sprintf("Version:   %s\nCommit:    %s\nGo:        %s\nPlatform:  %s\n", b.Version, commit, b.GoVersion, b.Platform)
}

// CommitText is the commit as people read it: "unknown" when the build
// does not know it, marked "(modified)" when the work tree had changes.
func (b Info) CommitText() string {
	switch {
	case b.Commit == "":
		return "unknown"
	case b.Modified:
		return b.Commit + " (modified)"
	}
	return b.Commit
}
