package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is what the binary knows of its own build.
type buildInfo struct {
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

// currentBuild returns the module version, the commit the binary was
// built from (from the toolchain's vcs stamps) and the Go version.
func currentBuild() buildInfo {
	b := buildInfo{Version: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := readBuildInfo()
	if !ok {
		return b
	}
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
	return b
}

func newVersionCommand(s streams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kpatch",
		Long: `Print the module version of kpatch, the commit it was built from (with
"(modified)" when the work tree had uncommitted changes) and the Go version.`,
		Args: noArgs(""),
		RunE: func(*cobra.Command, []string) error {
			b := currentBuild()
			switch output {
			case "":
				printBuild(s, b)
				return nil
			case "json":
				out, err := json.MarshalIndent(b, "", "    ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(s.out, "%s\n", out)
				return err
			default:
				return usageErrorf("-o must be json or absent, not %q", output)
			}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output `FORMAT`: json; text when absent")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// printBuild prints the build information as text.
func printBuild(s streams, b buildInfo) {
	commit := b.Commit
	switch {
	case commit == "":
		commit = "unknown"
	case b.Modified:
		commit += " (modified)"
	}
	if b.CommitTime != "" {
		commit += " " + b.CommitTime
	}
	fmt.Fprintf(s.out, "Version:   %s\nCommit:    %s\nGo:        %s\nPlatform:  %s\n", b.Version, commit, b.GoVersion, b.Platform)
}
