package filesource

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// StdinName is the path that stands for standard input, and StdinLabel
// how positions and messages name it.
const (
	StdinName  = "-"
	StdinLabel = "<stdin>"
)

// Selection says which files of a directory a flag takes: those whose
// names end in one of exts, except the names in skip, and with suites,
// except the test suites and their files (suiteSkip).
type Selection struct {
	exts   []string
	skip   []string
	suites bool
}

// The files a directory gives, as kubectl takes manifests from -f DIR. A
// directory laid out like a registry ConfigMap holds values.yaml and
// parameters.yaml beside its patch files: they are not patch files (the
// registry reads the key values.yaml as the ConfigMap's values), so -p DIR
// leaves them out; --values takes values.yaml. Neither -p DIR nor
// --registry DIR gives the test suites that a registry directory may hold,
// with their inputs and expected files (suiteSkip).
var (
	Manifests = Selection{exts: []string{".yaml", ".yml", ".json"}}
	Registry  = Selection{exts: Manifests.exts, suites: true}
	Patches   = Selection{exts: []string{".kpatch", ".yaml", ".yml"}, skip: []string{"values.yaml", "parameters.yaml"}, suites: true}
)

// takes reports whether a directory gives the file at path.
func (sel Selection) takes(path string) bool {
	return slices.Contains(sel.exts, filepath.Ext(path)) && !slices.Contains(sel.skip, filepath.Base(path))
}

// Source reads the files that commands name: paths relative to dir
// (the working directory when dir is empty), named in messages as
// written; "-" is standard input.
type Source struct {
	Dir   string
	Stdin io.Reader
}

// FromStdin reads paths relative to the working directory.
func FromStdin(stdin io.Reader) Source { return Source{Stdin: stdin} }

// Path returns where a named file is.
func (src Source) Path(name string) string {
	if src.Dir == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(src.Dir, name)
}

// Read reads a file, or standard input for "-", and returns the name
// that messages give it.
func (src Source) Read(name string) (string, []byte, error) {
	if name == StdinName {
		data, err := io.ReadAll(src.Stdin)
		return StdinLabel, data, err
	}
	data, err := os.ReadFile(src.Path(name))
	if err != nil {
		return name, nil, PathError(name, err)
	}
	return name, data, nil
}

// ReadPath reads a path relative to the working directory, or standard
// input for "-", and returns the name that messages give it.
func ReadPath(path string, stdin io.Reader) (string, []byte, error) {
	return FromStdin(stdin).Read(path)
}

// Expand turns the files, directories and "-" named on the command line
// into the files to read, in the order given. A directory gives the files
// that sel takes, in lexical order, and with recursive those of its
// subdirectories too; a directory that gives no file is an error. A file
// named explicitly is taken whatever its name.
func (src Source) Expand(names []string, sel Selection, recursive bool) ([]string, error) {
	var files []string
	for _, name := range names {
		if name == StdinName {
			files = append(files, name)
			continue
		}
		info, err := os.Stat(src.Path(name))
		if err != nil {
			return nil, PathError(name, err)
		}
		if !info.IsDir() {
			files = append(files, name)
			continue
		}
		found, err := src.filesIn(name, sel, recursive)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			hint := " or below"
			if !recursive {
				hint = " (-R reads its subdirectories)"
			}
			return nil, fmt.Errorf("%s: no file ending in %s in the directory%s", name, strings.Join(sel.exts, ", "), hint)
		}
		files = append(files, found...)
	}
	return files, nil
}

// filesIn lists the files of the directory dir that sel takes, named as
// dir is named.
func (src Source) filesIn(dir string, sel Selection, recursive bool) ([]string, error) {
	root := src.Path(dir)
	suites := sel.suiteSkipOf(root)
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (!recursive || suites.dir(path)):
			return fs.SkipDir
		case !d.IsDir() && sel.takes(path) && !suites.file(path):
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.Join(dir, rel))
		}
		return nil
	})
	return files, err
}

// PathError names a file error by the name the user gave, without the
// system call: "app.yaml: no such file or directory".
func PathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", name, pe.Err)
	}
	return err
}

// ErrStdinTwice is a command line that names standard input (-) more
// than once: it can be read only once.
var ErrStdinTwice = errors.New("standard input (-) can be read only once")

// StdinOnce fails with ErrStdinTwice when "-" is named more than once in
// the lists.
func StdinOnce(lists ...[]string) error {
	n := 0
	for _, l := range lists {
		for _, p := range l {
			if p == StdinName {
				n++
			}
		}
	}
	if n > 1 {
		return ErrStdinTwice
	}
	return nil
}

// WriteKeepMode replaces a file's content, keeping its permissions.
func WriteKeepMode(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, info.Mode().Perm())
}
