package kpatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

const ifAbsentDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app.kubernetes.io/name: mine}
spec:
  template:
    spec:
      containers:
      - name: main
        image: ghcr.io/example/web
        resources: {requests: {cpu: 500m}}
      - name: side
        image: envoy:v1
        resources: {requests: {cpu: null}}
      - name: bare
        image: busybox
        resources: {requests: {}}
`

// TestIfAbsentApply: a `?` entry sets its field where the object holds
// no value there (absent or null) and leaves any value, even an empty
// one, alone; each item under a selector or `*` is decided on its own.
func TestIfAbsentApply(t *testing.T) {
	tests := []struct {
		name, file, src string
		path            []any // where to read the result
		want            any
	}{
		{"present kept", "f.kpatch", "[deployment.web.containers.name=main]\nresources.requests.cpu?: 250m\n",
			[]any{"spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"}, "500m"},
		{"null filled", "f.kpatch", "[deployment.web.containers.name=side]\nresources.requests.cpu?: 250m\n",
			[]any{"spec", "template", "spec", "containers", 1, "resources", "requests", "cpu"}, "250m"},
		{"absent filled", "f.kpatch", "[deployment.web.containers.name=bare]\nresources.requests.cpu?: 250m\n",
			[]any{"spec", "template", "spec", "containers", 2, "resources", "requests", "cpu"}, "250m"},
		{"absent maps created", "f.kpatch", "[deployment.web]\nstrategy.rollingUpdate.maxSurge?: 1\n",
			[]any{"spec", "strategy", "rollingUpdate", "maxSurge"}, int64(1)},
		{"empty map is a value", "f.kpatch", "[deployment.web.containers.name=bare]\nresources.requests?: ${values.none}\n",
			[]any{"spec", "template", "spec", "containers", 2, "resources", "requests"}, map[string]any{}},
		{"every item on its own", "f.kpatch", "[deployment.web]\ncontainers.resources.requests.cpu?: 250m\n",
			[]any{"spec", "template", "spec", "containers"}, []any{"500m", "250m", "250m"}},
		{"star", "f.kpatch", "[deployment.web.containers[*]]\nresources.requests.cpu?: 1\n",
			[]any{"spec", "template", "spec", "containers"}, []any{"500m", "1", "1"}},
		{"bracketed label kept", "f.kpatch", "[deployment.web]\nlabels[app.kubernetes.io/name]?: web\n",
			[]any{"metadata", "labels", "app.kubernetes.io/name"}, "mine"},
		{"bracketed annotation set", "f.kpatch", "[deployment.web]\nannotations[example.com/x]?: y\n",
			[]any{"metadata", "annotations", "example.com/x"}, "y"},
		{"earlier entry decides", "f.kpatch", "[deployment.web]\nreplicas: 3\nreplicas?: 2\n",
			[]any{"spec", "replicas"}, int64(3)},
		{"later ordinary entry wins", "f.kpatch", "[deployment.web]\nreplicas?: 2\nreplicas: 3\n",
			[]any{"spec", "replicas"}, int64(3)},
		{"image tag absent", "f.kpatch", "[deployment.web.containers.name=main]\nimage.tag?: v2\n",
			[]any{"spec", "template", "spec", "containers", 0, "image"}, "ghcr.io/example/web:v2"},
		{"image tag present", "f.kpatch", "[deployment.web.containers.name=side]\nimage.tag?: v2\n",
			[]any{"spec", "template", "spec", "containers", 1, "image"}, "envoy:v1"},
		{"yaml whole map not merged", "f.yaml", "- target: deployment.web\n  patch:\n    containers[name=main].resources.requests?: {cpu: 1, memory: 1Gi}\n",
			[]any{"spec", "template", "spec", "containers", 0, "resources", "requests"}, map[string]any{"cpu": "500m"}},
		{"yaml whole map where absent", "f.yaml", "- target: deployment.web\n  patch:\n    containers[name=main].resources.limits?: {cpu: 1, memory: 1Gi}\n",
			[]any{"spec", "template", "spec", "containers", 0, "resources", "limits"}, map[string]any{"cpu": "1", "memory": "1Gi"}},
		{"yaml quoted key", "f.yaml", "- target: deployment.web\n  patch:\n    \"labels[app.kubernetes.io/name]?\": web\n    'annotations.a?': b\n",
			[]any{"metadata"}, map[string]any{"name": "web", "labels": map[string]any{"app.kubernetes.io/name": "mine"}, "annotations": map[string]any{"a": "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPatch(t, tt.file, tt.src)
			if tt.name == "empty map is a value" {
				p = p.WithVariables(&Variables{Values: map[string]any{"none": map[string]any{"cpu": "1"}}})
			}
			obj := mustObject(t, ifAbsentDeployment)
			before := deepCopy(t, obj)
			out, err := p.Apply(obj, ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(obj, before) {
				t.Fatal("the input object was modified")
			}
			got := lookupTest(normalize(t, out), tt.path)
			if list, ok := tt.want.([]any); ok && len(tt.path) == 4 { // the cpu request of every container
				var cpus []any
				for _, c := range got.([]any) {
					cpus = append(cpus, lookupTest(c, []any{"resources", "requests", "cpu"}))
				}
				got = cpus
				tt.want = list
			}
			if want := normalizeAny(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, want %#v", got, want)
			}
			again, err := p.Apply(out, ApplyOptions{})
			if err != nil || !jsonvalue.Equal(again, out) {
				t.Errorf("not idempotent (%v)", err)
			}
		})
	}
}

// TestIfAbsentInsertion: under an insertion header a `?` entry compares
// against the item being built: a new item holds what the section's
// earlier entries wrote; the twin found by the list's merge key holds
// its own fields, which `?` keeps.
func TestIfAbsentInsertion(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "[deployment.web.containers[-]]\nname: side\nimage?: proxy:1\nimagePullPolicy: Always\nimagePullPolicy?: Never\n"+
		"[deployment.web.containers[-]]\nname: new\nimage?: new:1\nimage?: new:2\n")
	out, err := p.Apply(mustObject(t, ifAbsentDeployment), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	containers := lookupTest(out, []any{"spec", "template", "spec", "containers"}).([]any)
	if len(containers) != 4 {
		t.Fatalf("%d containers, want 4", len(containers))
	}
	side, added := containers[1].(map[string]any), containers[3].(map[string]any)
	if side["image"] != "envoy:v1" || side["imagePullPolicy"] != "Always" {
		t.Errorf("twin: %v; want its image kept and the policy set once", side)
	}
	if added["name"] != "new" || added["image"] != "new:1" {
		t.Errorf("new item: %v; want the first image?", added)
	}
}

// TestIfAbsentOrderAcrossFiles: `?` reads the object as the files before
// it left it; a later ordinary file overrides it.
func TestIfAbsentOrderAcrossFiles(t *testing.T) {
	set := mustPatch(t, "a.kpatch", "[deployment.web]\nreplicas: 3\n")
	def := mustPatch(t, "b.kpatch", "[deployment.web]\nreplicas?: 2\n")
	for _, tt := range []struct {
		patches []*Patch
		want    float64
	}{{[]*Patch{set, def}, 3}, {[]*Patch{def, set}, 3}, {[]*Patch{def}, 2}} {
		out, err := Apply(mustObject(t, ifAbsentDeployment), tt.patches, ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := lookupTest(normalize(t, out), []any{"spec", "replicas"}); got != tt.want {
			t.Errorf("%s then %s: replicas %v, want %v", tt.patches[0].Name(), tt.patches[len(tt.patches)-1].Name(), got, tt.want)
		}
	}
}

// TestIfAbsentCustomResource: on a kind without a schema, a field whose
// name ends in `?` is written escaped or bracketed; a last `?` marks the
// entry.
func TestIfAbsentCustomResource(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "[widget.w]\nspec.a\\?: 1\nspec[b?]: 2\nspec.c?: 3\nspec.d?: 4\n")
	obj := mustObject(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {c: 0}\n")
	out, err := p.Apply(obj, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a?": float64(1), "b?": float64(2), "c": float64(0), "d": float64(4)}
	if got := normalize(t, out)["spec"]; !reflect.DeepEqual(got, want) {
		t.Errorf("spec %v, want %v", got, want)
	}
}

// TestIfAbsentParseErrors: a `?` stands only at the end of an entry's key
// that ends in a field, map key or index, and not with ${required}.
func TestIfAbsentParseErrors(t *testing.T) {
	tests := []struct{ name, file, src, pos, msg string }{
		{"header", "f.kpatch", "[deployment.web.resources?]\nlimits.cpu: 1\n", "f.kpatch:1:26", "ends an entry's key only"},
		{"insertion header", "f.kpatch", "[deployment.web.tolerations[-]?]\nkey: a\n", "f.kpatch:1:31", "ends an entry's key only"},
		{"not last", "f.kpatch", "[deployment.web]\nresources?.limits.cpu: 1\n", "f.kpatch:2:10", `written resources\? or [resources?]`},
		{"after a bracket not last", "f.kpatch", "[deployment.web]\ncontainers[name=main]?.image: x\n", "f.kpatch:2:22", "ends an entry's key only"},
		{"selector", "f.kpatch", "[deployment.web]\ncontainers[name=main]?: x\n", "f.kpatch:2:22", "cannot follow a selector"},
		{"star", "f.kpatch", "[deployment.web]\nargs[*]?: x\n", "f.kpatch:2:8", "cannot follow a selector"},
		{"insertion", "f.kpatch", "[deployment.web]\nargs[-]?: x\n", "f.kpatch:2:8", "cannot follow an insertion"},
		{"delete", "f.kpatch", "[deployment.web]\nlabels.a[delete]?:\n", "f.kpatch:2:17", "a delete sets nothing"},
		{"required", "f.kpatch", "[deployment.web]\nreplicas?: ${required}\n", "f.kpatch:2:9", "${required} gives none"},
		{"blank", "f.kpatch", "[deployment.web]\nreplicas ?: 1\n", "f.kpatch:2:10", "without a blank"},
		{"yaml required", "f.yaml", "- target: deployment.web\n  patch:\n    replicas?: $required\n", "f.yaml:3:13", "${required} gives none"},
		{"yaml not last", "f.yaml", "- target: deployment.web\n  patch:\n    resources?.limits: {cpu: 1}\n", "f.yaml:3:14", "ends an entry's key only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAny(tt.file, []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrSyntax) || !strings.HasPrefix(err.Error(), tt.pos+": ") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q, want ErrSyntax at %s with %q", err, tt.pos, tt.msg)
			}
		})
	}
}

// TestIfAbsentRoundTrip: the printer keeps the mark and escapes a field
// name's own last `?`.
func TestIfAbsentRoundTrip(t *testing.T) {
	src := "[widget.w]\nspec.a?: 1\nspec.b\\?: 2\nspec[c?]: 3\nlabels[x.y/z]?: 4\nspec.d\\\\?: 5\nspec.list.0?: 6\nspec.list[name=\"x?\"]:\n"
	f, err := ParseString("f.kpatch", src)
	if err != nil {
		t.Fatal(err)
	}
	var marked []bool
	for _, e := range f.Sections[0].Entries {
		marked = append(marked, e.IfAbsent)
	}
	if want := []bool{true, false, false, true, true, true, false}; !reflect.DeepEqual(marked, want) {
		t.Errorf("marks %v, want %v", marked, want)
	}
	assertRoundTrip(t, f)
	if got := f.String(); got != src {
		t.Errorf("printed\n%s\nwant\n%s", got, src)
	}
}

// TestIfAbsentNeverConflicts: a `?` entry overrides no value, so it is
// in no conflict, before or after an ordinary entry of the same field; two
// ordinary entries still are.
func TestIfAbsentNeverConflicts(t *testing.T) {
	set := mustPatch(t, "set.kpatch", "[deployment.web]\nreplicas: 3\n")
	other := mustPatch(t, "other.kpatch", "[deployment.web]\nreplicas: 4\n")
	def := mustPatch(t, "def.kpatch", "[deployment.web]\nreplicas?: 2\n")
	def2 := mustPatch(t, "def2.yaml", "- target: deployment.web\n  patch:\n    replicas?: 5\n")
	for _, patches := range [][]*Patch{{set, def}, {def, set}, {def, def2}, {def2, set}} {
		if got := Conflicts(patches); len(got) != 0 {
			t.Errorf("%s, %s: %v", patches[0].Name(), patches[1].Name(), got[0])
		}
	}
	if got := Conflicts([]*Patch{set, other}); len(got) != 1 {
		t.Errorf("two ordinary entries: %d conflicts, want 1", len(got))
	}
}

// TestIfAbsentNotOverwritten: a file of defaults that a later file
// overrides is not reported as overwritten; the same file without `?`
// is.
func TestIfAbsentNotOverwritten(t *testing.T) {
	objs := []map[string]any{overwriteObject(t, "web")}
	team := mustPatch(t, "team.kpatch", "[deployment.web]\nlabels.tier: gold\n")
	def := mustPatch(t, "def.kpatch", "[deployment.*]\nlabels.tier?: bronze\n")
	plain := mustPatch(t, "plain.kpatch", "[deployment.*]\nlabels.tier: bronze\n")
	if got := overwritten(objs, def, team); len(got) != 0 {
		t.Errorf("defaults: %q", got)
	}
	if got := overwritten(objs, plain, team); len(got) != 1 {
		t.Errorf("plain: %q, want one finding", got)
	}
}

// lookupTest reads a value by map keys and list indexes; nil when absent.
func lookupTest(v any, path []any) any {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[k.(string)]
		case []any:
			v = x[k.(int)]
		default:
			return nil
		}
	}
	return v
}

// normalizeAny turns a value into plain JSON data, as normalize does.
func normalizeAny(t *testing.T, v any) any {
	return normalize(t, map[string]any{"v": v})["v"]
}

// withIfAbsent returns a .kpatch file's text with `?` on every entry
// that may carry one (its key ends in a field or an index).
func withIfAbsent(tb testing.TB, name string, src []byte) []byte {
	tb.Helper()
	f, err := Parse(name, src)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range f.Sections {
		for _, e := range s.Entries {
			last := e.Key[len(e.Key)-1].Kind
			e.IfAbsent = !e.Value.Required && !isDeleteKey(e.Key) && (last == Field || last == Index)
		}
	}
	return []byte(f.String())
}

// BenchmarkApplyIfAbsent applies the ten files of BenchmarkApplyPatchSet
// (40 entries) to its Deployment as written (plain), and with `?` on every
// entry that may carry one (ifabsent): the fields the Deployment holds
// are kept, the others written as before.
func BenchmarkApplyIfAbsent(b *testing.B) {
	plain, data := benchPatchSet(b)
	marked := make([]*Patch, len(plain))
	for i, p := range plain {
		src := withIfAbsent(b, p.Name(), []byte(p.File().String()))
		marked[i] = mustPatch(b, p.Name(), string(src))
	}
	obj := decodeObject(b, data)
	for _, tt := range []struct {
		name    string
		patches []*Patch
	}{{"plain", plain}, {"ifabsent", marked}} {
		b.Run(tt.name, func(b *testing.B) {
			if _, err := Apply(obj, tt.patches, ApplyOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(obj, tt.patches, ApplyOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
