package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/testsuite"
	"kpatch.dev/kpatch/internal/varflags"
	kadmission "kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// registryNamespace is the registry namespace of both sides of the
// differential test: the webhook's default, and the CLI's.
const registryNamespace = "kpatch-system"

// errNotRegistry is a test of the corpus whose files make no valid
// registry (they do not compile, or they need what a ConfigMap cannot
// carry: --set, several values files, two files of one name).
var errNotRegistry = errors.New("not a valid registry")

// TestAdmissionMatchesWebhook compares the two adapters of one policy,
// admit.Admit: the webhook's Handler (over its informers' Namespaces and
// source ConfigMaps) and kpatch apply --admission (over its input,
// admit.Input). Over every apply test of the corpus whose files are a
// valid registry, the objects the CLI prints are, object by object, what
// the Handler admits, its JSONPatch applied to the object as the API
// server applies it. The CLI is the built binary, run with --registry on
// the same ConfigMaps the Handler's registry is compiled from, the
// Handler knows the input's Namespaces and source ConfigMaps, and the CLI
// exits 1 exactly when the Handler warns about an object. What differs
// between them is the adapters': how the object and the cluster are read,
// and how the answer is told.
func TestAdmissionMatchesWebhook(t *testing.T) {
	suites, err := filepath.Glob("testdata/*/kpatch-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	compared, patched := 0, 0
	for _, file := range suites {
		s, err := testsuite.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range s.Tests {
			if tc.Lint {
				continue
			}
			name := filepath.Base(filepath.Dir(file)) + "/" + tc.Name
			run := func(s *testsuite.Suite, o testsuite.Options, src filesource.Source, resources []string, _ *lint.Findings) (*manifest.Set, error) {
				n, err := compareWithWebhook(t, name, s, o, src, resources)
				switch {
				case errors.Is(err, errNotRegistry):
					t.Logf("%s: left out: %v", name, err)
				case err != nil:
					t.Errorf("%s: %v", name, err)
				default:
					compared++
					patched += n
				}
				return nil, nil
			}
			testsuite.Run(s, tc, false, testsuite.Runner{Apply: run})
		}
	}
	t.Logf("%d tests compared, %d objects patched", compared, patched)
	if compared < 100 || patched < 100 {
		t.Errorf("%d tests of the corpus compared, %d objects patched: the differential test covers too little", compared, patched)
	}
}

// compareWithWebhook runs one test of the corpus through the CLI (apply
// --admission --registry) and through the handler, and reports every
// object they answer differently for. It returns the number of objects
// the webhook changed.
func compareWithWebhook(t *testing.T, name string, s *testsuite.Suite, o testsuite.Options, src filesource.Source, resources []string) (int, error) {
	cms, regFiles, err := registryOf(t, s, o, src)
	if err != nil {
		return 0, err
	}
	build := (&registry.Compiler{}).Build(cms, nil)
	for _, f := range build.Registry.Files() {
		if f.Err != nil {
			return 0, fmt.Errorf("%w: %v", errNotRegistry, f.Err)
		}
	}
	if len(build.Problems) > 0 {
		return 0, fmt.Errorf("%w: %v", errNotRegistry, build.Problems)
	}
	in, err := manifest.ReadFiles(resources, src)
	if err != nil {
		return 0, err
	}
	var objs []map[string]any
	for _, d := range in.Docs {
		objs = append(objs, d.Items()...)
	}
	namespace := testsuite.Deref(o.Namespace)

	args := []string{"apply", "--admission", "-o", "yaml"}
	for _, f := range regFiles {
		args = append(args, "--registry", f)
	}
	if o.RegistrySelector != nil {
		args = append(args, "--registry-selector", *o.RegistrySelector)
	}
	for _, r := range resources {
		args = append(args, "-f", r)
	}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	cmd := exec.Command(kpatchBin, args...)
	cmd.Dir = src.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var exit *exec.ExitError
	if runErr != nil && !(errors.As(runErr, &exit) && exit.ExitCode() == 1) {
		return 0, fmt.Errorf("kpatch %s: %v\n%s", strings.Join(args, " "), runErr, stderr.String())
	}
	docs, err := manifest.ReadDocuments("stdout", &stdout)
	if err != nil {
		return 0, fmt.Errorf("kpatch %s: %v", strings.Join(args, " "), err)
	}
	var got []map[string]any
	for _, d := range docs {
		got = append(got, d.Items()...)
	}
	if len(got) != len(objs) {
		return 0, fmt.Errorf("kpatch %s printed %d objects, the input holds %d\n%s", strings.Join(args, " "), len(got), len(objs), stderr.String())
	}

	h := handlerFor(build.Registry, objs, namespace)
	warned, patched := false, 0
	for i, obj := range objs {
		want, warnings, err := admit(h, obj, namespace)
		if err != nil {
			t.Errorf("%s: object %d: %v", name, i, err)
			continue
		}
		warned = warned || len(warnings) > 0
		if objectDiff(obj, want) != "" {
			patched++
		}
		if diff := objectDiff(want, got[i]); diff != "" {
			t.Errorf("%s: object %d (%s): the CLI and the webhook differ (-webhook +cli):\n%s\nwebhook warnings: %q\nCLI stderr:\n%s", name, i, refText(obj), diff, warnings, stderr.String())
		}
	}
	if failed := runErr != nil; failed != warned {
		t.Errorf("%s: the CLI exits 1: %v, the webhook warns: %v\nCLI stderr:\n%s", name, failed, warned, stderr.String())
	}
	return patched, nil
}

// registryOf returns the registry ConfigMaps of a test and the manifest
// files that hold them: its registry manifests, or one ConfigMap holding
// its patch files (by file name), its values file and its schema,
// written to a file of the test's own.
func registryOf(t *testing.T, s *testsuite.Suite, o testsuite.Options, src filesource.Source) ([]corev1.ConfigMap, []string, error) {
	recursive := testsuite.Deref(o.Recursive)
	if len(o.Registry) > 0 {
		files, err := testsuite.InputFiles(src, o.Registry, filesource.Registry, s.OwnFiles(), recursive)
		if err != nil {
			return nil, nil, err
		}
		set, err := manifest.ReadFiles(files, src)
		if err != nil {
			return nil, nil, err
		}
		sel := labels.SelectorFromSet(labels.Set{"kpatch.dev/registry": "true"})
		if o.RegistrySelector != nil {
			if sel, err = labels.Parse(*o.RegistrySelector); err != nil {
				return nil, nil, err
			}
		}
		var cms []corev1.ConfigMap
		for _, d := range set.Docs {
			for _, obj := range d.Items() {
				var cm corev1.ConfigMap
				if obj["kind"] != "ConfigMap" || runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &cm) != nil || !sel.Matches(labels.Set(cm.Labels)) {
					continue
				}
				cms = append(cms, cm)
			}
		}
		return cms, files, nil
	}
	files, err := testsuite.InputFiles(src, o.Patches, filesource.Patches, s.OwnFiles(), recursive)
	if err != nil {
		return nil, nil, err
	}
	data := map[string]string{}
	add := func(key, file string) error {
		if _, dup := data[key]; dup {
			return fmt.Errorf("%w: two files named %s", errNotRegistry, key)
		}
		_, text, err := src.Read(file)
		data[key] = string(text)
		return err
	}
	for _, f := range files {
		if f == filesource.StdinName {
			return nil, nil, fmt.Errorf("%w: standard input", errNotRegistry)
		}
		if err := add(filepath.Base(f), f); err != nil {
			return nil, nil, err
		}
	}
	if len(o.Values) == 1 && len(o.Set) == 0 && len(o.SetString) == 0 {
		if err := add(registry.ValuesKey, o.Values[0]); err != nil {
			return nil, nil, err
		}
	} else if len(o.Values) > 0 || len(o.Set) > 0 || len(o.SetString) > 0 {
		// the values the flags give, resolved, as one values.yaml
		flags := varflags.Flags{Parameters: testsuite.Deref(o.Parameters), Files: o.Values, Sets: o.Set, Strings: o.SetString}
		found := &lint.Findings{}
		vars, err := flags.Load(src, found)
		if err != nil || found.Failed() || vars == nil {
			return nil, nil, fmt.Errorf("%w: the values do not load: %v %v", errNotRegistry, err, found.List)
		}
		text, err := yaml.Marshal(map[string]any{"values": vars.Values, "features": vars.Features})
		if err != nil {
			return nil, nil, err
		}
		data[registry.ValuesKey] = string(text)
	}
	if p := testsuite.Deref(o.Parameters); p != "" {
		if err := add(registry.ParametersKey, p); err != nil {
			return nil, nil, err
		}
	}
	cm := corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "corpus", Namespace: registryNamespace, Labels: map[string]string{"kpatch.dev/registry": "true"}},
		Data:       data,
	}
	text, err := yaml.Marshal(&cm)
	if err != nil {
		return nil, nil, err
	}
	file := filepath.Join(t.TempDir(), "registry.yaml")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		return nil, nil, err
	}
	return []corev1.ConfigMap{cm}, []string{file}, nil
}

// handlerFor is the webhook's handler over reg, not strict, whose caches
// hold the Namespaces of objs and their ConfigMaps labelled
// kpatch.dev/source=true (in namespace when they name none), the first
// of each name.
func handlerFor(reg *registry.Registry, objs []map[string]any, namespace string) *kadmission.Handler {
	namespaces := map[string]*corev1.Namespace{}
	sources := &informed.SourceConfigMaps{}
	seen := map[string]bool{}
	for _, obj := range objs {
		if obj["apiVersion"] != "v1" {
			continue
		}
		switch obj["kind"] {
		case "Namespace":
			var ns corev1.Namespace
			if runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &ns) == nil && namespaces[ns.Name] == nil {
				namespaces[ns.Name] = &ns
			}
		case "ConfigMap":
			var cm corev1.ConfigMap
			if runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &cm) != nil || cm.Labels[informed.SourceLabel] != "true" {
				continue
			}
			if cm.Namespace == "" {
				cm.Namespace = namespace
			}
			if key := cm.Namespace + "/" + cm.Name; !seen[key] {
				seen[key] = true
				sources.OnAdd(&cm, true)
			}
		}
	}
	return &kadmission.Handler{
		Registry:          func() *registry.Registry { return reg },
		RegistryNamespace: registryNamespace,
		Metrics:           metrics.NewMetrics(prometheus.NewRegistry()),
		Namespaces: informed.NamespacesFunc(func(name string) (*corev1.Namespace, bool) {
			ns, ok := namespaces[name]
			return ns, ok
		}),
		Sources: sources,
	}
}

// admit sends a CREATE of obj to the handler, as the API server sends it
// (in its namespace, else in namespace), and returns the object with the
// answer's JSONPatch applied, and the answer's warnings.
func admit(h *kadmission.Handler, obj map[string]any, namespace string) (map[string]any, []string, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" {
		namespace = ns
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, _ := schema.ParseGroupVersion(apiVersion)
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "differential",
		Kind:      metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind},
		Name:      name,
		Namespace: namespace,
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: raw},
	}})
	if !resp.Allowed {
		return nil, nil, fmt.Errorf("denied: %v", resp.Result)
	}
	out := raw
	if len(resp.Patch) > 0 {
		patch, err := jsonpatch.DecodePatch(resp.Patch)
		if err != nil {
			return nil, nil, fmt.Errorf("the JSONPatch does not decode: %v\n%s", err, resp.Patch)
		}
		if out, err = patch.Apply(raw); err != nil {
			return nil, nil, fmt.Errorf("the JSONPatch does not apply: %v\n%s", err, resp.Patch)
		}
	}
	var patched map[string]any
	if err := json.Unmarshal(out, &patched); err != nil {
		return nil, nil, err
	}
	return patched, resp.Warnings, nil
}

// objectDiff compares two objects as JSON data (3 and 3.0 are equal) and
// returns a diff of their indented JSON, or "" when they are equal.
func objectDiff(webhook, cli map[string]any) string {
	a, b := jsonData(webhook), jsonData(cli)
	if reflect.DeepEqual(a, b) {
		return ""
	}
	at, _ := json.MarshalIndent(a, "", "  ")
	bt, _ := json.MarshalIndent(b, "", "  ")
	return udiff.Unified("webhook", "cli", string(at)+"\n", string(bt)+"\n")
}

// jsonData is v as JSON decodes it.
func jsonData(v any) any {
	text, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("not JSON: %v", err)
	}
	var out any
	_ = json.Unmarshal(text, &out)
	return out
}

// refText names an object in messages.
func refText(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	return fmt.Sprintf("%v %v/%v", obj["kind"], md["namespace"], md["name"])
}
