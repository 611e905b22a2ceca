package drift

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Lister lists the objects of one kind in one namespace, a page at a
// time, as the API server's list does with a limit and a continue token
// served from its watch cache (resourceVersion=0 semantics: no quorum
// read of etcd). The webhook implements it with its client.
type Lister interface {
	// List returns at most limit objects of kind in namespace from the
	// page that cont names ("" the first), and the token of the next
	// page ("" after the last). The objects are the Scanner's to read
	// while it admits them; it keeps none of them.
	List(ctx context.Context, kind Kind, namespace string, limit int64, cont string) (Page, error)
}

// Page is one page of a list.
type Page struct {
	Objects []map[string]any
	// Continue is the token of the next page; "" after the last.
	Continue string
}

// ListFunc lists one page of the objects of a resource in a namespace,
// as client-go's dynamic client does
// (Resource(gvr).Namespace(namespace).List).
type ListFunc func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)

var _ Lister = ListFunc(nil)

// List lists one page of the objects of kind in namespace, limit and
// cont as the list's options.
func (f ListFunc) List(ctx context.Context, kind Kind, namespace string, limit int64, cont string) (Page, error) {
	gvr := schema.GroupVersionResource{Group: kind.Group, Version: kind.Version, Resource: kind.Resource}
	list, err := f(ctx, gvr, namespace, metav1.ListOptions{Limit: limit, Continue: cont})
	if err != nil {
		return Page{}, err
	}
	page := Page{Objects: make([]map[string]any, len(list.Items)), Continue: list.GetContinue()}
	for i := range list.Items {
		page.Objects[i] = list.Items[i].Object
	}
	return page, nil
}
