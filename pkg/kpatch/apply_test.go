package kpatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

func mustObject(t testing.TB, src string) map[string]any {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(js, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func mustPatch(t testing.TB, name, src string) *Patch {
	t.Helper()
	p, err := ParseAndCompile(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func deepCopy(t testing.TB, v map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// normalize turns an object into plain JSON data, so that int64 and
// float64 numbers compare equal.
func normalize(t testing.TB, v map[string]any) map[string]any { return deepCopy(t, v) }

const webDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: app
        image: ghcr.io/example/web:1.2.3
        env:
        - {name: LOG_LEVEL, value: info}
        ports:
        - {name: http, containerPort: 8080}
      - name: sidecar
        image: envoy:v1
`

func TestApplyFileIsAtomic(t *testing.T) {
	obj := mustObject(t, webDeployment)
	before := deepCopy(t, obj)
	good := mustPatch(t, "good.kpatch", "[deployment.web]\nlabels.team: payments\n")
	bad := mustPatch(t, "bad.kpatch", "[deployment.web]\nreplicas: 5\nlabels.tier: front\ncontainers[name=missing].image: x\n")
	out, err := Apply(obj, []*Patch{bad, good}, ApplyOptions{})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("want one error, got %v", err)
	}
	var ae *ApplyError
	if !errors.As(list[0], &ae) || !errors.Is(err, ErrNoMatch) {
		t.Fatalf("want an *ApplyError wrapping ErrNoMatch, got %T %v", list[0], list[0])
	}
	if got := ae.Pos.String(); got != "bad.kpatch:4:11" {
		t.Errorf("position %s, want bad.kpatch:4:11", got)
	}
	if ae.Object != "Deployment shop/web" || !strings.Contains(ae.Error(), "bad.kpatch:4:11: Deployment shop/web: ") {
		t.Errorf("error does not name the object: %v", ae)
	}
	spec := out["spec"].(map[string]any)
	if spec["replicas"] != float64(2) {
		t.Errorf("the failing file's replicas leaked: %v", spec["replicas"])
	}
	labels := out["metadata"].(map[string]any)["labels"].(map[string]any)
	if _, ok := labels["tier"]; ok {
		t.Error("the failing file's label leaked")
	}
	if labels["team"] != "payments" {
		t.Errorf("the good file did not apply: %v", labels)
	}
	if !reflect.DeepEqual(obj, before) {
		t.Error("the input was modified")
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name, patch string
		pos         string
		sentinel    error
		msg         string
	}{
		{"no match in key", "[deployment.web]\ncontainers[name=app].env[name=X].value: 1\n", "f:2:25", ErrNoMatch, `no item of spec.template.spec.containers[name=app].env matches name=X`},
		{"no match in header", "[deployment.web.containers.name=db]\nimage: x\n", "f:2:1", ErrNoMatch, `matches name=db`},
		{"index past end", "[deployment.web]\ncontainers.5.image: x\n", "f:2:12", ErrIndex, "past the end"},
		{"insert after past end", "[deployment.web.containers.name=app]\nargs[+3]: x\n", "f:2:5", ErrIndex, "cannot insert after index 3"},
		{"undefined variable", "[deployment.web]\nreplicas: ${values.n}\n", "f:2:11", ErrVariable, "${values.n} is not defined"},
		{"image without repository", "[deployment.web.containers[-]]\nname: x\nimage.tag: v1\n", "f:3:7", ErrImage, `image ":v1" has no repository`},
		{"variable out of range", "[deployment.web]\nreplicas: ${values.big}\n", "f:2:11", ErrValue, "out of its range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObject(t, webDeployment)
			before := deepCopy(t, obj)
			vars := &Variables{Values: map[string]any{"big": json.Number("12345678901234567890")}}
			out, err := mustPatch(t, "f", tt.patch).WithVariables(vars).Apply(obj, ApplyOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			ae := err.(ErrorList)[0].(*ApplyError)
			if ae.Pos.String() != tt.pos {
				t.Errorf("position %s, want %s (%v)", ae.Pos, tt.pos, ae)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("%v is not %v", err, tt.sentinel)
			}
			if !strings.Contains(ae.Msg, tt.msg) {
				t.Errorf("message %q lacks %q", ae.Msg, tt.msg)
			}
			if !reflect.DeepEqual(out, before) || !reflect.DeepEqual(obj, before) {
				t.Error("a failing file changed the object")
			}
		})
	}
}

func TestApplyNamespaceOption(t *testing.T) {
	p := mustPatch(t, "f", "[prod/configmap.x]\ndata.a: b\n")
	obj := mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	out, _ := p.Apply(obj, ApplyOptions{})
	if _, ok := out["data"]; ok {
		t.Error("a namespace/ target matched an object without a namespace")
	}
	out, _ = p.Apply(obj, ApplyOptions{Namespace: "prod"})
	if out["data"] == nil {
		t.Error("the namespace option did not make the target match")
	}
}

func TestApplyVariables(t *testing.T) {
	p := mustPatch(t, "f", `[deployment.web]
replicas: ${values.n}
labels.host: "${values.name}.${values.domain}"
labels.quoted: "${values.n}"
annotations.enabled: ${features.on}
annotations.db: ${values.db.host}
annotations.lit: $${values.n}
`)
	vars := &Variables{Values: map[string]any{"n": int64(4), "name": "web", "domain": "example.com", "db": map[string]any{"host": "pg"}}, Features: map[string]any{"on": true}}
	out, err := p.WithVariables(vars).Apply(mustObject(t, webDeployment), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := out["metadata"].(map[string]any)
	labels, ann := md["labels"].(map[string]any), md["annotations"].(map[string]any)
	if got := out["spec"].(map[string]any)["replicas"]; got != int64(4) {
		t.Errorf("replicas %#v, want int64 4", got)
	}
	if labels["host"] != "web.example.com" || labels["quoted"] != "4" {
		t.Errorf("labels %v", labels)
	}
	if ann["enabled"] != "true" || ann["db"] != "pg" || ann["lit"] != "${values.n}" {
		t.Errorf("annotations %v", ann)
	}
	_, err = p.WithVariables(&Variables{Values: map[string]any{"n": "x"}}).Apply(mustObject(t, webDeployment), ApplyOptions{})
	if !errors.Is(err, ErrValue) && !errors.Is(err, ErrVariable) {
		t.Errorf("want a value or variable error, got %v", err)
	}
	_, err = p.WithVariables(&Variables{Values: map[string]any{"n": 1, "name": "a", "domain": "b", "db": map[string]any{"host": "x"}}, Features: map[string]any{"on": "yes"}}).Apply(mustObject(t, webDeployment), ApplyOptions{})
	if !errors.Is(err, ErrVariable) || !strings.Contains(err.Error(), "features are booleans") {
		t.Errorf("a non-boolean feature: %v", err)
	}
}

func TestApplyConcurrent(t *testing.T) {
	patches, data := benchPatchSet(t)
	obj := decodeObject(t, data)
	before := deepCopy(t, obj)
	want, err := Apply(obj, patches, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(want)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, err := Apply(obj, patches, ApplyOptions{})
				if err != nil {
					errs <- err
					return
				}
				if b, _ := json.Marshal(got); string(b) != string(wantJSON) {
					errs <- fmt.Errorf("a concurrent apply gave another result")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(obj, before) {
		t.Fatal("the input was modified")
	}
}

func TestSpecPaths(t *testing.T) {
	tests := map[string]string{
		"Deployment":  "spec spec.template.spec",
		"StatefulSet": "spec spec.template.spec",
		"Pod":         "spec",
		"CronJob":     "spec spec.jobTemplate.spec spec.jobTemplate.spec.template.spec",
		"PodTemplate": "template.spec",
		"Service":     "spec",
		"ConfigMap":   "",
	}
	for kind, want := range tests {
		ks := schemasFor(kind)
		if len(ks) == 0 {
			t.Errorf("%s: no schema", kind)
			continue
		}
		var got []string
		for _, p := range ks[0].specPaths {
			got = append(got, strings.Join(p, "."))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: spec paths %q, want %q", kind, got, want)
		}
	}
}

func TestImageRefParts(t *testing.T) {
	tests := []struct{ old, part, text, want string }{
		{"nginx:1.25", "tag", "1.27", "nginx:1.27"},
		{"nginx", "tag", "1.27", "nginx:1.27"},
		{"nginx:1.25", "registry", "mirror.io", "mirror.io/nginx:1.25"},
		{"docker.io/library/nginx:1.25", "registry", "mirror.io:5000", "mirror.io:5000/library/nginx:1.25"},
		{"docker.io/library/nginx:1.25", "repository", "ghcr.io/x/app", "ghcr.io/x/app:1.25"},
		{"localhost:5000/app:v1", "tag", "", "localhost:5000/app"},
		{"example/app:v1", "registry", "r.io", "r.io/example/app:v1"},
		{"app:v1", "digest", "sha256:" + strings.Repeat("a", 64), "app:v1@sha256:" + strings.Repeat("a", 64)},
		{"app@sha256:" + strings.Repeat("a", 64), "digest", "", "app"},
		{"", "tag", "v1", ":v1"},
		{":v1", "repository", "app", "app:v1"},
	}
	for _, tt := range tests {
		got, err := setImageRefPart(tt.old, tt.part, tt.text)
		if err != nil || got != tt.want {
			t.Errorf("%s with %s=%q: got %q, %v; want %q", tt.old, tt.part, tt.text, got, err, tt.want)
		}
	}
	for _, bad := range []struct{ old, part, text string }{
		{"nginx", "tag", "a b"}, {"nginx", "digest", "sha256:short"}, {"nginx", "repository", "app/UPPER"}, {"", "registry", "r.io"},
	} {
		if got, err := setImageRefPart(bad.old, bad.part, bad.text); err == nil || !errors.Is(err, ErrImage) {
			t.Errorf("%s with %s=%q: want ErrImage, got %q, %v", bad.old, bad.part, bad.text, got, err)
		}
	}
}

func TestVariablesSetAndLoad(t *testing.T) {
	var v Variables
	for _, s := range []string{"values.a=1", "values.db.host=pg", "values.s=\"2\"", "features.x=true"} {
		if err := v.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if v.Values["a"] != int64(1) || v.Values["db"].(map[string]any)["host"] != "pg" || v.Values["s"] != "2" || v.Features["x"] != true {
		t.Errorf("set: %#v", v)
	}
	for _, bad := range []string{"values.a", "env.a=1", "features.x=maybe", "values.a=[1]", "values.a=${values.b}"} {
		if err := (&Variables{}).Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	loaded, err := LoadVariables([]byte("values:\n  a: 2\n  b: x\nfeatures:\n  x: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	merged := loaded.Merge(&v)
	if merged.Values["a"] != int64(1) || merged.Values["b"] != "x" || merged.Features["x"] != true {
		t.Errorf("merge: %#v", merged)
	}
	for _, bad := range []string{"other: {}", "values: 3", "features: {x: 1}", "values: [", "- a"} {
		if _, err := LoadVariables([]byte(bad)); err == nil {
			t.Errorf("LoadVariables(%q) accepted", bad)
		}
	}
}

// corpusCases yields the conformance cases: their patch files (compiled,
// bound to values.yaml if there is one) and input objects.
func corpusCases(t *testing.T, fn func(name string, patches []*Patch, objs []map[string]any)) {
	dirs, _ := filepath.Glob("../../test/conformance/testdata/*")
	for _, dir := range dirs {
		files := patchFilesIn(dir)
		input, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
		if err != nil || len(files) == 0 {
			continue
		}
		var vars *Variables
		if data, err := os.ReadFile(filepath.Join(dir, "values.yaml")); err == nil {
			if vars, err = LoadVariables(data); err != nil {
				t.Fatal(err)
			}
		}
		var patches []*Patch
		for _, f := range files {
			src, _ := os.ReadFile(f)
			if p, err := ParseAndCompile(f, src); err == nil {
				patches = append(patches, p.WithVariables(vars))
			}
		}
		var objs []map[string]any
		for _, doc := range strings.Split(string(input), "\n---") {
			if strings.TrimSpace(doc) != "" {
				objs = append(objs, mustObject(t, doc))
			}
		}
		fn(filepath.Base(dir), patches, objs)
	}
}

// patchFilesIn lists a case's patch files: .kpatch and YAML patch files.
func patchFilesIn(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.kpatch"))
	yamls, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range yamls {
		switch filepath.Base(f) {
		case "input.yaml", "expected.yaml", "values.yaml":
		default:
			files = append(files, f)
		}
	}
	return files
}

// deletesByIndex reports whether a patch removes list items by index, the
// one operation that is not idempotent.
func deletesByIndex(p *Patch) bool {
	for _, s := range p.file.Sections {
		paths := []Path{s.Path}
		for _, e := range s.Entries {
			paths = append(paths, e.Key)
		}
		for _, path := range paths {
			if n := len(path); n > 0 && (path[n-1].Kind == DeleteItems && !path[n-1].ByMatch ||
				path[n-1].Kind == Delete && n > 1 && path[n-2].Kind == Index) {
				return true
			}
		}
	}
	return false
}

// TestPropertiesOnCorpus checks, for every conformance case, that the
// input is never modified and that applying twice equals applying once.
func TestPropertiesOnCorpus(t *testing.T) {
	n := 0
	corpusCases(t, func(name string, patches []*Patch, objs []map[string]any) {
		for _, obj := range objs {
			before := deepCopy(t, obj)
			once, err1 := Apply(obj, patches, ApplyOptions{})
			if !reflect.DeepEqual(obj, before) {
				t.Errorf("%s: the input was modified", name)
			}
			onceCopy := deepCopy(t, once)
			twice, err2 := Apply(once, patches, ApplyOptions{})
			if !reflect.DeepEqual(normalize(t, once), onceCopy) {
				t.Errorf("%s: the second apply modified its input", name)
			}
			idempotent := true
			for _, p := range patches {
				idempotent = idempotent && !deletesByIndex(p)
			}
			if idempotent && (err1 == nil) == (err2 == nil) && !reflect.DeepEqual(normalize(t, once), normalize(t, twice)) {
				t.Errorf("%s: applying twice differs from once\nonce:  %v\ntwice: %v", name, once, twice)
			}
			n++
		}
	})
	if n < 50 {
		t.Fatalf("only %d objects in the corpus", n)
	}
}

// TestPropertiesRandom generates patch files from realistic entries and
// checks idempotence and that the input is never modified.
func TestPropertiesRandom(t *testing.T) {
	entries := []string{
		"replicas: %d", "labels.team: t%d", "annotations[example.com/rev]: \"%d\"",
		"containers[name=app].image.tag: v%d", "containers[name=app].env[name=LOG_LEVEL].value: l%d",
		"containers[name=app].args[-]: --flag-%d", "containers[name=app].args[+0]: --first-%d",
		"containers[name=app].resources.limits.cpu: %dm", "containers.imagePullPolicy: Always",
		"containers[name=sidecar].args[-0]: --p%d", "containers[name=app].securityContext.capabilities.add[-]: CAP%d",
		"containers[name=app].env[delete=name=X%d]:", "labels.gone%d[delete]:", "[delete]annotations.old%d:",
		"nodeSelector[kubernetes.io/arch]: arch%d", "containers[*].securityContext.runAsNonRoot: true",
		"containers[name=app].ports[name=http].containerPort: %d",
		"allContainers[name=app].image.registry: mirror%d.internal", "allContainers.imagePullPolicy: IfNotPresent",
		"allContainers[*].securityContext.runAsUser: %d", "template.metadata.labels.team: t%d",
	}
	headers := []string{"[deployment.web]", "[deployment.*]", "[shop/deployment.web]", "[deployment.other]", "[@workload.web]", "[*ment.*]", "[*(apps).web]"}
	rng := rand.New(rand.NewPCG(1, 2))
	obj := mustObject(t, webDeployment)
	before := deepCopy(t, obj)
	for i := range 300 {
		var b strings.Builder
		// insertions first: an entry that addresses every item, written
		// before an insertion, meets the new item only on a second run
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "[deployment.web.containers[-]]\nname: extra%d\nimage: busybox\n", rng.IntN(2))
		}
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "[deployment.web.containers[name=app].ports[-]]\ncontainerPort: %d\n", 9090+rng.IntN(2))
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "[@workload.web.allContainers[-]]\nname: extra%d\nimage: busybox\n", rng.IntN(2))
		}
		for range 1 + rng.IntN(3) {
			header := headers[rng.IntN(len(headers))]
			b.WriteString(header + "\n")
			workload := strings.HasPrefix(header, "[@")
			for range 1 + rng.IntN(5) {
				entry, n := entries[rng.IntN(len(entries))], rng.IntN(4)+1
				if workload && strings.HasPrefix(entry, "replicas") || !workload && strings.HasPrefix(entry, "template.") {
					continue // not a path of the kinds the header targets
				}
				if strings.Contains(entry, "%") {
					entry = fmt.Sprintf(entry, n)
				}
				b.WriteString(entry + "\n")
			}
		}
		src := b.String()
		p, err := ParseAndCompile("gen.kpatch", []byte(src))
		if err != nil {
			t.Fatalf("generated file %d does not parse: %v\n%s", i, err, src)
		}
		once, err1 := p.Apply(obj, ApplyOptions{})
		twice, err2 := p.Apply(once, ApplyOptions{})
		if !reflect.DeepEqual(obj, before) {
			t.Fatalf("file %d modified the input\n%s", i, src)
		}
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(normalize(t, once), normalize(t, twice)) {
			t.Fatalf("file %d: twice differs from once (%v / %v)\n%s", i, err1, err2, src)
		}
		if _, err := json.Marshal(once); err != nil {
			t.Fatalf("file %d: result does not marshal: %v", i, err)
		}
	}
}

// TestReviewedEdgeCases holds the fixes of a code review.
func TestReviewedEdgeCases(t *testing.T) {
	cm := mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, annotations: {\"0\": x, a: b}}\ndata: {\"0\": y}\n")
	out, err := mustPatch(t, "f", "[configmap.c]\n[delete]annotations.0:\ndata.0[delete]:\n").Apply(cm, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ann := out["metadata"].(map[string]any)["annotations"].(map[string]any); len(ann) != 1 || ann["a"] != "b" {
		t.Errorf("a numeric map key was not deleted: %v", ann)
	}
	if data := out["data"].(map[string]any); len(data) != 0 {
		t.Errorf("data.0 not deleted: %v", data)
	}

	d := mustObject(t, webDeployment)
	out, err = mustPatch(t, "f", "[deployment.web]\nreplicas: \"010\"\n[delete]containers.5.args:\n").Apply(d, ApplyOptions{})
	if err != nil || out["spec"].(map[string]any)["replicas"] != int64(10) {
		t.Errorf("\"010\" into replicas: %v, %v", out["spec"].(map[string]any)["replicas"], err)
	}
	if _, err := ParseAndCompile("f", []byte("[deployment.web]\nreplicas: \"1_0\"\n")); !errors.Is(err, ErrValue) {
		t.Errorf("\"1_0\" into replicas: %v", err)
	}

	noNS := mustObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	if out, _ := mustPatch(t, "f", "[*/configmap.c]\nlabels.a: b\n").Apply(noNS, ApplyOptions{}); out["metadata"].(map[string]any)["labels"] != nil {
		t.Error("a */ target matched an object without a namespace")
	}

	widget := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n")
	out, err = mustPatch(t, "f", "[widget.w]\nspec.image.tag: v2\n").Apply(widget, ApplyOptions{})
	if img, _ := out["spec"].(map[string]any)["image"].(map[string]any); err != nil || img["tag"] != "v2" {
		t.Errorf("a missing custom resource image became %v (%v)", out["spec"], err)
	}

	if got := jsonvalue.FormatFloat(1e-7); got != "1e-7" {
		t.Errorf("jsonvalue.FormatFloat(1e-7) = %s", got)
	}
}

// TestHugeAndDeepObjects applies to a very deep object and to a very long
// list: no stack or time blow-up, the usual errors, nothing modified.
func TestHugeAndDeepObjects(t *testing.T) {
	deep := map[string]any{}
	cur := deep
	for range 5000 {
		next := map[string]any{}
		cur["a"] = next
		cur = next
	}
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": deep}
	p := mustPatch(t, "f", "[widget.w]\nspec.a.a.a.b: 1\nspec.a.a.a.a.a[-]: x\n")
	out, err := p.Apply(obj, ApplyOptions{})
	if !errors.Is(err, ErrType) {
		t.Fatalf("appending to a map: %v", err)
	}
	if !reflect.DeepEqual(out, obj) {
		t.Error("a failing file changed the deep object")
	}
	items := make([]any, 100000)
	for i := range items {
		items[i] = map[string]any{"name": fmt.Sprintf("i%d", i), "v": int64(i)}
	}
	list := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"items": items}}
	out, err = mustPatch(t, "f", "[widget.w]\nspec.items[name=i99999].v: -1\nspec.items[v=5].name: five\n").Apply(list, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := out["spec"].(map[string]any)["items"].([]any)
	if got[99999].(map[string]any)["v"] != int64(-1) || got[5].(map[string]any)["name"] != "five" || items[5].(map[string]any)["name"] != "i5" {
		t.Error("the long list was not patched as expected, or the input changed")
	}
}

func TestRefOf(t *testing.T) {
	obj := mustObject(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	want := ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	if got := RefOf(obj, "shop"); got != want {
		t.Errorf("RefOf = %+v, want %+v", got, want)
	}
	obj["metadata"].(map[string]any)["namespace"] = "own"
	if got := RefOf(obj, "shop"); got.Namespace != "own" {
		t.Errorf("the object's namespace is not kept: %+v", got)
	}
}
