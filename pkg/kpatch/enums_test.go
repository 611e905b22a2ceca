package kpatch

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestEnumErrors: a value outside an enum field's values is a compile
// error at the value, naming the values and the nearest one, in .kpatch
// entries, insertions, YAML field trees, strategic and merge patches.
func TestEnumErrors(t *testing.T) {
	for _, tt := range []struct {
		name, file, src, pos, msg string
	}{
		{"kpatch entry", "f.kpatch", "[deployment.web.containers.name=app]\nimagePullPolicy: Allways\n", "f.kpatch:2:18",
			`spec.template.spec.containers[name=app].imagePullPolicy: "Allways" is not one of Always, IfNotPresent, Never (did you mean Always?)`},
		{"case only", "f.kpatch", "[service.web]\ntype: nodeport\n", "f.kpatch:2:7", `"nodeport" is not one of ClusterIP, ExternalName, LoadBalancer, NodePort (did you mean NodePort?)`},
		{"far from every value", "f.kpatch", "[pod.p]\nrestartPolicy: sometimes\n", "f.kpatch:2:16", `spec.restartPolicy: "sometimes" is not one of Always, Never, OnFailure`},
		{"number as text", "f.kpatch", "[service.web]\nports.0.protocol: 6\n", "f.kpatch:2:19", `"6" is not one of SCTP, TCP, UDP`},
		{"insertion", "f.kpatch", "[deployment.web.containers[-]]\nname: x\nimagePullPolicy: never\n", "f.kpatch:3:18", `(did you mean Never?)`},
		{"field tree", "f.yaml", "- target: deployment.web\n  patch:\n    strategy: {type: Recrate}\n", "f.yaml:3:22", `spec.strategy: type: "Recrate" is not one of Recreate, RollingUpdate (did you mean Recreate?)`},
		{"strategic", "f.yaml", "- target: deployment.web\n  type: strategic\n  patch:\n    spec:\n      template:\n        spec:\n          dnsPolicy: clusterFirst\n", "f.yaml:7:22", `spec.template.spec.dnsPolicy: "clusterFirst" is not one of ClusterFirst, ClusterFirstWithHostNet, Default, None (did you mean ClusterFirst?)`},
		{"merge", "f.yaml", "- target: ingress.web\n  type: merge\n  patch:\n    spec:\n      rules:\n      - http:\n          paths:\n          - pathType: prefix\n", "f.yaml:8:23", `(did you mean Prefix?)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := compileFile(t, tt.file, tt.src)
			var list ErrorList
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("want one error, got %v", err)
			}
			pe := list[0].(*ParseError)
			if !errors.Is(pe, ErrValue) || pe.Pos.String() != tt.pos || !strings.Contains(pe.Error(), tt.msg) {
				t.Errorf("got %v (at %s), want an ErrValue at %s holding %s", pe, pe.Pos, tt.pos, tt.msg)
			}
		})
	}
}

// compileFile parses and compiles a .kpatch or YAML patch file.
func compileFile(t *testing.T, name, src string) error {
	t.Helper()
	if !strings.HasSuffix(name, ".yaml") {
		_, err := ParseAndCompile(name, []byte(src))
		return err
	}
	f, err := ParseYAML(name, []byte(src))
	if err != nil {
		return err
	}
	_, err = Compile(f)
	return err
}

// TestEnumValuesPass: every value of an enum field compiles and applies,
// and so do the empty text (the API server's default) and null.
func TestEnumValuesPass(t *testing.T) {
	src := "[deployment.web.containers.name=app]\nimagePullPolicy: Always\nterminationMessagePolicy: FallbackToLogsOnError\n" +
		"[deployment.web]\nstrategy.type: Recreate\ntemplate.spec.dnsPolicy: \"\"\ntemplate.spec.restartPolicy: null\n" +
		"[service.web]\ntype: NodePort\nexternalTrafficPolicy: Local\nports.0.protocol: SCTP\n" +
		"[deployment.web.containers.name=app.ports[-]]\ncontainerPort: 53\nprotocol: UDP\n"
	p := mustPatch(t, "f", src)
	out, err := p.Apply(mustObject(t, webDeployment), ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := out["spec"].(map[string]any)
	if got := spec["strategy"].(map[string]any)["type"]; got != "Recreate" {
		t.Errorf("strategy.type = %v", got)
	}
	if got := spec["template"].(map[string]any)["spec"].(map[string]any)["dnsPolicy"]; got != "" {
		t.Errorf("dnsPolicy = %v", got)
	}
}

// TestEnumVariables: a variable's value is held to the field's values
// when the file is bound to its variables, and when it applies.
func TestEnumVariables(t *testing.T) {
	p := mustPatch(t, "f.kpatch", "[deployment.web.containers.name=app]\nimagePullPolicy: ${values.policy}\n")
	vars, err := LoadVariables([]byte("values:\n  policy: ifnotpresent\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `"ifnotpresent" is not one of Always, IfNotPresent, Never (did you mean IfNotPresent?) (from ${values.policy})`
	if _, err := p.Bind(vars); !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "f.kpatch:2:18") {
		t.Errorf("Bind: %v, want an ErrValue at f.kpatch:2:18 holding %s", err, want)
	}
	if _, err := p.WithVariables(vars).Apply(mustObject(t, webDeployment), ApplyOptions{}); !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), want) {
		t.Errorf("Apply: %v, want an ErrValue holding %s", err, want)
	}
	good, err := LoadVariables([]byte("values:\n  policy: IfNotPresent\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Bind(good); err != nil {
		t.Errorf("Bind with IfNotPresent: %v", err)
	}
}

// TestEnumNodes: the schema's string nodes of enum types carry their
// values, sorted and without the empty text; other strings carry none.
func TestEnumNodes(t *testing.T) {
	schemasFor("Pod")
	for typ, want := range map[reflect.Type][]string{
		reflect.TypeFor[corev1.PullPolicy]():   {"Always", "IfNotPresent", "Never"},
		reflect.TypeFor[corev1.HostPathType](): {"BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"},
		reflect.TypeFor[corev1.IPFamily]():     {"IPv4", "IPv6"},
		reflect.TypeFor[corev1.ResourceName](): nil,
		reflect.TypeFor[string]():              nil,
	} {
		if n := schemas.nodes[typ]; n == nil || !slices.Equal(n.enum, want) {
			t.Errorf("%v: node %+v, want the values %q", typ, n, want)
		}
	}
	// every enum type of the table that a kind reaches is in the schema
	reached := 0
	for typ, n := range schemas.nodes {
		if n.kind == tString && enumValues[typ.PkgPath()+"."+typ.Name()] != nil {
			reached++
			if len(n.enum) == 0 {
				t.Errorf("%v is an enum type without values in the schema", typ)
			}
		}
	}
	if reached < 50 {
		t.Errorf("only %d enum types in the schema", reached)
	}
}
