// Command notices writes THIRD_PARTY_NOTICES: the license and notice texts
// of every Go module linked into the kpatch binaries (the CLI and the
// webhook, for every release platform), and of the Go standard library,
// which the licenses of those modules require to ship with the binaries.
// It reads the texts from the module cache (`go list -deps`), names each
// license with licensecheck, and refuses a module without a license file
// or with a license it does not recognise or does not allow.
//
//	go run ./notices -root .. -o ../THIRD_PARTY_NOTICES   # make notices
//	go run ./notices -root .. -check ../THIRD_PARTY_NOTICES
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/licensecheck"
)

// Binaries are the packages of the kpatch binaries.
var Binaries = []string{"./cmd/kpatch", "./cmd/webhook"}

// Platforms are the GOOS/GOARCH pairs the binaries are released for.
var Platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"}

// allowed are the licenses (licensecheck's identifiers) whose terms a
// release of kpatch meets by shipping their texts with the binaries.
var allowed = map[string]bool{
	"Apache-2.0": true, "MIT": true, "BSD-2-Clause": true, "BSD-3-Clause": true,
	"ISC": true, "MPL-2.0": true, "CC-BY-4.0": true, "BSD-2-Clause-Views": true, "Zlib": true,
}

// licenseFile matches the names of license and notice files; docsLicense
// those of the license of a module's documentation (LICENSE.docs), which
// the binaries do not contain.
var (
	licenseFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|unlicense)([-._].*)?$`)
	docsLicense = regexp.MustCompile(`(?i)^licen[cs]e[-._]docs?(\.[a-z]+)?$`)
)

// module is one module linked into a binary.
type module struct {
	Path, Version, Dir string
	// pkgDirs are the directories of its packages that are linked.
	pkgDirs map[string]bool
}

// listed is what `go list -json` says of a package that matters here.
type listed struct {
	Dir      string
	Standard bool
	Module   *struct {
		Path, Version, Dir string
		Main               bool
		Replace            *struct{ Path, Version, Dir string }
	}
}

// modules lists the modules of the packages linked into pkgs for each
// platform, from root.
func modules(root string, pkgs, platforms []string) (map[string]*module, error) {
	mods := map[string]*module{}
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return nil, fmt.Errorf("platform %q is not GOOS/GOARCH", p)
		}
		cmd := exec.Command("go", append([]string{"list", "-deps", "-json=Dir,Standard,Module"}, pkgs...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list for %s: %v\n%s", p, err, stderr.Bytes())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var l listed
			if err := dec.Decode(&l); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("go list for %s: %w", p, err)
			}
			if l.Standard || l.Module == nil || l.Module.Main {
				continue
			}
			path, version, dir := l.Module.Path, l.Module.Version, l.Module.Dir
			if r := l.Module.Replace; r != nil {
				version, dir = r.Version, r.Dir
				if r.Version == "" {
					version = "(replaced by " + r.Path + ")"
				}
			}
			if dir == "" {
				return nil, fmt.Errorf("module %s@%s is not in the module cache: run go mod download", path, version)
			}
			m := mods[path]
			if m == nil {
				m = &module{Path: path, Version: version, Dir: dir, pkgDirs: map[string]bool{}}
				mods[path] = m
			}
			m.pkgDirs[l.Dir] = true
		}
	}
	return mods, nil
}

// licenseFiles returns the license and notice files that apply to m: those
// in the directories of its linked packages and in every directory above
// them up to the module's root.
func licenseFiles(m *module) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	for pkgDir := range m.pkgDirs {
		for dir := pkgDir; ; dir = filepath.Dir(dir) {
			if seen[dir] {
				break
			}
			seen[dir] = true
			entries, err := os.ReadDir(dir)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if e.Type().IsRegular() && licenseFile.MatchString(e.Name()) && !docsLicense.MatchString(e.Name()) {
					files = append(files, filepath.Join(dir, e.Name()))
				}
			}
			if dir == m.Dir || !strings.HasPrefix(dir, m.Dir) {
				break
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// text is one license or notice text and the modules whose file it is.
type text struct {
	body    string
	ids     []string
	holders []string
}

// licenseIDs names the licenses of a license file's text; nil when it
// recognises none.
func licenseIDs(body string) []string {
	cov := licensecheck.Scan([]byte(body))
	var ids []string
	for _, m := range cov.Match {
		if !m.IsURL && !slices.Contains(ids, m.ID) {
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// isNotice says whether a file is a NOTICE file, whose text need not be a
// license.
func isNotice(file string) bool {
	return strings.HasPrefix(strings.ToLower(filepath.Base(file)), "notice")
}

// Generate returns the notices of the modules linked into pkgs built from
// root for platforms, with the Go standard library's license from goroot.
func Generate(root, goroot string, pkgs, platforms []string) ([]byte, error) {
	mods, err := modules(root, pkgs, platforms)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(mods))
	for p := range mods {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	texts := map[string]*text{}
	var order []string
	var problems []string
	type row struct{ module, licenses string }
	rows := []row{}
	addText := func(holder, file string, body []byte) []string {
		norm := normalize(string(body))
		t := texts[norm]
		if t == nil {
			t = &text{body: norm}
			if !isNotice(file) {
				t.ids = licenseIDs(norm)
			}
			texts[norm] = t
			order = append(order, norm)
		}
		t.holders = append(t.holders, holder)
		return t.ids
	}
	stdlib, err := os.ReadFile(filepath.Join(goroot, "LICENSE"))
	if err != nil {
		return nil, fmt.Errorf("the Go standard library's license: %w", err)
	}
	rows = append(rows, row{"Go standard library", strings.Join(addText("Go standard library: LICENSE", "LICENSE", stdlib), ", ")})
	for _, p := range paths {
		m := mods[p]
		files, err := licenseFiles(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		var ids []string
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(m.Dir, f)
			for _, id := range addText(fmt.Sprintf("%s@%s: %s", m.Path, m.Version, filepath.ToSlash(rel)), f, body) {
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
		sort.Strings(ids)
		switch {
		case len(files) == 0:
			problems = append(problems, fmt.Sprintf("%s@%s (%s): no license file", m.Path, m.Version, m.Dir))
		case len(ids) == 0:
			problems = append(problems, fmt.Sprintf("%s@%s: no license recognised in %s", m.Path, m.Version, strings.Join(files, ", ")))
		}
		for _, id := range ids {
			if !allowed[id] {
				problems = append(problems, fmt.Sprintf("%s@%s: license %s is not among the allowed ones (tools/notices)", m.Path, m.Version, id))
			}
		}
		rows = append(rows, row{m.Path + " " + m.Version, strings.Join(ids, ", ")})
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	var b bytes.Buffer
	b.WriteString(`THIRD-PARTY NOTICES

The kpatch binaries (kpatch, kubectl-kpatch, webhook) and the webhook's
container image include the Go standard library and the Go modules listed
below. Their license and notice texts follow the list, each text once, with
the module files it comes from.

kpatch itself is licensed under the Apache License, Version 2.0 (LICENSE).

This file is generated by tools/notices from the module cache; regenerate it
with ` + "`make notices`" + ` after changing a dependency.

`)
	width := 0
	for _, r := range rows {
		width = max(width, len(r.module))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s  %s\n", width, r.module, r.licenses)
	}
	for _, key := range order {
		t := texts[key]
		b.WriteString("\n" + strings.Repeat("=", 80) + "\n")
		for _, h := range t.holders {
			b.WriteString(h + "\n")
		}
		b.WriteString(strings.Repeat("-", 80) + "\n\n")
		b.WriteString(t.body)
	}
	return b.Bytes(), nil
}

// normalize trims trailing spaces, carriage returns and blank lines at the
// ends, so that copies of a text that differ only there are one text.
func normalize(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n") + "\n"
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("notices", flag.ContinueOnError)
	root := fs.String("root", "..", "the kpatch module's `directory`")
	out := fs.String("o", "", "write the notices to `file`; empty: standard output")
	check := fs.String("check", "", "compare `file` with the notices; fail if it is not current")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New("no arguments: use -root, -o or -check")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	notices, err := Generate(*root, strings.TrimSpace(string(goroot)), Binaries, Platforms)
	if err != nil {
		return err
	}
	switch {
	case *check != "":
		cur, err := os.ReadFile(*check)
		if err != nil {
			return err
		}
		if !bytes.Equal(cur, notices) {
			return fmt.Errorf("%s is not current: run make notices", *check)
		}
		return nil
	case *out != "":
		return os.WriteFile(*out, notices, 0o644)
	default:
		_, err := stdout.Write(notices)
		return err
	}
}
