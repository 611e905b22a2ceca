package status

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/schema"
)

// sourceSelector selects the ConfigMaps that replacements read at
// admission (the webhook's informed.SourceLabel).
const sourceSelector = "kpatch.dev/source=true"

// policy is how the scan admits objects, as the webhook does: the
// namespace and its source ConfigMaps, then the registry namespace's,
// read from the API server once (admit.NewInput), each result held to
// the built-in kinds' schemas. What the user may not read is left out,
// with a warning: the files that read it see none.
func (s *scan) policy(ctx context.Context) *admit.Policy {
	var objs []map[string]any
	ns, err := s.client.Resource(corev1.SchemeGroupVersion.WithResource("namespaces")).Get(ctx, s.namespace, metav1.GetOptions{})
	if err != nil {
		fmt.Fprintf(s.warn, "warning: reading Namespace %s: %v (the files see no namespace values or labels)\n", s.namespace, err)
	} else {
		objs = append(objs, ns.Object)
	}
	for _, in := range []string{s.namespace, s.registryNamespace} {
		list, err := s.client.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(in).
			List(ctx, metav1.ListOptions{LabelSelector: sourceSelector})
		if err != nil {
			fmt.Fprintf(s.warn, "warning: listing the source ConfigMaps in %q: %v (replacements see none of them)\n", in, err)
			continue
		}
		for _, cm := range list.Items {
			objs = append(objs, cm.Object)
		}
	}
	in, warnings := admit.NewInput(objs, s.registryNamespace, s.namespace)
	for _, w := range warnings {
		fmt.Fprintf(s.warn, "%v\n", w)
	}
	return &admit.Policy{RegistryNamespace: s.registryNamespace, Cluster: in, Valid: &schema.Checker{}}
}
