package main

import (
	"strings"
	"testing"
)

// TestReplacementsTypedByTheSchema: a replacement writes what the target
// field's type says, read from the kind's schema: the text "8080" of a
// ConfigMap becomes the integer a containerPort holds, and the integer
// replicas the text an annotation holds.
func TestReplacementsTypedByTheSchema(t *testing.T) {
	files := map[string]string{
		"repl.yaml": `replacements:
- source: {kind: ConfigMap, name: ports, fieldPath: data.http}
  targets:
  - select: {kind: Deployment, name: web}
    fieldPaths:
    - spec.template.spec.containers.[name=app].ports.0.containerPort
    options: {create: true}
- source: {kind: Deployment, name: web, fieldPath: spec.replicas}
  targets:
  - select: {kind: Deployment, name: web}
    fieldPaths: [metadata.annotations.replicas]
    options: {create: true}
`,
		"app.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: ports}
data: {http: "8080"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: app
        image: nginx
`,
	}
	code, stdout, stderr := runCLI(t, files, "", "apply", "-p", "repl.yaml", "-f", "app.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "containerPort: 8080\n") {
		t.Errorf("containerPort not the integer 8080:\n%s", stdout)
	}
	if !strings.Contains(stdout, "replicas: \"3\"") {
		t.Errorf("annotation not the text \"3\":\n%s", stdout)
	}
}
