package rules

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var reconcileRequest = reconcile.Request{}

// interceptPatch wraps c, counting its patches in n.
func interceptPatch(c client.WithWatch, n *int) client.Client {
	return interceptor.NewClient(c, interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			*n++
			return c.Patch(ctx, obj, patch, opts...)
		},
	})
}
