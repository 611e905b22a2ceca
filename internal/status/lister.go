package status

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"kpatch.dev/kpatch/pkg/drift"
)

// lister lists a kind's objects in a namespace page by page, with the
// user's credentials: a consistent read of each page, the continue token
// naming the next.
func lister(client dynamic.Interface) drift.Lister {
	return drift.ListFunc(func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
		return client.Resource(gvr).Namespace(namespace).List(ctx, opts)
	})
}
