package cmdline

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// kubectlPluginPrefix starts the file name of every kubectl plugin:
// kubectl runs an executable kubectl-NAME found on the PATH as
// `kubectl NAME`.
const kubectlPluginPrefix = "kubectl-"

// PluginCommand returns the command a user typed to run the executable
// program (os.Args[0]) as a kubectl plugin, "kubectl kpatch" for
// .../kubectl-kpatch, and false for any other name. As kubectl does, a
// dash of the name separates words and an underscore stands for a dash:
// kubectl-foo-bar is `kubectl foo bar`, kubectl-foo_bar `kubectl foo-bar`.
func PluginCommand(program string) (string, bool) {
	name := strings.TrimSuffix(filepath.Base(program), ".exe")
	rest, ok := strings.CutPrefix(name, kubectlPluginPrefix)
	if !ok || rest == "" {
		return "", false
	}
	words := strings.Split(rest, "-")
	for i, w := range words {
		words[i] = strings.ReplaceAll(w, "_", "-")
	}
	return "kubectl " + strings.Join(words, " "), true
}

// InvokedAs names root's tree as the user invoked program: run as a
// kubectl plugin, its usage lines, help, errors and examples say
// `kubectl kpatch apply ...` where they would say `kpatch apply ...`.
// Any other name leaves the tree as it is.
func InvokedAs(root *cobra.Command, program string) {
	shown, ok := PluginCommand(program)
	if !ok {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = shown
	renameExamples(root, root.Name()+" ", shown+" ")
}

// renameExamples rewrites the examples of cmd and its subcommands: a
// line that runs the program by name runs it as shown instead.
func renameExamples(cmd *cobra.Command, name, shown string) {
	if cmd.Example != "" {
		lines := strings.Split(cmd.Example, "\n")
		for i, line := range lines {
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			if rest, ok := strings.CutPrefix(line[len(indent):], name); ok {
				lines[i] = indent + shown + rest
			}
		}
		cmd.Example = strings.Join(lines, "\n")
	}
	for _, sub := range cmd.Commands() {
		renameExamples(sub, name, shown)
	}
}
