package main

import (
	"os"
	"strings"
	"testing"
)

// messy is a .kpatch file in no particular layout, with comments of every
// kind; tidy is how fmt prints it.
const (
	messy = "\r\n# registry: shop\r\n\r\n\r\n  [deployment.web]   # the web tier\r\n" +
		"    replicas:   3  # three\r\n\r\n\r\n# the main container\r\n  containers.name=main.image: app:1 \r\n" +
		"# about the service\r\n[service.web]\r\n\r\nspec.type:\tNodePort\r\n[configmap.[a.b]]\r\ndata.k:  # empty\r\n# trailing words\r\n\r\n"
	tidy = "# registry: shop\n\n[deployment.web] # the web tier\nreplicas: 3 # three\n\n# the main container\n" +
		"containers.name=main.image: app:1\n\n# about the service\n[service.web]\nspec.type: NodePort\n\n" +
		"[configmap.[a.b]]\ndata.k: # empty\n# trailing words\n"
)

func TestFmtPrintsCanonicalLayoutWithComments(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"m.kpatch": messy}, "", "fmt", "m.kpatch")
	if code != 0 || stdout != tidy {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, tidy)
	}
	code, stdout, _ = runCLI(t, nil, messy, "fmt", "-")
	if code != 0 || stdout != tidy {
		t.Errorf("from stdin: exit %d, stdout:\n%s", code, stdout)
	}
}

func TestFmtDiff(t *testing.T) {
	lf := strings.ReplaceAll(messy, "\r\n", "\n")
	code, stdout, stderr := runCLI(t, map[string]string{"m.kpatch": lf, "t.kpatch": tidy}, "", "fmt", "-d", "t.kpatch", "m.kpatch")
	if code != 1 || !strings.HasPrefix(stdout, "--- m.kpatch\n+++ m.kpatch\n@@ ") ||
		!strings.Contains(stdout, "\n-    replicas:   3  # three\n") || !strings.Contains(stdout, "\n+replicas: 3 # three\n") ||
		!strings.Contains(stdout, "\n # the main container\n") {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	if data, _ := os.ReadFile("m.kpatch"); string(data) != lf {
		t.Errorf("-d changed the file")
	}
	if code, stdout, _ := runCLI(t, map[string]string{"t.kpatch": tidy}, "", "fmt", "-d", "t.kpatch"); code != 0 || stdout != "" {
		t.Errorf("a formatted file: exit %d, stdout %q", code, stdout)
	}
}

func TestFmtWrite(t *testing.T) {
	code, stdout, stderr := runCLI(t, map[string]string{"m.kpatch": messy, "t.kpatch": tidy}, "", "fmt", "-w", "m.kpatch", "t.kpatch")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, name := range []string{"m.kpatch", "t.kpatch"} {
		if data, _ := os.ReadFile(name); string(data) != tidy {
			t.Errorf("%s after -w:\n%s", name, data)
		}
	}
}

func TestFmtRefusesWhatItCannotFormat(t *testing.T) {
	files := map[string]string{"bad.kpatch": "# keep\n[deployment.web]\nno separator\n", "p.yaml": "- target: configmap.c\n  patch: {data.a: b}\n"}
	code, stdout, stderr := runCLI(t, files, "", "fmt", "-w", "bad.kpatch", "p.yaml")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "bad.kpatch:3:1: ") || !strings.Contains(stderr, "p.yaml: fmt formats .kpatch files") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if data, _ := os.ReadFile("bad.kpatch"); string(data) != files["bad.kpatch"] {
		t.Errorf("a file that does not parse was rewritten:\n%s", data)
	}
}

// TestFmtKeepsSelectorSpelling: a selector stays bare or bracketed as it
// was written; quotes only where the value needs them.
func TestFmtKeepsSelectorSpelling(t *testing.T) {
	src := "[deployment.app.containers.name=main]\nimage: x\n\n" +
		"[deployment.app.containers[name=main].env[name=\"A B\"]]\nvalue: \"1\"\n\n" +
		"[deployment.app.containers[-name=side]]\nname: init\n\n" +
		"[service.app.ports.name=http-web]\nport: 80\n"
	code, stdout, stderr := runCLI(t, map[string]string{"s.kpatch": src}, "", "fmt", "s.kpatch")
	if code != 0 || stdout != src {
		t.Errorf("exit %d, stderr %s, stdout:\n%s\nwant:\n%s", code, stderr, stdout, src)
	}
}
