package status

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"kpatch.dev/kpatch/pkg/drift"
)

// lister lists a kind's objects in a namespace page by page, with the
// user's credentials: a consistent read of each page, the continue token
// naming the next.
type lister struct{ client dynamic.Interface }

var _ drift.Lister = lister{}

// List returns one page of the objects of kind in namespace.
func (l lister) List(ctx context.Context, kind drift.Kind, namespace string, limit int64, cont string) (drift.Page, error) {
	gvr := schema.GroupVersionResource{Group: kind.Group, Version: kind.Version, Resource: kind.Resource}
	list, err := l.client.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{Limit: limit, Continue: cont})
	if err != nil {
		return drift.Page{}, err
	}
	page := drift.Page{Objects: make([]map[string]any, len(list.Items)), Continue: list.GetContinue()}
	for i := range list.Items {
		page.Objects[i] = list.Items[i].Object
	}
	return page, nil
}
