package drift

import "context"

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
