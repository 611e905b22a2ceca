package drift

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

var (
	deployments = Kind{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"}
	pods        = Kind{Version: "v1", Resource: "pods", Kind: "Pod"}
	errTest     = errors.New("test error")
)

// object is a listed object of kind k; a label file=NAME makes fakeAdmit
// find it stale for that file.
func object(k Kind, ns, name, file string) map[string]any {
	meta := map[string]any{"namespace": ns, "name": name, "uid": "uid-" + name, "resourceVersion": "7"}
	if file != "" {
		meta["labels"] = map[string]any{"file": file}
	}
	return map[string]any{"apiVersion": k.APIVersion(), "kind": k.Kind, "metadata": meta}
}

// fakeLister serves objects per kind and namespace in pages, the
// continue token being the index of the page's first object; it records
// each call.
type fakeLister struct {
	objects map[string][]map[string]any // by "resource/namespace"
	fail    map[string]bool
	mu      sync.Mutex
	calls   []string // "resource/namespace limit cont"
}

func (l *fakeLister) add(k Kind, objs ...map[string]any) {
	if l.objects == nil {
		l.objects = map[string][]map[string]any{}
	}
	for _, o := range objs {
		ns := o["metadata"].(map[string]any)["namespace"].(string)
		l.objects[k.Resource+"/"+ns] = append(l.objects[k.Resource+"/"+ns], o)
	}
}

func (l *fakeLister) List(_ context.Context, k Kind, ns string, limit int64, cont string) (Page, error) {
	key := k.Resource + "/" + ns
	l.mu.Lock()
	l.calls = append(l.calls, fmt.Sprintf("%s %d %q", key, limit, cont))
	l.mu.Unlock()
	if l.fail[key] {
		return Page{}, errTest
	}
	all := l.objects[key]
	start := 0
	if cont != "" {
		start, _ = strconv.Atoi(cont)
	}
	end := min(len(all), start+int(limit))
	page := Page{Objects: all[start:end]}
	if end < len(all) {
		page.Continue = strconv.Itoa(end)
	}
	return page, nil
}

// fakeAdmit finds an object stale for the file of its label file: that
// file changes /spec/replicas; "immutable-NAME" changes /spec/selector,
// which an UPDATE may not; "reconcile-NAME" is marked reconcile;
// "error" does not admit.
func fakeAdmit(_ context.Context, _ Kind, obj map[string]any) (Admission, error) {
	labels, _ := obj["metadata"].(map[string]any)["labels"].(map[string]any)
	file, _ := labels["file"].(string)
	switch {
	case file == "":
		return Admission{}, nil
	case file == "error":
		return Admission{}, errTest
	case len(file) > 10 && file[:10] == "immutable-":
		return Admission{Files: []FileChange{{File: file, Fields: []string{"/spec/selector"}, Reconcile: true, Immutable: "spec.selector"}}}, nil
	}
	reconcile := len(file) > 10 && file[:10] == "reconcile-"
	return Admission{Ops: []string{"/spec/replicas"}, Files: []FileChange{{File: file, Fields: []string{"/spec/replicas"}, Reconcile: reconcile}}}, nil
}
