// Package docs checks that the repository speaks for itself: README.md,
// CONTRIBUTING.md and docs/ link only to files that exist inside the
// repository and name no path outside it, README.md stays an entry page,
// docs/format.md is the one reference of the format, and make demo and make
// demo-cli apply the same files.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const root = "../.."

// markdownFiles returns README.md, CONTRIBUTING.md and every Markdown file
// below docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	link    = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	outside = regexp.MustCompile("(^|[\\s`(\"'])(\\.\\./|/work/|shared/(seeds|spec|hooks)/)")
)

// TestLinksStayInsideTheRepository fails on a relative link whose target
// does not exist or lies outside the repository.
func TestLinksStayInsideTheRepository(t *testing.T) {
	top, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range markdownFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(src), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			abs, err := filepath.Abs(filepath.Join(filepath.Dir(file), target))
			if err != nil {
				t.Fatal(err)
			}
			if rel, err := filepath.Rel(top, abs); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: link %q points outside the repository", file, target)
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s: link %q: no such file in the repository", file, target)
			}
		}
	}
}

// TestNoPathsOutsideTheRepository fails on text that names a file outside
// the repository, such as the design documents it was built from.
func TestNoPathsOutsideTheRepository(t *testing.T) {
	for _, file := range markdownFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if outside.MatchString(line) {
				t.Errorf("%s:%d: names a path outside the repository: %s", file, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// maxReadmeLines is how long README.md may grow: it is the entry page, and
// the reference material lives in docs/.
const maxReadmeLines = 300

// TestReadmeIsAnEntryPage fails when README.md is longer than
// maxReadmeLines lines.
func TestReadmeIsAnEntryPage(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, at most %d: move the reference material to docs/", n, maxReadmeLines)
	}
}

// specLink matches a Markdown link whose target lies in docs/spec, written
// from the repository's root or from docs/.
var specLink = regexp.MustCompile(`\]\((\./)?(docs/)?spec/[^)]*\)`)

// TestNoLinksIntoDocsSpec fails on a link into docs/spec, which is gone:
// docs/format.md is the one reference of the format.
func TestNoLinksIntoDocsSpec(t *testing.T) {
	for _, file := range markdownFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if specLink.MatchString(line) || strings.Contains(line, "docs/spec/") {
				t.Errorf("%s:%d: points into docs/spec, which docs/format.md replaced: %s", file, i+1, strings.TrimSpace(line))
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "spec")); err == nil {
		t.Errorf("docs/spec exists: docs/format.md is the one reference of the format")
	}
}
