package informed

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// listOnly is a ListWatch that a reflector lists, then watches (the
// fake watch cannot stream a list).
type listOnly struct{ *toolscache.ListWatch }

// IsWatchListSemanticsUnSupported is true.
func (listOnly) IsWatchListSemanticsUnSupported() bool { return true }

// memoryListWatch lists n source ConfigMaps of about 1 KiB of data, 10
// per namespace, made anew on each list (nothing else holds them), and
// watches nothing. Namespaces ns-0, ns-2, ... opt in.
func memoryListWatch(n int) listOnly {
	value := strings.Repeat("x", 250)
	return listOnly{&toolscache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (apiruntime.Object, error) {
			list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: make([]corev1.ConfigMap, n)}
			for i := range list.Items {
				ns := fmt.Sprintf("ns-%d", i/10)
				list.Items[i] = corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("settings-%d", i%10), Namespace: ns, ResourceVersion: "1",
						UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)), Labels: map[string]string{SourceLabel: "true"}},
					// copies: every ConfigMap has its own strings, as decoded from the API server
					Data: map[string]string{"a": strings.Clone(value), "b": strings.Clone(value), "c": strings.Clone(value), "d": strings.Clone(value)},
				}
			}
			return list, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}}
}

// optedInHalf opts in every other namespace of memoryListWatch.
func optedInHalf(s *SourceConfigMaps, n int) {
	h := s.NamespaceHandler()
	for i := range (n + 9) / 10 {
		h.OnAdd(labelledNS(fmt.Sprintf("ns-%d", i), i%2 == 0), true)
	}
}

// BenchmarkSourceConfigMapsMemory reports the heap in use after a
// collection (heap-MiB) once n source ConfigMaps spread over n/10
// namespaces, half of them opted in, are synced: as before (an informer
// of every namespace, its handler keeping each decoded: informer), and
// now (a reflector into SourceConfigMaps, which keeps those of opted-in
// namespaces only: opted-in). Run with -benchtime=1x.
func BenchmarkSourceConfigMapsMemory(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("informer/configmaps=%d", n), func(b *testing.B) {
			for b.Loop() {
				before := heapInUse()
				ctx, cancel := context.WithCancel(context.Background())
				informer := toolscache.NewSharedIndexInformer(memoryListWatch(n), &corev1.ConfigMap{}, 0, toolscache.Indexers{})
				var s SourceConfigMaps
				if _, err := informer.AddEventHandler(&s); err != nil {
					b.Fatal(err)
				}
				go informer.RunWithContext(ctx)
				toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced)
				for i := range n / 10 { // the handler has run
					for len(s.ConfigMaps(fmt.Sprintf("ns-%d", i))) < 10 {
						runtime.Gosched()
					}
				}
				b.ReportMetric(float64(heapInUse()-before)/(1<<20), "heap-MiB")
				b.ReportMetric(float64(len(informer.GetStore().ListKeys())), "kept")
				cancel()
				runtime.KeepAlive(informer)
			}
		})
		b.Run(fmt.Sprintf("opted-in/configmaps=%d", n), func(b *testing.B) {
			for b.Loop() {
				before := heapInUse()
				ctx, cancel := context.WithCancel(context.Background())
				s := NewOptInSourceConfigMaps(labels.SelectorFromSet(labels.Set{"kpatch.dev/inject": "enabled"}), nil, DefaultSourceLimits)
				optedInHalf(s, n)
				r := toolscache.NewReflectorWithOptions(memoryListWatch(n), &corev1.ConfigMap{}, s, toolscache.ReflectorOptions{Name: "bench"})
				go r.RunWithContext(ctx)
				<-s.Synced()
				kept := 0
				for i := range n / 10 {
					kept += len(s.ConfigMaps(fmt.Sprintf("ns-%d", i)))
				}
				b.ReportMetric(float64(heapInUse()-before)/(1<<20), "heap-MiB")
				b.ReportMetric(float64(kept), "kept")
				cancel()
				runtime.KeepAlive(s)
			}
		})
	}
}

// heapInUse is the heap's bytes in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
