package main

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

// stdinName is the path that stands for standard input, and stdinLabel
// how positions and messages name it.
const (
	stdinName  = "-"
	stdinLabel = "<stdin>"
)

// The extensions by which a directory's files are taken, as kubectl takes
// manifests from -f DIR.
var (
	manifestExtensions = []string{".yaml", ".yml", ".json"}
	patchExtensions    = []string{".kpatch", ".yaml", ".yml"}
)

// expandPaths turns the files, directories and "-" named on the command
// line into the files to read, in the order given. A directory gives its
// files whose names end in one of exts, in lexical order, and with
// recursive those of its subdirectories too; a directory that gives no
// file is an error. A file named explicitly is taken whatever its name.
func expandPaths(paths, exts []string, recursive bool) ([]string, error) {
	var files []string
	for _, p := range paths {
		if p == stdinName {
			files = append(files, p)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, pathError(err)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := filesIn(p, exts, recursive)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			hint := " or below"
			if !recursive {
				hint = " (-R reads its subdirectories)"
			}
			return nil, fmt.Errorf("%s: no file ending in %s in the directory%s", p, strings.Join(exts, ", "), hint)
		}
		files = append(files, found...)
	}
	return files, nil
}

// filesIn lists the files of dir whose names end in one of exts.
func filesIn(dir string, exts []string, recursive bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != dir && !recursive:
			return fs.SkipDir
		case !d.IsDir() && slices.Contains(exts, filepath.Ext(path)):
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

// checkStdinOnce fails when "-" is named more than once: standard input
// can be read only once.
func checkStdinOnce(lists ...[]string) error {
	n := 0
	for _, l := range lists {
		for _, p := range l {
			if p == stdinName {
				n++
			}
		}
	}
	if n > 1 {
		return usageErrorf("standard input (-) can be read only once")
	}
	return nil
}

// readPath reads a file, or standard input for "-", and returns the name
// that messages give it.
func readPath(path string, stdin io.Reader) (string, []byte, error) {
	if path == stdinName {
		data, err := io.ReadAll(stdin)
		return stdinLabel, data, err
	}
	data, err := os.ReadFile(path)
	return path, data, pathError(err)
}

// pathError drops the name of the system call from a file error:
// "app.yaml: no such file or directory".
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}
