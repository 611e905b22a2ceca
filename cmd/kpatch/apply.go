package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"kpatch.dev/kpatch/pkg/kpatch"
)

func runApply(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("apply", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		patchFiles []string
		inputs     []string
		output     string
		namespace  string
		vf         variableFlags
	)
	fs.StringArrayVarP(&patchFiles, "patch", "p", nil, "a .kpatch file to apply (repeatable; applied in order)")
	fs.StringArrayVarP(&inputs, "filename", "f", nil, "manifests to patch, a YAML or JSON stream; - reads standard input (repeatable)")
	fs.StringVarP(&output, "output", "o", "yaml", "output format: yaml or json")
	fs.StringVarP(&namespace, "namespace", "n", "", "namespace assumed for objects without metadata.namespace when matching namespace/ targets")
	vf.register(fs)
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	switch {
	case len(patchFiles) == 0:
		return fmt.Errorf("%w: at least one -p FILE is required", errUsage)
	case len(inputs) == 0:
		return fmt.Errorf("%w: -f FILE (or -f - for standard input) is required", errUsage)
	case output != "yaml" && output != "json":
		return fmt.Errorf("%w: -o must be yaml or json, not %q", errUsage, output)
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	vars, err := vf.load()
	if err != nil {
		return err
	}
	printErr := func(err error) { fmt.Fprintln(stderr, err) }
	patches, err := loadPatches(patchFiles, vars, printErr)
	if err != nil {
		return err
	}
	var docs []*document
	for _, in := range inputs {
		var r io.Reader = stdin
		name := "<stdin>"
		if in != "-" {
			f, err := os.Open(in)
			if err != nil {
				return err
			}
			defer f.Close()
			r, name = f, in
		}
		d, err := readDocuments(name, r)
		if err != nil {
			return err
		}
		docs = append(docs, d...)
	}
	failed := false
	opts := kpatch.ApplyOptions{Namespace: namespace}
	for _, d := range docs {
		if err := d.apply(patches, opts); err != nil {
			printErr(err)
			failed = true
		}
	}
	if err := writeDocuments(stdout, docs, output); err != nil {
		return err
	}
	if failed {
		return errReported
	}
	return nil
}
