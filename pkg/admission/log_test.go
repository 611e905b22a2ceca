package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// logLines collects the lines of a logger.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, prefix+" "+args)
	}, funcr.Options{})
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// serve runs a request through controller-runtime's admission webhook with
// LogConstructor over a logger that writes to lines, as the webhook
// process does.
func serve(h *Handler, lines *logLines, req admission.Request) admission.Response {
	wh := &webhook.Admission{Handler: h, LogConstructor: func(_ logr.Logger, r *admission.Request) logr.Logger {
		return LogConstructor(lines.logger(), r)
	}}
	return wh.Handle(context.Background(), req)
}

func TestHandlerLogsThroughTheRequestLogger(t *testing.T) {
	h := newHandler(t, map[string]string{"a.kpatch": "[deployment.web]\ncontainers[name=missing].image: x\n"})
	req := request(admissionv1.Create, "shop", deploymentJSON)
	req.Name = "web"
	var lines logLines
	serve(h, &lines, req)
	h.Strict = true
	serve(h, &lines, req)
	broken := req
	broken.Object.Raw = []byte(`{"kind":`)
	serve(h, &lines, broken)
	got := lines.String()
	for _, want := range []string{
		`"msg"="admitted without the patch files that fail on it"`,
		`"msg"="denied: a patch file fails on the object"`,
		`"msg"="admitted unpatched: internal error" "error"="decoding the object: `,
		`reg/a.kpatch:2: not applied`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in the log:\n%s", want, got)
		}
	}
	for _, line := range lines.lines {
		if !strings.Contains(line, `"kind"="Deployment" "namespace"="shop" "name"="web"`) {
			t.Errorf("a line without the object: %s", line)
		}
	}
}

func TestHandlerLogsToTheContextLogger(t *testing.T) {
	h := newHandler(t, map[string]string{"a.kpatch": "[deployment.web]\ncontainers[name=missing].image: x\n"})
	var lines logLines
	ctx := logf.IntoContext(context.Background(), lines.logger().WithValues("request", "r1"))
	h.Handle(ctx, request(admissionv1.Create, "shop", deploymentJSON))
	if got := lines.String(); !strings.Contains(got, `"request"="r1"`) || !strings.Contains(got, "reg/a.kpatch:2") {
		t.Errorf("the handler did not log through the context's logger: %q", got)
	}
}

func TestStrictDenialHasOnePrefix(t *testing.T) {
	h := newHandler(t, map[string]string{
		"a.kpatch": "[deployment.web]\ncontainers[name=missing].image: x\n",
		"b.kpatch": "[deployment.web]\ncontainers[name=other].image: y\n",
	})
	h.Strict = true
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	msg := resp.Result.Message
	if resp.Allowed || !strings.HasPrefix(msg, "kpatch: reg/a.kpatch:2: not applied: ") || strings.Count(msg, "kpatch: ") != 1 ||
		!strings.Contains(msg, "; reg/b.kpatch:2: not applied: ") {
		t.Errorf("denial %q", msg)
	}
}

func TestWarningsAndDenialsAreBounded(t *testing.T) {
	var src strings.Builder
	src.WriteString("[deployment.web]\n")
	for i := range 12 {
		fmt.Fprintf(&src, "containers[name=missing%d].image: x\n", i)
	}
	h := newHandler(t, map[string]string{"a.kpatch": src.String()})
	resp := h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if len(resp.Warnings) != maxWarnings+1 || resp.Warnings[maxWarnings] != "kpatch: and 2 more errors" {
		t.Errorf("warnings %q", resp.Warnings)
	}
	h.Strict = true
	resp = h.Handle(context.Background(), request(admissionv1.Create, "shop", deploymentJSON))
	if msg := resp.Result.Message; strings.Count(msg, "; ") != maxWarnings || !strings.HasSuffix(msg, "; and 2 more errors") || strings.Count(msg, "kpatch: ") != 1 {
		t.Errorf("denial %q", msg)
	}
}

// TestRequestLoggerNamesTheCaller holds LogConstructor's lazy values to
// the call site: a line says where the code that wrote it is, not the
// logger's wrapper, and values given later come after the request's.
func TestRequestLoggerNamesTheCaller(t *testing.T) {
	var lines logLines
	base := funcr.New(func(prefix, args string) {
		lines.mu.Lock()
		defer lines.mu.Unlock()
		lines.lines = append(lines.lines, args)
	}, funcr.Options{LogCaller: funcr.All})
	req := request(admissionv1.Create, "shop", deploymentJSON)
	req.Name = "web"
	log := LogConstructor(base, &req)
	log.Info("one")
	log.WithValues("file", "a.kpatch").Error(errors.New("bad"), "two")
	log.WithName("sub").V(0).Info("three")
	if len(lines.lines) != 3 {
		t.Fatalf("%d lines: %v", len(lines.lines), lines.lines)
	}
	for _, line := range lines.lines {
		if !strings.Contains(line, `"caller"={"file"="log_test.go"`) {
			t.Errorf("the caller is not this test: %s", line)
		}
		if !strings.Contains(line, `"kind"="Deployment" "namespace"="shop" "name"="web" "operation"="CREATE"`) {
			t.Errorf("a line without the request: %s", line)
		}
	}
	if !strings.Contains(lines.lines[1], `"uid"="`) || !strings.Contains(lines.lines[1], `"file"="a.kpatch"`) {
		t.Errorf("values given later are lost: %s", lines.lines[1])
	}
}
