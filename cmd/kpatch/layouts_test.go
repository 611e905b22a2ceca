package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/testsuite"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// The documented layouts, built as a user builds them and run through the
// commands a user runs: the quick start (examples/quickstart and its
// registry ConfigMap in config/samples), and a registry directory that
// holds its test suites (docs/testing.md).

const (
	quickstartDir = "../../examples/quickstart"
	quickstartCM  = "../../config/samples/registry-quickstart.yaml"
)

// quickstartFiles reads examples/quickstart (patches/*, app.yaml,
// values.yaml) and config/samples/registry-quickstart.yaml (as
// registry.yaml) into files for runCLI.
func quickstartFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range []string{"patches/10-example.kpatch", "patches/20-platform.kpatch", "patches/30-mirror.kpatch", "app.yaml", "values.yaml"} {
		data, err := os.ReadFile(filepath.Join(quickstartDir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	data, err := os.ReadFile(quickstartCM)
	if err != nil {
		t.Fatal(err)
	}
	files["registry.yaml"] = string(data)
	return files
}

// quickstartArgs are the quick start's patch files, as the README and
// make demo-cli give them.
var (
	quickstartArgs     = []string{"-p", "patches/10-example.kpatch", "-p", "patches/20-platform.kpatch", "-p", "patches/30-mirror.kpatch"}
	quickstartFileArgs = []string{"patches/10-example.kpatch", "patches/20-platform.kpatch", "patches/30-mirror.kpatch"}
)

var imageLine = regexp.MustCompile(`(?m)^\s+image: (\S+)$`)

// images are the images of the objects apply printed.
func images(stdout string) []string {
	var out []string
	for _, m := range imageLine.FindAllStringSubmatch(stdout, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestQuickStartMirrorLands: every image of the quick start's Deployment
// comes from the mirror, with the CLI and with the registry ConfigMap the
// demo loads, and lint finds nothing to say about the files' order.
func TestQuickStartMirrorLands(t *testing.T) {
	files := quickstartFiles(t)
	want := "mirror.internal:5000/example/app:1.4.2 mirror.internal:5000/fluent/fluent-bit:3.0"
	args := append(append([]string{"apply"}, quickstartArgs...), "-f", "app.yaml", "--values", "values.yaml")
	code, stdout, stderr := runCLI(t, files, "", args...)
	if got := strings.Join(images(stdout), " "); code != 0 || got != want {
		t.Errorf("apply -p: exit %d, stderr %q, images %q, want %q", code, stderr, got, want)
	}
	code, stdout, stderr = runCLI(t, files, "", "apply", "--registry", "registry.yaml", "-f", "app.yaml")
	if got := strings.Join(images(stdout), " "); code != 0 || got != want {
		t.Errorf("apply --registry: exit %d, stderr %q, images %q, want %q", code, stderr, got, want)
	}
	args = append([]string{"lint", "-f", "app.yaml", "--values", "values.yaml"}, quickstartFileArgs...)
	if code, stdout, _ = runCLI(t, files, "", args...); code != 0 || stdout != "" {
		t.Errorf("lint -f: exit %d, stdout:\n%s", code, stdout)
	}
	if code, stdout, _ = runCLI(t, files, "", "lint", "--registry", "registry.yaml", "-f", "app.yaml"); code != 0 || stdout != "" {
		t.Errorf("lint --registry -f: exit %d, stdout:\n%s", code, stdout)
	}
}

// TestQuickStartWithoutLayerWarns: without its layer line, the mirror is
// the least specific file and applies first, the image of 10-example
// replaces it, and lint -f says so, naming both files.
func TestQuickStartWithoutLayerWarns(t *testing.T) {
	files := quickstartFiles(t)
	layerLine := regexp.MustCompile(`(?m)^\s*# kpatch:layer: .*\n`)
	if !layerLine.MatchString(files["patches/30-mirror.kpatch"]) || !layerLine.MatchString(files["registry.yaml"]) {
		t.Fatal("30-mirror.kpatch has no layer line")
	}
	files["patches/30-mirror.kpatch"] = layerLine.ReplaceAllString(files["patches/30-mirror.kpatch"], "")
	files["registry.yaml"] = layerLine.ReplaceAllString(files["registry.yaml"], "")

	args := append(append([]string{"apply"}, quickstartArgs...), "-f", "app.yaml", "--values", "values.yaml")
	_, stdout, _ := runCLI(t, files, "", args...)
	if got := images(stdout); len(got) == 0 || got[0] != "ghcr.io/example/app:1.4.2" {
		t.Fatalf("without the layer the mirror should not land (else this test proves nothing): images %q", got)
	}
	args = append([]string{"lint", "-f", "app.yaml", "--values", "values.yaml"}, quickstartFileArgs...)
	code, stdout, _ := runCLI(t, files, "", args...)
	warning := regexp.MustCompile(`^patches/30-mirror\.kpatch:\d+:1: warning: overwritten file: every change it makes is overwritten by later files \(patches/10-example\.kpatch\) on the object it changes`)
	if code != 0 || !warning.MatchString(stdout) || strings.Count(stdout, "\n") != 1 {
		t.Errorf("lint -f: exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, files, "", "lint", "--registry", "registry.yaml", "-f", "app.yaml")
	if code != 0 || !strings.Contains(stdout, "quickstart/30-mirror.kpatch:") || !strings.Contains(stdout, "overwritten by later files (quickstart/10-example.kpatch)") {
		t.Errorf("lint --registry -f: exit %d, stdout:\n%s", code, stdout)
	}
}

// TestQuickStartSamplesMatchExamples: the registry ConfigMap of
// config/samples holds the quick start's files under the same keys, each
// with the layer its copy in examples/quickstart gives itself, so the
// registry and the CLI order them alike.
func TestQuickStartSamplesMatchExamples(t *testing.T) {
	data, err := os.ReadFile(quickstartCM)
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(data, &cm); err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Glob(filepath.Join(quickstartDir, "patches", "*.kpatch"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example patch files: %v", err)
	}
	for _, path := range examples {
		key := filepath.Base(path)
		sample, ok := cm.Data[key]
		if !ok {
			t.Errorf("%s: no key %s", quickstartCM, key)
			continue
		}
		example, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a, err := kpatch.ParseAndCompile(key, example)
		if err != nil {
			t.Fatal(err)
		}
		b, err := kpatch.ParseAndCompile(key, []byte(sample))
		if err != nil {
			t.Fatal(err)
		}
		if a.Layer().Value != b.Layer().Value || a.Layer().Set != b.Layer().Set {
			t.Errorf("%s: layer %+v in examples, %+v in config/samples", key, a.Layer(), b.Layer())
		}
		if first := func(s string) string { return strings.SplitN(s, "\n", 2)[0] }; key == "10-example.kpatch" && first(string(example)) != first(sample) {
			t.Errorf("%s: first line %q in examples, %q in config/samples", key, first(string(example)), first(sample))
		}
	}
}

// registryWithTests is the layout docs/testing.md recommends: the patch
// files of a registry directory, and below it a tests directory holding
// the suite, its input and its expected output; a second suite lives in
// the registry directory itself (patches: [.]) with its input beside the
// patch files.
func registryWithTests(t *testing.T) map[string]string {
	t.Helper()
	files := quickstartFiles(t)
	out := map[string]string{
		"registry/values.yaml":     files["values.yaml"],
		"registry/parameters.yaml": "parameters:\n- {name: version, type: string}\n- {name: name, type: string}\n- {name: domain, type: string}\n- {name: debug, type: boolean}\n",
		"registry/tests/app.yaml":  files["app.yaml"],
		"registry/tests/kpatch-test.yaml": "patches: [..]\nvalues: [../values.yaml]\nresources: [app.yaml]\n" +
			"tests:\n- name: the quick start\n  expected: expected/app.yaml\n- name: lint\n  lint: true\n",
		"registry/tests/inputs/broken.yaml": "not: [a patch file\n",
		"registry/cron.yaml":                "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, namespace: shop}\nspec: {schedule: '@daily', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: job, image: busybox:1.36}]}}}}}\n",
		"registry/expected/cron.yaml":       "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, namespace: shop}\nspec: {schedule: '@daily', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: job, image: 'mirror.internal:5000/busybox:1.36'}]}}}}}\n",
		"registry/kpatch-test.yaml": "patches: [.]\nvalues: [values.yaml]\nresources: [cron.yaml]\n" +
			"tests:\n- name: the mirror reaches CronJobs\n  expected: expected/cron.yaml\n",
	}
	for name, data := range files {
		if strings.HasPrefix(name, "patches/") {
			out["registry/"+strings.TrimPrefix(name, "patches/")] = data
		}
	}
	// the expected output, as apply prints it
	code, stdout, stderr := runCLI(t, out, "", "apply", "-p", "registry", "--values", "registry/values.yaml", "-f", "registry/tests/app.yaml")
	if code != 0 {
		t.Fatalf("apply: exit %d, stderr %s", code, stderr)
	}
	out["registry/tests/expected/app.yaml"] = stdout
	return out
}

// TestRegistryWithTestsLayout: lint, params and apply of the registry
// directory, recursive or not, leave out its test suites and their files,
// and kpatch test runs them.
func TestRegistryWithTestsLayout(t *testing.T) {
	files := registryWithTests(t)
	for _, args := range [][]string{
		{"lint", "registry/"},
		{"lint", "-R", "registry/"},
		{"lint", "-R", "--parameters", "registry/parameters.yaml", "--values", "registry/values.yaml", "-f", "registry/tests/app.yaml", "registry/"},
		{"params", "registry/"},
		{"params", "-R", "registry/"},
		{"apply", "-p", "registry/", "-R", "--values", "registry/values.yaml", "-f", "registry/tests/app.yaml"},
		{"test", "registry/"},
	} {
		code, stdout, stderr := runCLI(t, files, "", args...)
		if code != 0 || strings.Contains(stdout+stderr, "tests/") || strings.Contains(stdout+stderr, "cron.yaml") || strings.Contains(stdout+stderr, "warning") {
			t.Errorf("kpatch %s: exit %d, stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// TestRegistryWithTestsLayoutReadsTheRest: what the suites do not hold
// is still read: a broken patch file in a subdirectory without a suite,
// or beside a suite in the directory given but not named by it.
func TestRegistryWithTestsLayoutReadsTheRest(t *testing.T) {
	files := registryWithTests(t)
	files["registry/team/broken.kpatch"] = "[deployment.web]\nreplicsa: 3\n"
	files["registry/broken.yaml"] = "kind: NotAPatch\n"
	code, stdout, _ := runCLI(t, files, "", "lint", "-R", "registry/")
	if code != 1 || !strings.Contains(stdout, "registry/team/broken.kpatch:2:1: ") || !strings.Contains(stdout, "registry/broken.yaml:1:1: ") || strings.Contains(stdout, "tests/") || strings.Contains(stdout, "cron.yaml") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
}

// TestRegistryManifestsWithTestsLayout: the same for a registry of
// ConfigMap manifests (--registry DIR) with its suite inside.
func TestRegistryManifestsWithTestsLayout(t *testing.T) {
	files := quickstartFiles(t)
	files = map[string]string{
		"registry/quickstart.yaml":        files["registry.yaml"],
		"registry/tests/app.yaml":         files["app.yaml"],
		"registry/tests/kpatch-test.yaml": "registry: [..]\nresources: [app.yaml]\ntests:\n- name: lint\n  lint: true\n",
	}
	for _, args := range [][]string{
		{"lint", "-R", "--registry", "registry/"},
		{"apply", "-R", "--registry", "registry/", "-f", "registry/tests/app.yaml"},
		{"test", "registry/"},
	} {
		if code, stdout, stderr := runCLI(t, files, "", args...); code != 0 || strings.Contains(stdout+stderr, "kpatch-test.yaml") {
			t.Errorf("kpatch %s: exit %d, stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// TestExamplesLayout: the examples hold their suite inside the directory
// of their patch files, as docs/testing.md lays it out: kpatch test runs
// it, lint -R and apply -p -R of that directory leave it out.
func TestExamplesLayout(t *testing.T) {
	patches := filepath.Join(quickstartDir, "patches")
	for _, args := range [][]string{
		{"test", filepath.Dir(quickstartDir)},
		{"lint", "-R", "-f", filepath.Join(quickstartDir, "app.yaml"), "--values", filepath.Join(quickstartDir, "values.yaml"), patches},
		{"apply", "-R", "-p", patches, "-f", filepath.Join(quickstartDir, "app.yaml"), "--values", filepath.Join(quickstartDir, "values.yaml")},
	} {
		var stdout, stderr strings.Builder
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code != 0 || strings.Contains(out, "warning") || (args[0] == "test" && !strings.Contains(out, "3 passed, 0 failed")) {
			t.Errorf("kpatch %s: exit %d, output:\n%s", strings.Join(args, " "), code, out)
		}
	}
}

// TestSuiteNamedFilesAreOwnFiles: the files a walk leaves out beside a
// suite are those the suite runner counts as its own (ownFiles), field for
// field.
func TestSuiteNamedFilesAreOwnFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{testsuite.FileName: `patches: [.]
resources: [app.yaml, inputs/]
values: values.yaml
parameters: schema.yaml
tests:
- name: a
  resources: [other.yaml]
  values: [v2.yaml]
  parameters: s2.yaml
  expected: [expected/a.yaml, expected/b.yaml]
- name: b
  lint: true
  expectedErrorsFile: errors.txt
  expectedWarningsFile: warnings.txt
`})
	if filesource.SuiteFileName != testsuite.FileName {
		t.Fatalf("a walk leaves out %s, the runner reads %s", filesource.SuiteFileName, testsuite.FileName)
	}
	file := filepath.Join(dir, testsuite.FileName)
	s, err := testsuite.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := s.OwnFiles()
	got := map[string]bool{testsuite.FileName: true}
	for _, p := range filesource.SuiteNamedFiles(file) {
		got[filepath.Clean(p)] = true
	}
	if len(got) != len(want) || len(want) != 12 {
		t.Errorf("named %v, own files %v", got, want)
	}
	for p := range want {
		if !got[p] {
			t.Errorf("%s: a file of the suite that a walk does not leave out", p)
		}
	}
}
