package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	sigsjson "sigs.k8s.io/json"

	kadmission "kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// propertyCases is how many registries TestEveryAnswerDecodesStrictly
// generates; propertySeed makes them the same on every run.
const (
	propertyCases = 400
	propertySeed  = 23
)

// TestEveryAnswerDecodesStrictly is the invariant of the write path as a
// property: whatever patch files a registry holds, every object the
// webhook answers with is one the API server decodes for its kind. For
// each case it generates a registry of random files over one object of
// the conformance inputs (field entries setting paths the object has to
// scalars of every type, deletes, list appends, new fields, merge and
// strategic patches; a third of the values are variables bound to the
// same scalars in the ConfigMap's values.yaml), runs the object through the admission handler in
// process, applies the JSONPatch of the answer and decodes the result
// strictly into the kind's Go type (unknown fields, scalar types,
// quantities), then checks every enum field holds one of its values.
// Only objects that pass this check as they are take part: what the
// object came with is not the files' doing.
func TestEveryAnswerDecodesStrictly(t *testing.T) {
	objects := conformanceObjects(t)
	if len(objects) < 20 {
		t.Fatalf("only %d conformance objects decode strictly", len(objects))
	}
	rng := rand.New(rand.NewPCG(propertySeed, propertySeed))
	var patched, refusedFiles, compiled int
	for i := range propertyCases {
		obj := objects[rng.IntN(len(objects))]
		files := map[string]string{}
		vals := &valuesFile{}
		for f := range 1 + rng.IntN(3) {
			name, text := randomFile(rng, obj, f, vals)
			files[name] = text
		}
		if len(vals.lines) > 0 {
			files["values.yaml"] = "values:\n" + strings.Join(vals.lines, "")
		}
		var c registry.Compiler
		cm := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "reg", Namespace: "kpatch-system", UID: "uid-reg", ResourceVersion: strconv.Itoa(i + 1)}, Data: files}
		built := c.Build([]corev1.ConfigMap{cm}, nil)
		refusedFiles += len(built.Problems)
		compiled += len(files) - len(built.Problems)
		if _, ok := files["values.yaml"]; ok {
			compiled-- // values, not a patch file
		}
		reg := built.Registry
		h := &kadmission.Handler{Registry: func() *registry.Registry { return reg }, RegistryNamespace: "kpatch-system"}
		resp := h.Handle(context.Background(), obj.request())
		if !resp.Allowed {
			t.Fatalf("case %d: %s denied: %v\nfiles: %q", i, obj.name, resp.Result, files)
		}
		if len(resp.Patch) == 0 {
			continue
		}
		patched++
		jp, err := jsonpatch.DecodePatch(resp.Patch)
		if err != nil {
			t.Fatalf("case %d: the JSONPatch does not decode: %v\n%s", i, err, resp.Patch)
		}
		out, err := jp.Apply(obj.raw)
		if err != nil {
			t.Fatalf("case %d: the JSONPatch does not apply: %v\n%s", i, err, resp.Patch)
		}
		if err := decodesStrictly(obj.gvk, out); err != nil {
			t.Errorf("case %d: the answer for %s is refused: %v\nfiles: %q\nwarnings: %q\nresult: %s", i, obj.name, err, files, resp.Warnings, out)
		}
	}
	t.Logf("%d cases over %d objects: %d answers with a patch, %d files compiled, %d refused at compile time", propertyCases, len(objects), patched, compiled, refusedFiles)
	// The property says nothing if the files rarely change anything.
	if patched < propertyCases/3 {
		t.Fatalf("only %d of %d cases patched their object", patched, propertyCases)
	}
}

// propertyObject is an object of the conformance inputs.
type propertyObject struct {
	name  string // case/kind/name, for messages
	gvk   k8sschema.GroupVersionKind
	raw   []byte
	value map[string]any
}

func (o *propertyObject) request() admission.Request {
	meta, _ := o.value["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	if ns == "" {
		ns = "default"
	}
	name, _ := meta["name"].(string)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "property", Operation: admissionv1.Create, Namespace: ns, Name: name,
		Kind:   metav1.GroupVersionKind{Group: o.gvk.Group, Version: o.gvk.Version, Kind: o.gvk.Kind},
		Object: runtime.RawExtension{Raw: o.raw},
	}}
}

// conformanceObjects reads the objects of every case's input.yaml that
// are of a built-in kind and decode strictly as they are.
func conformanceObjects(t *testing.T) []*propertyObject {
	t.Helper()
	inputs, err := filepath.Glob("testdata/*/input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var objects []*propertyObject
	for _, input := range inputs {
		data, err := os.ReadFile(input)
		if err != nil {
			t.Fatal(err)
		}
		dec := yamlutil.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var value map[string]any
			if err := dec.Decode(&value); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Logf("%s: %v", input, err)
				}
				break
			}
			raw, err := json.Marshal(value)
			if err != nil || value == nil || seen[string(raw)] {
				continue
			}
			apiVersion, _ := value["apiVersion"].(string)
			kind, _ := value["kind"].(string)
			gv, err := k8sschema.ParseGroupVersion(apiVersion)
			if err != nil || kind == "" || !scheme.Scheme.Recognizes(gv.WithKind(kind)) {
				continue
			}
			meta, _ := value["metadata"].(map[string]any)
			name, _ := meta["name"].(string)
			if name == "" || decodesStrictly(gv.WithKind(kind), raw) != nil {
				continue
			}
			seen[string(raw)] = true
			objects = append(objects, &propertyObject{name: filepath.Base(filepath.Dir(input)) + "/" + kind + "/" + name, gvk: gv.WithKind(kind), raw: raw, value: value})
		}
	}
	return objects
}

// decodesStrictly decodes raw as the API server does (case-sensitive
// names, no unknown or duplicate fields, typed scalars, quantities) into
// the Go type of gvk, and checks that every field of an enum type holds
// one of its values or the empty text.
func decodesStrictly(gvk k8sschema.GroupVersionKind, raw []byte) error {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(raw, obj)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return errors.Join(strict...)
	}
	return enums(reflect.ValueOf(obj), "")
}

// enums checks the enum fields under v, path naming v in messages.
func enums(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return enums(v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			if err := enums(v.Field(i), path+"."+name); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if err := enums(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := enums(it.Value(), path+"["+fmt.Sprint(it.Key())+"]"); err != nil {
				return err
			}
		}
	case reflect.String:
		if values := kpatch.EnumValues(v.Type()); values != nil && v.String() != "" && !slices.Contains(values, v.String()) {
			return fmt.Errorf("%s: %q is not one of %v", path, v.String(), values)
		}
	}
	return nil
}

// fieldPath is a path in an object: map keys (string) and list indexes
// (int).
type fieldPath []any

// paths lists the paths under v: its scalars, maps and lists.
func paths(v any, at fieldPath, scalars, maps, lists *[]fieldPath) {
	switch v := v.(type) {
	case map[string]any:
		*maps = append(*maps, at)
		for _, k := range sortedKeys(v) {
			paths(v[k], append(slices.Clip(at), k), scalars, maps, lists)
		}
	case []any:
		*lists = append(*lists, at)
		for i, e := range v {
			paths(e, append(slices.Clip(at), i), scalars, maps, lists)
		}
	default:
		*scalars = append(*scalars, at)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// kpatchKey writes a path as a .kpatch key: indexes as numbers, keys
// bracketed when they hold a character the path syntax reads.
func kpatchKey(p fieldPath) string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		switch s := s.(type) {
		case int:
			b.WriteString(strconv.Itoa(s))
		case string:
			if strings.ContainsAny(s, ".=[]*?:#\"' -+") || s == "" {
				b.WriteString("[" + s + "]")
			} else {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// scalarTexts are values of every type as .kpatch writes them: numbers,
// text that looks like numbers, booleans, null, quantities, enum values
// and near misses, text that does not fit a number.
var scalarTexts = []string{
	"3", "-1", "0", "1.0", "1.10", "010", "0x1F", "2.5", "1e3", "99999999999999999999", "2147483648",
	"true", "false", "null", `"3"`, `"1.0"`, `"true"`, `""`, "500m", "1Gi", "banana",
	"Always", "Allways", "IfNotPresent", "TCP", "tcp", "ClusterIP", "OnFailure", "nginx:1.25", "x y",
}

// scalarJSON are the same kinds of values for merge and strategic
// patches.
var scalarJSON = []any{3, -1, 0, 1.0, 1.5, "1.10", "010", true, false, nil, "3", "", "500m", "Allways", "Always", "TCP", "banana", 1e20}

// newFields are names a file may add under a map of the object.
var newFields = []string{"replicas", "image", "value", "name", "x", "protocol", "type", "labels", "cpu", "app"}

// valuesFile collects the values of a registry ConfigMap's values.yaml.
type valuesFile struct{ lines []string }

// maybeVariable returns the text of a value, or a variable bound to it
// in the values file: the values file writes it as the patch file would.
func (v *valuesFile) maybeVariable(rng *rand.Rand, text string, quote bool) string {
	if rng.IntN(3) != 0 {
		return text
	}
	name := "v" + strconv.Itoa(len(v.lines))
	v.lines = append(v.lines, fmt.Sprintf("  %s: %s\n", name, text))
	if quote {
		return `"${values.` + name + `}"`
	}
	return "${values." + name + "}"
}

// randomFile writes a patch file over obj: a .kpatch file of field
// entries, deletes and appends, or a YAML merge or strategic patch.
func randomFile(rng *rand.Rand, obj *propertyObject, n int, vals *valuesFile) (string, string) {
	var scalars, maps, lists []fieldPath
	paths(obj.value, nil, &scalars, &maps, &lists)
	target := strings.ToLower(obj.gvk.Kind) + ".*"
	if rng.IntN(4) == 0 {
		var b strings.Builder
		kind := "merge"
		if rng.IntN(2) == 0 {
			kind = "strategic"
		}
		fmt.Fprintf(&b, "- target: %s\n  type: %s\n  patch: %s\n", target, kind, mergePatch(rng, scalars, maps, vals))
		return fmt.Sprintf("f%d-%s.yaml", n, kind), b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", target)
	for range 1 + rng.IntN(4) {
		value := vals.maybeVariable(rng, scalarTexts[rng.IntN(len(scalarTexts))], false)
		switch op := rng.IntN(10); {
		case op < 5 && len(scalars) > 0:
			fmt.Fprintf(&b, "%s: %s\n", kpatchKey(scalars[rng.IntN(len(scalars))]), value)
		case op < 6 && len(scalars) > 0:
			fmt.Fprintf(&b, "%s[delete]:\n", kpatchKey(scalars[rng.IntN(len(scalars))]))
		case op < 8 && len(lists) > 0:
			fmt.Fprintf(&b, "%s[-]: %s\n", kpatchKey(lists[rng.IntN(len(lists))]), value)
		case len(maps) > 1:
			p := maps[1+rng.IntN(len(maps)-1)] // not the root: its fields are the kind's
			fmt.Fprintf(&b, "%s: %s\n", kpatchKey(append(slices.Clip(p), newFields[rng.IntN(len(newFields))])), value)
		}
	}
	return fmt.Sprintf("f%d.kpatch", n), b.String()
}

// mergePatch writes a merge patch as JSON (which YAML reads): a value at
// the map part of a path the object has, or a new field of a map.
func mergePatch(rng *rand.Rand, scalars, maps []fieldPath, vals *valuesFile) string {
	var p fieldPath
	if len(scalars) > 0 && rng.IntN(2) == 0 {
		p = scalars[rng.IntN(len(scalars))]
	} else if len(maps) > 1 {
		p = append(slices.Clip(maps[1+rng.IntN(len(maps)-1)]), newFields[rng.IntN(len(newFields))])
	}
	if i := slices.IndexFunc(p, func(s any) bool { _, ok := s.(int); return ok }); i >= 0 {
		p = p[:i] // merge patches replace lists whole: stop at the first
	}
	var v any = scalarJSON[rng.IntN(len(scalarJSON))]
	if text, err := json.Marshal(v); err == nil {
		if ref := vals.maybeVariable(rng, string(text), false); ref != string(text) {
			v = ref // a string that is exactly one variable takes its type
		}
	}
	for i := len(p) - 1; i >= 0; i-- {
		v = map[string]any{p[i].(string): v}
	}
	if _, ok := v.(map[string]any); !ok {
		v = map[string]any{"metadata": map[string]any{"labels": map[string]any{"x": v}}}
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestDecodesStrictlyRefuses shows the property's oracle refuses what the
// API server refuses: a number in a string field, an unknown field, a
// quantity that does not parse, a value outside an enum.
func TestDecodesStrictlyRefuses(t *testing.T) {
	deployment := k8sschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	const ok = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","annotations":{"version":"1.0"}},"spec":{"template":{"spec":{"containers":[{"name":"a","imagePullPolicy":"Always","resources":{"limits":{"cpu":"500m"}}}]}}}}`
	if err := decodesStrictly(deployment, []byte(ok)); err != nil {
		t.Fatalf("a valid Deployment is refused: %v", err)
	}
	for name, bad := range map[string][2]string{
		"number in a string field": {`"version":"1.0"`, `"version":1`},
		"unknown field":            {`"name":"a",`, `"name":"a","imagePullPolicyy":"Always",`},
		"quantity":                 {`"500m"`, `"banana"`},
		"enum":                     {`"Always"`, `"Allways"`},
	} {
		raw := strings.Replace(ok, bad[0], bad[1], 1)
		if raw == ok {
			t.Fatalf("%s: the case does not change the object", name)
		}
		if err := decodesStrictly(deployment, []byte(raw)); err == nil {
			t.Errorf("%s: %s is accepted", name, raw)
		}
	}
}
