package kpatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchPatchSet compiles the ten files of testdata/bench: 40 entries on a
// Deployment with three containers.
func benchPatchSet(tb testing.TB) ([]*Patch, []byte) {
	tb.Helper()
	files, err := filepath.Glob("testdata/bench/*.kpatch")
	if err != nil || len(files) != 10 {
		tb.Fatalf("want 10 bench files, got %d (%v)", len(files), err)
	}
	var patches []*Patch
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		p, err := ParseAndCompile(filepath.Base(f), src)
		if err != nil {
			tb.Fatal(err)
		}
		patches = append(patches, p)
	}
	obj, err := os.ReadFile("testdata/bench/deployment.json")
	if err != nil {
		tb.Fatal(err)
	}
	return patches, obj
}

func decodeObject(tb testing.TB, data []byte) map[string]any {
	tb.Helper()
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		tb.Fatal(err)
	}
	return obj
}

// BenchmarkApplyPatchSet applies 10 files, 40 entries, to a realistic
// Deployment. Compare with BenchmarkJSONRoundTrip.
func BenchmarkApplyPatchSet(b *testing.B) {
	patches, data := benchPatchSet(b)
	obj := decodeObject(b, data)
	if _, err := Apply(obj, patches, ApplyOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(obj, patches, ApplyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONRoundTrip decodes and encodes the same Deployment with
// encoding/json: the yardstick for the apply benchmarks.
func BenchmarkJSONRoundTrip(b *testing.B) {
	_, data := benchPatchSet(b)
	b.ReportAllocs()
	for b.Loop() {
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(obj); err != nil {
			b.Fatal(err)
		}
	}
}

// thousandLines is a patch file of 1,000 lines in the shapes users write.
func thousandLines() []byte {
	var b strings.Builder
	lines := 0
	for i := 0; lines < 1000; i++ {
		chunk := fmt.Sprintf(`# service %d
[deployment.svc-%d]
replicas: %d
labels[app.kubernetes.io/name]: svc-%d
annotations.owner: "team-%d"  # who to call

[deployment.svc-%d.containers.name=app]
image.tag: "1.%d.0"
env[name=LOG_LEVEL].value: debug
resources.requests.cpu: 250m
args[-]: --id=${values.id}
`, i, i, i%5+1, i, i%7, i, i)
		b.WriteString(chunk)
		lines += strings.Count(chunk, "\n")
	}
	return []byte(b.String())
}

// BenchmarkParse1000 parses a 1,000-line file.
func BenchmarkParse1000(b *testing.B) {
	src := thousandLines()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("big.kpatch", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile1000 parses and compiles a 1,000-line file.
func BenchmarkCompile1000(b *testing.B) {
	src := thousandLines()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAndCompile("big.kpatch", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyStrategic applies one strategic merge patch (a sidecar and
// resources for the main container) to the benchmark Deployment; compare
// with BenchmarkApplyFieldSidecar, the same change as field entries.
func BenchmarkApplyStrategic(b *testing.B) {
	benchYAML(b, `- target: deployment.web
  type: strategic
  patch:
    spec:
      template:
        spec:
          containers:
          - name: app
            resources: {limits: {cpu: "1"}}
          - name: envoy
            image: envoyproxy/envoy:v1.30.1
`)
}

// BenchmarkApplyFieldSidecar makes BenchmarkApplyStrategic's change with
// field entries.
func BenchmarkApplyFieldSidecar(b *testing.B) {
	benchYAML(b, `- target: deployment.web
  patch:
    containers[name=app].resources.limits.cpu: "1"
    containers[-]: {name: envoy, image: envoyproxy/envoy:v1.30.1}
`)
}

func benchYAML(b *testing.B, src string) {
	_, data := benchPatchSet(b)
	obj := decodeObject(b, data)
	p, err := ParseAndCompile("bench.yaml", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Apply(obj, ApplyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
