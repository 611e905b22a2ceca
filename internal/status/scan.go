package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"kpatch.dev/kpatch/pkg/drift"
	"kpatch.dev/kpatch/pkg/registry"
)

// ErrNoRegistry is a registry namespace without registry ConfigMaps.
var ErrNoRegistry = errors.New("no registry ConfigMaps")

// scan is kpatch status --scan of one namespace, with the user's
// credentials.
type scan struct {
	client            dynamic.Interface
	discovery         discovery.DiscoveryInterface
	namespace         string
	registryNamespace string
	selector          labels.Selector
	// warn receives what the scan left out: files that do not compile,
	// kinds it could not list, objects that did not admit.
	warn io.Writer
}

// run reads and compiles the registry, finds the kinds it targets, and
// scans the namespace's objects of those kinds (drift.Scanner).
func (s *scan) run(ctx context.Context) (*Status, error) {
	reg, err := s.registry(ctx)
	if err != nil {
		return nil, err
	}
	kinds, err := targetedKinds(s.discovery, reg)
	switch {
	case err != nil && len(kinds) == 0:
		return nil, fmt.Errorf("discovering the kinds the registry targets: %w", err)
	case err != nil:
		fmt.Fprintf(s.warn, "warning: %v (the kinds of the other groups are scanned)\n", err)
	case len(kinds) == 0:
		fmt.Fprintf(s.warn, "warning: the registry's files target no kind the cluster serves that takes list and update\n")
	}
	sc := &drift.Scanner{
		Lister:     lister(s.client),
		Admitter:   &admitter{registry: reg, policy: s.policy(ctx)},
		Kinds:      kinds,
		Namespaces: []string{s.namespace},
	}
	report, err := sc.Scan(ctx)
	if err != nil {
		return nil, err
	}
	errs, count := report.Errors()
	for _, e := range errs {
		fmt.Fprintf(s.warn, "warning: %s\n", e)
	}
	if count > len(errs) {
		fmt.Fprintf(s.warn, "warning: and %d more errors\n", count-len(errs))
	}
	ns, err := FromPolicyReport(drift.PolicyReport(report, s.namespace, math.MaxInt))
	if err != nil {
		return nil, err
	}
	ns.Source = SourceScan
	if ns.ScanTime == "" {
		ns.ScanTime = timeText(report.Time().Unix())
	}
	return &Status{Namespaces: []Namespace{ns}}, nil
}

// registry reads the registry ConfigMaps and compiles them as the
// webhook's compiler does (registry.Compiler), without its last good
// versions: a file that does not compile is left out, with a warning.
func (s *scan) registry(ctx context.Context) (*registry.Registry, error) {
	list, err := s.client.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(s.registryNamespace).
		List(ctx, metav1.ListOptions{LabelSelector: s.selector.String()})
	if err != nil {
		return nil, fmt.Errorf("listing the registry ConfigMaps in %q: %w", s.registryNamespace, err)
	}
	if len(list.Items) == 0 {
		return nil, fmt.Errorf("%w labelled %s in namespace %q (--registry-namespace, --registry-selector)", ErrNoRegistry, s.selector, s.registryNamespace)
	}
	cms := make([]corev1.ConfigMap, len(list.Items))
	for i, item := range list.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, &cms[i]); err != nil {
			return nil, fmt.Errorf("ConfigMap %s/%s: %w", s.registryNamespace, item.GetName(), err)
		}
	}
	built := (&registry.Compiler{}).Build(cms, nil)
	for _, p := range built.Problems {
		if p.Err != nil {
			fmt.Fprintf(s.warn, "warning: %v (left out of the scan)\n", p.Err)
		}
	}
	return built.Registry, nil
}
