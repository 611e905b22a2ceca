package admission

import (
	"fmt"
	"net/http"

	"kpatch.dev/kpatch/pkg/metrics"
)

// checkNamespace refuses an object whose metadata.namespace, when set,
// differs from the request's namespace. Source ConfigMaps, tenant
// registries and values are chosen by the request's namespace: without
// this check a review claiming namespace B for an object of namespace A
// would carry B's data into A. With it, an answer holds only data of the
// object's own namespace and of the registry namespace, whoever asks.
func checkNamespace(requestNamespace string, obj map[string]any) *internalError {
	meta, _ := obj["metadata"].(map[string]any)
	ns, set := meta["namespace"]
	if !set || ns == "" || ns == requestNamespace {
		return nil
	}
	return &internalError{metrics.ReasonNamespaceMismatch, http.StatusBadRequest,
		fmt.Errorf("metadata.namespace %q of the object is not the request's namespace %q", ns, requestNamespace)}
}
