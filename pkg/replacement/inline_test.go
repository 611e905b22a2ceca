package replacement

import (
	"errors"
	"strings"
	"testing"
)

const documents = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  release: "1.0"
  app.yaml: |
    server:
      port: 80
    # the JSON a sidecar reads
    sidecar: '{"port": 9000, "name": "proxy"}'
  app.json: '{"replicas": 1, "labels": {}}'
`

// TestEmbeddedWrites covers what the cases do not: fields created in a
// document, a string source kept as text in YAML and JSON, a document in
// a string of a document, and a text that does not fit its field.
func TestEmbeddedWrites(t *testing.T) {
	for _, c := range []struct {
		name, fieldPath, want string
		err                   error
	}{
		{"create in YAML", `data.app\.yaml.server.tls.release`,
			"server:\n  port: 80\n  tls:\n    release: \"1.0\"\n# the JSON a sidecar reads\nsidecar: '{\"port\": 9000, \"name\": \"proxy\"}'", nil},
		{"create a list item in YAML", `data.app\.yaml.server.hosts.[name=a].release`,
			"server:\n  port: 80\n  hosts:\n  - name: a\n    release: \"1.0\"\n# the JSON a sidecar reads\nsidecar: '{\"port\": 9000, \"name\": \"proxy\"}'", nil},
		{"YAML integer field", `data.app\.yaml.server.port`, "", ErrValue},
		{"document in a document", `data.app\.yaml.sidecar.name`,
			"server:\n  port: 80\n# the JSON a sidecar reads\nsidecar: '{\"name\":\"1.0\",\"port\":9000}'", nil},
		{"create in JSON", `data.app\.json.labels.release`, `{"labels":{"release":"1.0"},"replicas":1}`, nil},
		{"JSON integer field", `data.app\.json.replicas`, "", ErrValue},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, `
replacements:
- source: {kind: ConfigMap, fieldPath: data.release}
  targets:
  - select: {kind: ConfigMap}
    fieldPaths: ['`+c.fieldPath+`']
    options: {create: true}
`)
			out, err := r.Apply([]map[string]any{obj(t, documents)})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("want %v, got %v", c.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			key := "app.yaml"
			if strings.HasPrefix(c.fieldPath, `data.app\.json`) {
				key = "app.json"
			}
			if got := out[0]["data"].(map[string]any)[key]; got != c.want {
				t.Errorf("%s:\n%s\nwant\n%s", key, got, c.want)
			}
		})
	}
}
