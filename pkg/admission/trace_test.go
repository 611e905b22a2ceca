package admission

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestTraceOnlyAtDebugLevel: the handler logs the trace at V(1) only.
func TestTraceOnlyAtDebugLevel(t *testing.T) {
	h := newHandler(t, map[string]string{"a.kpatch": "[deployment.web]\nreplicas: 3\n"})
	for _, verbosity := range []int{0, 1} {
		var lines []string
		log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: verbosity})
		ctx := logf.IntoContext(context.Background(), log)
		h.Handle(ctx, request(admissionv1.Create, "shop", deploymentJSON))
		traced := strings.Contains(strings.Join(lines, "\n"), `"msg"="patch files traced"`)
		if traced != (verbosity == 1) {
			t.Errorf("verbosity %d: traced %v: %q", verbosity, traced, lines)
		}
	}
}

// TestTraceRunsReplacementsFiles: the debug view applies a replacements
// file as the handler does (its selects decide whether it addresses the
// object), so it reports what the file and the files after it did.
func TestTraceRunsReplacementsFiles(t *testing.T) {
	h := newHandler(t, map[string]string{
		"a-repl.yaml": "replacements:\n- sourceValue: x\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.x]\n    options: {create: true}\n",
		"b.kpatch":    "[deployment.web]\nlabels.x: x\n",
	})
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 1})
	h.Handle(logf.IntoContext(context.Background(), log), request(admissionv1.Create, "shop", deploymentJSON))
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		`{"file"="reg/a-repl.yaml" "result"="patched" "changes"=["add /metadata/labels: {\"x\":\"x\"}"]}`,
		`{"file"="reg/b.kpatch" "result"="unchanged"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("trace lacks %s:\n%s", want, got)
		}
	}
}

// TestTraceShowsFilesLeftOut: a file that the object's values disable is
// disabled in the debug view, and one that its metadata leave out (a
// requirement disabled for the object) failed, with why.
func TestTraceShowsFilesLeftOut(t *testing.T) {
	h := valuesHandler(t, canaryFiles, namespaces{"shop": namespace("shop", nil)})
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 1})
	h.Handle(logf.IntoContext(context.Background(), log), request(admissionv1.Create, "shop", deploymentJSON))
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		`{"file"="reg/canary.kpatch" "result"="disabled" "reason"="its enabled: metadata is false for the object"}`,
		`{"file"="reg/needs-canary.kpatch" "result"="failed" "reason"="reg/needs-canary.kpatch:1:20: Deployment shop/web: requires reg/canary.kpatch, which is disabled for the object"}`,
		`{"file"="reg/zz-classic.kpatch" "result"="patched"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("trace lacks %s:\n%s", want, got)
		}
	}
}
