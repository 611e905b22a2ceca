package kpatch

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// compileError compiles src and returns its one error, failing the test
// when there is not exactly one.
func compileError(t *testing.T, name, src string) *ParseError {
	t.Helper()
	_, err := ParseAndCompile(name, []byte(src))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("want one compile error, got %v", err)
	}
	var pe *ParseError
	if !errors.As(list[0], &pe) {
		t.Fatalf("want a *ParseError, got %T", list[0])
	}
	return pe
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, patch string
		pos         string
		sentinel    error
		msg         string
	}{
		{"unknown field", "[deployment.web]\nreplicsa: 3\n", "f:2:1", ErrUnknownField, `no field "replicsa"`},
		{"unknown nested field", "[deployment.web.containers.name=app]\nresources.limit.cpu: 1\n", "f:2:11", ErrUnknownField, `no field "limit"`},
		{"unknown selector field", "[deployment.web]\ncontainers[nam=app].image: x\n", "f:2:11", ErrUnknownField, `no field "nam"`},
		{"scalar where a map is needed", "[deployment.web]\nreplicas.x: 1\n", "f:2:10", ErrType, "has no field"},
		{"selector on a map", "[deployment.web]\nlabels[name=x].y: 1\n", "f:2:7", ErrType, "needs a list"},
		{"value does not fit", "[deployment.web]\nreplicas: many\n", "f:2:11", ErrValue, "wants an integer"},
		{"int32 overflow", "[deployment.web]\nreplicas: 3000000000\n", "f:2:11", ErrValue, "out of its range"},
		{"beyond 64 bits into an integer", "[deployment.web]\nreplicas: 12345678901234567890\n", "f:2:11", ErrValue, "out of its range"},
		{"structure as value", "[deployment.web]\ncontainers: x\n", "f:2:13", ErrValue, "is a list"},
		{"bad image tag", "[deployment.web.containers.name=app]\nimage.tag: \"bad tag\"\n", "f:2:12", ErrImage, `"bad tag" is not a valid image tag`},
		{"bad image repository", "[deployment.web.containers.name=app]\nimage.repository: app:v1\n", "f:2:19", ErrImage, "not a valid image repository"},
		{"bad base64", "[secret.web]\ndata.password: hunter2!\n", "f:2:16", ErrValue, "stringData"},
		{"not a quantity", "[deployment.web.containers.name=app]\nresources.limits.cpu: banana\n", "f:2:23", ErrValue, `wants a quantity (such as 500m, 1.5 or 256Mi), not "banana"`},
		{"insert header item", "[deployment.web.containers[-]]\nname: x\nimagePullPolicy: [a]\n", "f:3:18", ErrValue, "a list or map"},
		{"entry in an insertion", "[deployment.web.containers[-]]\nname: x\nport: 80\n", "f:3:1", ErrUnknownField, `no field "port"`},
		{"plural kind", "[deployments.web]\nreplicas: 3\n", "f:1:2", ErrUnknownKind, `unknown kind "deployments": a target names the kind in the singular; did you mean deployment?`},
		{"short name", "[deploy.web]\nreplicas: 3\n", "f:1:2", ErrUnknownKind, "did you mean deployment?"},
		{"short name with namespace", "[prod/svc.web]\ntype: NodePort\n", "f:1:7", ErrUnknownKind, "did you mean service?"},
		{"near miss", "[deploymnet.web]\nreplicas: 3\n", "f:1:2", ErrUnknownKind, "did you mean deployment?"},
		{"kind not in group", "[configmap(apps).c]\ndata.a: b\n", "f:1:2", ErrUnknownKind, "the API group apps has no kind \"configmap\" (ConfigMap is in core)"},
		{"version not in group", "[deployment(apps/v2).web]\nreplicas: 3\n", "f:1:2", ErrUnmatchable, `has no version "v2"`},
		{"group without a dot", "[deployment(v1).web]\nreplicas: 3\n", "f:1:2", ErrUnmatchable, "(core/v1)"},
		{"namespace in capitals", "[Prod/deployment.web]\nreplicas: 3\n", "f:1:7", ErrUnmatchable, `no namespace is named "Prod"`},
		{"name with a slash", "[deployment.[a/b]]\nreplicas: 3\n", "f:1:2", ErrUnmatchable, `no object is named "a/b"`},
		{"dotted name", "[configmap.my.settings]\nmode: fast\n", "f:2:1", ErrUnknownField, "bracket it: [configmap.[my.settings]]"},
		{"delete every item of a map", "[configmap.c]\ndata[*][delete]:\n", "f:2:5", ErrType, "data is a map; [*][delete] needs a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pe := compileError(t, "f", tt.patch)
			if pe.Pos.String() != tt.pos {
				t.Errorf("position %s, want %s (%v)", pe.Pos, tt.pos, pe)
			}
			if !errors.Is(pe, tt.sentinel) {
				t.Errorf("%v is not %v", pe, tt.sentinel)
			}
			if !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("message %q lacks %q", pe.Msg, tt.msg)
			}
		})
	}
}

func TestCompileReportsEveryProblem(t *testing.T) {
	_, err := ParseAndCompile("f", []byte("[deployment.web]\nreplicsa: 3\nreplicas: many\n\n[deploy.x]\nreplicas: 1\n"))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("want three errors, got %v", err)
	}
	want := []string{"f:2:1: ", "f:3:11: ", "f:5:2: "}
	for i, e := range list {
		if !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("error %d: %v, want %s...", i, e, want[i])
		}
	}
}

// TestCompileAcceptsCustomResources: kinds that resemble no built-in kind
// are custom resources, whose paths are not checked; a group makes any
// kind a custom resource's.
func TestCompileAcceptsCustomResources(t *testing.T) {
	for _, src := range []string{
		"[widget.w]\nanything.goes: 1\n",
		"[deployment(example.com).d]\nreplicsa: 1\n",
		"[deployments(example.com).d]\nspec.x: 1\n",
		"[certificate.c]\nspec.dnsNames[-]: a.example.com\n",
		"[prod-*/deployment.web-?]\nreplicas: 2\n",
		"[pod.x]\nreplicas: 1\n[pod(example.com).x]\nreplicas: 1\n",
	} {
		_, err := ParseAndCompile("f", []byte(src))
		if strings.HasPrefix(src, "[pod.x]") {
			if err == nil {
				t.Errorf("%q: a Pod has no replicas", src)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestCompileHoldsToCurrentVersions: an entry is an error when it fails on
// the current versions of its kind, whatever older versions say; an entry
// that some current version accepts compiles and fails on the objects of
// the others.
func TestCompileHoldsToCurrentVersions(t *testing.T) {
	// DeploymentSpec.rollbackTo exists in extensions/v1beta1 only.
	if pe := compileError(t, "f", "[deployment.web]\nrollbackTo.revision: 1\n"); !errors.Is(pe, ErrUnknownField) {
		t.Errorf("a field of a superseded version only: %v", pe)
	}
	if _, err := ParseAndCompile("f", []byte("[deployment(extensions/v1beta1).web]\nrollbackTo.revision: 1\n")); err != nil {
		t.Errorf("a field of the version the target names: %v", err)
	}
	// core/v1 Event has message, events.k8s.io/v1 has note: both current.
	p, err := ParseAndCompile("f", []byte("[event.e]\nnote: hello\n"))
	if err != nil {
		t.Fatalf("a field of one current version: %v", err)
	}
	core := mustObject(t, "apiVersion: v1\nkind: Event\nmetadata: {name: e}\n")
	if _, err := p.Apply(core, ApplyOptions{}); !errors.Is(err, ErrUnknownField) {
		t.Errorf("a core/v1 Event: %v", err)
	}
	events := mustObject(t, "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: e}\n")
	if out, err := p.Apply(events, ApplyOptions{}); err != nil || out["note"] != "hello" {
		t.Errorf("an events.k8s.io/v1 Event: %v %v", out, err)
	}
}

func TestBind(t *testing.T) {
	p := mustPatch(t, "f", "[deployment.web]\nreplicas: ${values.n}\nlabels.v: \"${values.v}\"\n\n[widget.w]\nspec.size: ${values.missing}\n")
	if _, err := p.Bind(&Variables{Values: map[string]any{"n": int64(3), "v": "1.0", "missing": 1}}); err != nil {
		t.Errorf("good values: %v", err)
	}
	_, err := p.Bind(&Variables{Values: map[string]any{"n": "three", "v": "1.0"}})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("want two errors, got %v", err)
	}
	if got := list[0].Error(); !strings.HasPrefix(got, "f:2:11: ") || !errors.Is(list[0], ErrValue) || !strings.Contains(got, `not "three"`) {
		t.Errorf("a value that does not fit: %v", got)
	}
	if got := list[1].Error(); !strings.HasPrefix(got, "f:6:12: ") || !errors.Is(list[1], ErrVariable) {
		t.Errorf("an undefined variable: %v", got)
	}
	img := mustPatch(t, "f", "[deployment.web.containers.name=app]\nimage.tag: ${values.tag}\n")
	if _, err := img.Bind(&Variables{Values: map[string]any{"tag": "bad tag"}}); !errors.Is(err, ErrImage) || !strings.HasPrefix(err.Error(), "f:2:12: ") {
		t.Errorf("an image tag from a variable: %v", err)
	}
	tree := mustPatch(t, "f.yaml", "- target: deployment.web\n  patch:\n    containers[name=app].resources:\n      limits: {cpu: \"${values.cpu}\"}\n")
	if _, err := tree.Bind(&Variables{Values: map[string]any{"cpu": "lots"}}); !errors.Is(err, ErrValue) || !strings.HasPrefix(err.Error(), "f.yaml:4:21: ") {
		t.Errorf("a variable in a tree: %v", err)
	}
	y := mustPatch(t, "f.yaml", "- target: deployment.web\n  type: strategic\n  patch:\n    spec:\n      replicas: ${values.n}\n")
	if _, err := y.Bind(&Variables{Values: map[string]any{"n": "x"}}); !errors.Is(err, ErrValue) || !strings.HasPrefix(err.Error(), "f.yaml:5:17: ") {
		t.Errorf("a strategic patch's variable: %v", err)
	}
}

func TestCheck(t *testing.T) {
	p := mustPatch(t, "f", `[deployment.web]
replicas: ${values.n}
containers.imagePullPolicy: Always
containers[name=app].args[delete=0]:
containers[name=app].env[delete=name=X]:

[deployment.web.containers[-]]
name: sidecar
image: busybox

[deployment.web]
containers[*].securityContext.runAsNonRoot: true

[widget.w]
spec.items.0[delete]:
`)
	errs := p.Check()
	var got []string
	for _, e := range errs {
		if !errors.Is(e, ErrNotIdempotent) {
			t.Errorf("not a warning: %v", e)
		}
		got = append(got, e.(*ParseError).Pos.String())
	}
	if strings.Join(got, " ") != "f:3:1 f:4:26" {
		t.Errorf("warnings at %v, want f:3:1 f:4:26:\n%v", got, errs)
	}
	if !strings.Contains(errs[0].Error(), "insertion at line 7") {
		t.Errorf("message: %v", errs[0])
	}
	errs = p.WithVariables(&Variables{}).Check()
	if len(errs) != 3 || !strings.HasPrefix(errs[0].Error(), "f:2:11: ") || !errors.Is(errs[0], ErrVariable) {
		t.Errorf("with variables: %v", errs)
	}
}

// TestCompileLeavesSyntaxAlone compiles every corpus file and checks that
// the syntax tree is the same afterwards: the compiled plans have steps
// of their own.
func TestCompileLeavesSyntaxAlone(t *testing.T) {
	for _, name := range corpusFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseAny(name, src)
		if err != nil {
			continue
		}
		before, _ := ParseAny(name, src)
		if _, err := Compile(f); err == nil && !reflect.DeepEqual(f, before) {
			t.Errorf("%s: Compile changed the syntax tree", name)
		}
	}
}

// TestCompileMisplacedDelete compiles a tree built without the parser
// whose [delete] stands inside a path: a problem of the file, not of
// every object.
func TestCompileMisplacedDelete(t *testing.T) {
	key := Path{{Kind: Field, Name: "spec"}, {Kind: Delete}, {Kind: Field, Name: "x"}}
	f := &File{Name: "f", Sections: []*Section{{
		Target: Target{Kind: "Widget", Name: "w", NameLiteral: true}, Line: 1, Col: 1,
		Entries: []*Entry{{Key: key, Value: Value{Raw: "1", Scalar: int64(1)}, Line: 2, Col: 1, ValueCol: 10}},
	}}}
	_, err := Compile(f)
	if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "f:2:1: [delete] cannot appear here") {
		t.Fatalf("got %v, want f:2:1: [delete] cannot appear here", err)
	}
}
