package main

import (
	"errors"

	"github.com/spf13/cobra"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/paramusage"
	"kpatch.dev/kpatch/internal/varflags"
)

// paramsOptions are the flags of kpatch params.
type paramsOptions struct {
	parameters string
	recursive  bool
}

func newParamsCommand(s streams) *cobra.Command {
	o := &paramsOptions{}
	cmd := &cobra.Command{
		Use:   "params [--parameters FILE] FILE|DIR...",
		Short: "Print a parameter schema and the patch files that use each parameter",
		Long: `Print the parameters of a schema (parameters.yaml) as a table: name, type,
default, whether it is required, description, and the patch files that read it
(${values.NAME} or ${features.NAME}, or params.NAME in a CEL condition or
value), in the order of the schema.

The schema is the file named parameters.yaml among the arguments, or in a
directory given (a registry ConfigMap laid out as a directory), or the file of
--parameters. The other files, and the .kpatch, .yaml and .yml files of the
directories, are the patch files: a directory leaves out the test suites it
holds as kpatch lint does (a directory below it holding a kpatch-test.yaml,
and its own kpatch-test.yaml and the files that suite names).

A declared parameter that no file reads, and a variable that reads no declared
parameter, are warnings on stderr, as kpatch lint --parameters reports them. A
schema or a patch file that does not parse is an error: exit code 1.`,
		Example: `  kpatch params registry/team-a/
  kpatch params --parameters schema.yaml patches/*.kpatch`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("expected the patch files (and parameters.yaml), or a directory holding them")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(s, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.parameters, "parameters", "", "the parameter schema `FILE`, when it is not a parameters.yaml among the arguments")
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the directories recursively")
	_ = cmd.MarkFlagFilename("parameters", "yaml", "yml")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"kpatch", "yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

func (o *paramsOptions) run(s streams, args []string) error {
	for _, a := range args {
		if a == filesource.StdinName {
			return usageErrorf("params reads files, not standard input")
		}
	}
	src := filesource.FromStdin(s.in)
	schemaFile, files, err := paramusage.Split(src, args, o.parameters, o.recursive)
	if errors.Is(err, paramusage.ErrManySchemas) {
		return asUsageError(err)
	} else if err != nil {
		return err
	}
	found := &lint.Findings{}
	schema, err := (&varflags.Flags{Parameters: schemaFile}).Schema(src, found)
	if err != nil {
		return err
	}
	trees, err := paramusage.ParseTrees(src, files, found)
	if err != nil {
		return err
	}
	if found.Failed() {
		found.Print(s.err)
		return errReported
	}
	refs := append(paramusage.References(trees), paramusage.ExpressionReferences(paramusage.Compile(trees), schema)...)
	if err := paramusage.Table(s.out, schema, refs); err != nil {
		return err
	}
	paramusage.Report(schema, schemaFile, refs, found)
	found.Print(s.err)
	return nil
}
