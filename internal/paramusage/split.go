package paramusage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
	"kpatch.dev/kpatch/pkg/registry"
)

// ErrManySchemas is a command line that names more than one parameter
// schema.
var ErrManySchemas = errors.New("one parameter schema at a time")

// Split returns the schema file and the patch files of the arguments of
// kpatch params: the schema is schemaFile (--parameters), or a file named
// parameters.yaml among the arguments, or in a directory given; the other
// files, and those that the directories give (with recursive, their
// subdirectories' too), are the patch files.
func Split(src filesource.Source, args []string, schemaFile string, recursive bool) (string, []string, error) {
	schemas := []string{}
	if schemaFile != "" {
		schemas = append(schemas, schemaFile)
	}
	var files []string
	for _, a := range args {
		expanded, err := src.Expand([]string{a}, filesource.Patches, recursive)
		if err != nil {
			return "", nil, err
		}
		if len(expanded) == 1 && expanded[0] == a { // a file named explicitly
			if filepath.Base(a) == parameters.SchemaKey {
				schemas = append(schemas, a)
			} else {
				files = append(files, a)
			}
			continue
		}
		files = append(files, expanded...)
		if s := filepath.Join(a, parameters.SchemaKey); isFile(src.Path(s)) {
			schemas = append(schemas, s)
		}
	}
	switch {
	case len(schemas) == 0:
		return "", nil, fmt.Errorf("no parameter schema: name a %s, or give --parameters FILE", parameters.SchemaKey)
	case len(schemas) > 1:
		return "", nil, fmt.Errorf("%w, not %s", ErrManySchemas, strings.Join(schemas, " and "))
	}
	return schemas[0], files, nil
}

// ParseTrees parses the patch files (replacements files read no
// variables); their problems go to found.
func ParseTrees(src filesource.Source, files []string, found *lint.Findings) ([]*kpatch.File, error) {
	var trees []*kpatch.File
	for _, path := range files {
		name, data, err := src.Read(path)
		if err != nil {
			return nil, err
		}
		if registry.KindOf(name, data) != registry.PatchKind {
			continue // no kpatch syntax tree: no parameter usage
		}
		f, err := kpatch.ParseAny(name, data)
		if err != nil {
			found.Add(err)
			continue
		}
		trees = append(trees, f)
	}
	return trees, nil
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
