package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
)

// repoRoot is the kpatch module, two levels up from tools/imagebuild.
const repoRoot = "../.."

// instruction is one instruction of a Dockerfile, its continuation lines
// joined.
type instruction struct {
	line int
	cmd  string
	args []string
}

// parseDockerfile splits a Dockerfile into instructions: comments and
// blank lines dropped, lines ending in a backslash joined to the next.
func parseDockerfile(b []byte) []instruction {
	var out []instruction
	var cur strings.Builder
	start := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(cont + " ")
			continue
		}
		cur.WriteString(line)
		fields := strings.Fields(cur.String())
		cur.Reset()
		if len(fields) > 0 {
			out = append(out, instruction{line: start, cmd: strings.ToUpper(fields[0]), args: fields[1:]})
		}
	}
	return out
}

// copyLine is a COPY from the build context: its sources and destination.
type copyLine struct {
	line    int
	sources []string
	dest    string
}

// goBuildTarget is a package a RUN line builds: `go build ... ./cmd/NAME`.
var goBuildTarget = regexp.MustCompile(`^\./cmd/[a-z]+$`)

// contextCopies returns the COPY instructions that copy from the build
// context (not --from another stage), and the packages RUN go build builds.
func contextCopies(ins []instruction) (copies []copyLine, targets []string, problems []string) {
	for _, in := range ins {
		switch in.cmd {
		case "COPY", "ADD":
			var rest []string
			fromStage := false
			for _, a := range in.args {
				if strings.HasPrefix(a, "--from=") {
					fromStage = true
				}
				if !strings.HasPrefix(a, "--") {
					rest = append(rest, a)
				}
			}
			if fromStage {
				continue
			}
			if len(rest) > 0 && strings.HasPrefix(rest[0], "[") {
				if err := json.Unmarshal([]byte(strings.Join(rest, " ")), &rest); err != nil {
					problems = append(problems, fmt.Sprintf("Dockerfile:%d: %s: %v", in.line, in.cmd, err))
					continue
				}
			}
			if len(rest) < 2 {
				problems = append(problems, fmt.Sprintf("Dockerfile:%d: %s with no source", in.line, in.cmd))
				continue
			}
			copies = append(copies, copyLine{line: in.line, sources: rest[:len(rest)-1], dest: rest[len(rest)-1]})
		case "RUN":
			if !strings.Contains(strings.Join(in.args, " "), "go build") {
				continue
			}
			for _, a := range in.args {
				if goBuildTarget.MatchString(a) {
					targets = append(targets, a)
				}
			}
		}
	}
	return copies, targets, problems
}

// listedPackage is what `go list -json` says of a package that matters here.
type listedPackage struct {
	ImportPath string
	Dir        string
	Module     *struct{ Main bool }
	GoFiles    []string
	CgoFiles   []string
	SFiles     []string
	HFiles     []string
	EmbedFiles []string
}

// buildFiles returns the files of the module (relative to root, with
// slashes) that building targets for linux reads: go.mod, go.sum and every
// source and embedded file of the module's packages among their
// dependencies, each with the package that needs it.
func buildFiles(t *testing.T, root string, targets []string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json"}, targets...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", targets, err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"go.mod": "the module", "go.sum": "the module"}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || !p.Module.Main {
			continue
		}
		dir, err := filepath.Rel(abs, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.SFiles, p.HFiles, p.EmbedFiles} {
			for _, f := range list {
				files[path.Join(filepath.ToSlash(dir), f)] = p.ImportPath
			}
		}
	}
	return files
}

// checkContext returns what keeps a `docker build` of dockerfile, with
// dockerignore, from building: a file the build needs that the build
// context leaves out or that no COPY line puts where go build finds it,
// and COPY sources that are not in the context.
func checkContext(t *testing.T, root string, dockerfile, dockerignore []byte) []string {
	t.Helper()
	copies, targets, problems := contextCopies(parseDockerfile(dockerfile))
	if len(targets) == 0 {
		return append(problems, "Dockerfile: no RUN go build ./cmd/NAME")
	}
	var patterns []string
	for _, l := range strings.Split(string(dockerignore), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	ignore, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatalf(".dockerignore: %v", err)
	}
	inContext := func(rel string) bool {
		excluded, err := ignore.MatchesOrParentMatches(rel)
		if err != nil {
			t.Fatalf(".dockerignore on %s: %v", rel, err)
		}
		return !excluded
	}
	for _, c := range copies {
		for _, src := range c.sources {
			if _, err := os.Stat(filepath.Join(root, src)); err != nil {
				problems = append(problems, fmt.Sprintf("Dockerfile:%d: COPY %s: not in the repository", c.line, src))
			} else if !inContext(path.Clean(src)) {
				problems = append(problems, fmt.Sprintf("Dockerfile:%d: COPY %s: .dockerignore leaves it out of the build context", c.line, src))
			}
		}
	}
	// copiedTo says whether a COPY puts rel at the same path under WORKDIR:
	// a source copied to its own name, or a file copied into ./.
	copiedTo := func(rel string) bool {
		for _, c := range copies {
			for _, src := range c.sources {
				src = path.Clean(src)
				if rel != src && !strings.HasPrefix(rel, src+"/") {
					continue
				}
				dest := path.Clean(c.dest)
				if dest == src || (dest == "." && !strings.Contains(src, "/") && rel == src) {
					return true
				}
			}
		}
		return false
	}
	for file, pkg := range buildFiles(t, root, targets) {
		switch {
		case !inContext(file):
			problems = append(problems, fmt.Sprintf("%s (of %s): .dockerignore leaves it out of the build context", file, pkg))
		case !copiedTo(file):
			problems = append(problems, fmt.Sprintf("%s (of %s): no COPY line of the Dockerfile copies it", file, pkg))
		}
	}
	return problems
}

func readRepoFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDockerfileContextHoldsTheBuild: `docker build` of the Dockerfile
// finds every file that go build reads, for every binary it builds, and
// the license texts the image carries.
func TestDockerfileContextHoldsTheBuild(t *testing.T) {
	dockerfile, dockerignore := readRepoFile(t, "Dockerfile"), readRepoFile(t, ".dockerignore")
	for _, p := range checkContext(t, repoRoot, dockerfile, dockerignore) {
		t.Error(p)
	}
	_, targets, _ := contextCopies(parseDockerfile(dockerfile))
	if strings.Join(targets, " ") != "./cmd/webhook" {
		t.Errorf("the Dockerfile builds %q, want ./cmd/webhook", targets)
	}
}

// TestDockerfileCheckFindsWhatIsMissing: the check above fails on the
// Dockerfile and .dockerignore that could not build (no internal/).
func TestDockerfileCheckFindsWhatIsMissing(t *testing.T) {
	dockerfile, dockerignore := readRepoFile(t, "Dockerfile"), readRepoFile(t, ".dockerignore")
	withoutInternal := bytes.Replace(dockerfile, []byte("COPY internal internal\n"), nil, 1)
	if bytes.Equal(withoutInternal, dockerfile) {
		t.Fatal("the Dockerfile has no line COPY internal internal")
	}
	mentions := func(problems []string, what string) bool {
		for _, p := range problems {
			if strings.Contains(p, what) {
				return true
			}
		}
		return false
	}
	if p := checkContext(t, repoRoot, withoutInternal, dockerignore); !mentions(p, "no COPY line") || !mentions(p, "kpatch.dev/kpatch/internal/") {
		t.Errorf("without COPY internal: %q", p)
	}
	ignoreInternal := bytes.Replace(dockerignore, []byte("!internal/\n"), nil, 1)
	if p := checkContext(t, repoRoot, dockerfile, ignoreInternal); !mentions(p, ".dockerignore leaves it out") || !mentions(p, "internal/") {
		t.Errorf("with internal/ ignored: %q", p)
	}
	noLicense := bytes.Replace(dockerignore, []byte("!LICENSE\n"), nil, 1)
	if p := checkContext(t, repoRoot, dockerfile, noLicense); !mentions(p, "COPY LICENSE") {
		t.Errorf("with LICENSE ignored: %q", p)
	}
}
