package drift

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// generatedLister lists perNamespace Deployments in each namespace, made
// page by page as an API server serves them: it holds none. One object
// in staleEvery has 1 replica, which the benchmark's first file changes;
// every object has the labels of the others.
type generatedLister struct {
	perNamespace, staleEvery int
}

func (l generatedLister) List(_ context.Context, k Kind, ns string, limit int64, cont string) (Page, error) {
	start, _ := strconv.Atoi(cont)
	end := min(l.perNamespace, start+int(limit))
	page := Page{Objects: make([]map[string]any, 0, end-start)}
	for i := start; i < end; i++ {
		replicas := int64(2)
		if i%l.staleEvery == 0 {
			replicas = 1
		}
		labels := map[string]any{"app": fmt.Sprintf("app-%d", i)}
		for t := 1; t < 10; t++ {
			labels[fmt.Sprintf("team-%d", t)] = "platform"
		}
		page.Objects = append(page.Objects, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"namespace": ns, "name": fmt.Sprintf("app-%d", i), "uid": fmt.Sprintf("%s-%d", ns, i), "resourceVersion": "1",
				"labels": labels},
			"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": fmt.Sprintf("app-%d", i)}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": fmt.Sprintf("app-%d", i)}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "main", "image": "mirror.internal/app:1"}}}}}})
	}
	if end < l.perNamespace {
		page.Continue = strconv.Itoa(end)
	}
	return page, nil
}

// applyAdmitter admits an object as an UPDATE with the files, through
// the apply loop, recording the files that would change it.
func applyAdmitter(files []apply.File) Admitter {
	return AdmitterFunc(func(ctx context.Context, _ Kind, obj map[string]any) (Admission, error) {
		var obs Observer
		if _, err := apply.RunObject(ctx, obj, files, &apply.Options{Operation: "UPDATE", Observer: &obs}); err != nil {
			return Admission{}, err
		}
		return Admission{Files: obs.Files()}, nil
	})
}

// BenchmarkScan scans N and 10N Deployments (10 namespaces, pages of
// 500, one in 100 stale) admitted through the apply loop with 10 files
// that each target every Deployment: the cost per object is the same at
// both sizes (linear in objects x files), and the memory a scan keeps
// (retained-B) is its findings, a page of objects at most besides.
func BenchmarkScan(b *testing.B) {
	files := make([]apply.File, 10)
	for i := range files {
		src := "[deployment.*]\nreplicas: 2\n"
		if i > 0 {
			src = fmt.Sprintf("[deployment.*]\nlabels.team-%d: platform\n", i)
		}
		p, err := kpatch.ParseAndCompile(fmt.Sprintf("f%d.kpatch", i), []byte(src))
		if err != nil {
			b.Fatal(err)
		}
		files[i] = apply.PatchFile{Patch: p}
	}
	namespaces := make([]string, 10)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("ns-%d", i)
	}
	for _, n := range []int{1000, 10000} {
		s := &Scanner{Lister: generatedLister{perNamespace: n / len(namespaces), staleEvery: 100}, Admitter: applyAdmitter(files),
			Kinds: []Kind{deployments}, Namespaces: namespaces, MaxObjects: 100000}
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var r *Report
			for b.Loop() {
				var err error
				if r, err = s.Scan(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			if r.Objects() != n || r.StaleObjects() != n/100 {
				b.Fatalf("%d objects, %d stale", r.Objects(), r.StaleObjects())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*n), "B/object")
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)), "retained-B")
			runtime.KeepAlive(r)
		})
	}
}
