package chart

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestPriorityClassQuota: the defaults ship a ResourceQuota of the release
// namespace scoped to the pods' priority class, sized by the most replicas
// there may be, and none when the pods have no class or the value turns it
// off.
func TestPriorityClassQuota(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
		class  string // "": no quota
		pods   string
	}{
		{"default", nil, "system-cluster-critical", "4"},
		{"three replicas", map[string]any{"replicaCount": 3}, "system-cluster-critical", "6"},
		{"autoscaling", map[string]any{"autoscaling": map[string]any{"enabled": true, "maxReplicas": 7}}, "system-cluster-critical", "14"},
		{"own class", map[string]any{"priorityClassName": "platform-critical"}, "platform-critical", "4"},
		{"no class", map[string]any{"priorityClassName": ""}, "", ""},
		{"off", map[string]any{"priorityClassQuota": map[string]any{"enabled": false}}, "", ""},
	} {
		q := typed[corev1.ResourceQuota](t, render(t, tc.values), "ResourceQuota")
		if tc.class == "" {
			if q != nil {
				t.Errorf("%s: ResourceQuota %s rendered", tc.name, q.Name)
			}
			continue
		}
		if q == nil {
			t.Errorf("%s: no ResourceQuota", tc.name)
			continue
		}
		if q.Namespace != namespace || q.Name != "kpatch-webhook-critical-pods" {
			t.Errorf("%s: ResourceQuota %s/%s", tc.name, q.Namespace, q.Name)
		}
		if got := q.Spec.Hard[corev1.ResourcePods]; len(q.Spec.Hard) != 1 || got.String() != tc.pods {
			t.Errorf("%s: hard %v, want pods %s", tc.name, q.Spec.Hard, tc.pods)
		}
		s := q.Spec.ScopeSelector
		if len(q.Spec.Scopes) != 0 || s == nil || len(s.MatchExpressions) != 1 || s.MatchExpressions[0].ScopeName != corev1.ResourceQuotaScopePriorityClass ||
			s.MatchExpressions[0].Operator != corev1.ScopeSelectorOpIn || !slices.Equal(s.MatchExpressions[0].Values, []string{tc.class}) {
			t.Errorf("%s: scopes %v, selector %+v, want the priority class %s", tc.name, q.Spec.Scopes, s, tc.class)
		}
	}
}
