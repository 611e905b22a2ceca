package status

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"kpatch.dev/kpatch/pkg/drift"
)

// policyReports is the resource of the webhook's drift reports.
var policyReports = schema.GroupVersionResource{Group: "wgpolicyk8s.io", Version: "v1alpha2", Resource: "policyreports"}

// managedBy is the label selector of the webhook's reports.
const managedBy = "app.kubernetes.io/managed-by=kpatch"

// Why there is no report to read.
var (
	// ErrNoPolicyReports is a cluster that serves no PolicyReports: the
	// CRD is not installed.
	ErrNoPolicyReports = errors.New("the cluster serves no PolicyReports (wgpolicyk8s.io/v1alpha2): without their CRD the webhook writes no drift reports")
	// ErrNoReport is a namespace, or a cluster, without a drift report.
	ErrNoReport = errors.New("no drift report")
)

// scanHint is what to do without a report.
const scanHint = "scan a namespace yourself with kpatch status --scan -n NAMESPACE"

// readReports reads the drift report of namespace, or those of every
// namespace when namespace is "", sorted by namespace.
func readReports(ctx context.Context, c dynamic.Interface, namespace string) (*Status, error) {
	var reports []map[string]any
	if namespace != "" {
		r, err := c.Resource(policyReports).Namespace(namespace).Get(ctx, drift.PolicyReportName, metav1.GetOptions{})
		switch {
		case noResource(err):
			return nil, fmt.Errorf("%w; %s", ErrNoPolicyReports, scanHint)
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("namespace %q has %w (PolicyReport %s): the webhook, run with --drift-reports=policyreport, writes one where its scan finds stale objects; either nothing in the namespace is stale, or the webhook does not scan it (not opted in, or no scan yet); %s",
				namespace, ErrNoReport, drift.PolicyReportName, scanHint)
		case err != nil:
			return nil, fmt.Errorf("reading PolicyReport %s in %q: %w", drift.PolicyReportName, namespace, err)
		}
		reports = append(reports, r.Object)
	} else {
		cont := ""
		for {
			list, err := c.Resource(policyReports).List(ctx, metav1.ListOptions{LabelSelector: managedBy, Limit: 500, Continue: cont})
			switch {
			case apierrors.IsNotFound(err):
				return nil, fmt.Errorf("%w; %s", ErrNoPolicyReports, scanHint)
			case err != nil:
				return nil, fmt.Errorf("listing PolicyReports: %w", err)
			}
			for _, r := range list.Items {
				if r.GetName() == drift.PolicyReportName {
					reports = append(reports, r.Object)
				}
			}
			if cont = list.GetContinue(); cont == "" {
				break
			}
		}
		if len(reports) == 0 {
			return nil, fmt.Errorf("%w in any namespace (PolicyReport %s labelled %s): the webhook, run with --drift-reports=policyreport, writes one where its scan finds stale objects; either nothing is stale, or the webhook does not scan (no scan yet); %s",
				ErrNoReport, drift.PolicyReportName, managedBy, scanHint)
		}
	}
	st := &Status{Namespaces: make([]Namespace, 0, len(reports))}
	for _, r := range reports {
		ns, err := FromPolicyReport(r)
		if err != nil {
			return nil, err
		}
		st.Namespaces = append(st.Namespaces, ns)
	}
	slices.SortStableFunc(st.Namespaces, func(a, b Namespace) int { return strings.Compare(a.Namespace, b.Namespace) })
	return st, nil
}

// noResource reports whether err says that the API server serves no such
// resource, rather than no such object: a 404 that names no object.
func noResource(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d == nil || d.Name == ""
}
