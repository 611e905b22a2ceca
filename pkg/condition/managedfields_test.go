package condition

import "testing"

// TestReadsManagedFields: only a reading of object or podMetadata by
// field names that cannot be managedFields leaves them unread.
func TestReadsManagedFields(t *testing.T) {
	for expr, reads := range map[string]bool{
		"object.spec.replicas > 1": false,
		"object.metadata.labels.team == 'a' && has(object.metadata.labels)": false,
		"object.metadata.name.startsWith('w')":                              false,
		"object.spec.template.spec.containers.all(c, c.name != '')":         false,
		"podMetadata.labels.app == 'web' && podSpec.hostNetwork == true":    false,
		"request.operation == 'CREATE' && params.tier == 'gold'":            false,
		"size(object.metadata.managedFields) > 0":                           true,
		"has(object.metadata.managedFields)":                                true,
		"object.metadata.exists(k, k == 'managedFields')":                   true,
		"size(object) > 0":                                    true,
		"object['metadata'].name == 'x'":                      true,
		"[object].all(o, size(o.metadata.managedFields) > 0)": true,
		"size(podMetadata.managedFields) > 0":                 true,
		"podMetadata.exists(k, k == 'labels')":                true,
	} {
		c, err := Compile(expr, Options{Workload: true})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := c.ReadsManagedFields(); got != reads {
			t.Errorf("%s: ReadsManagedFields %v, want %v", expr, got, reads)
		}
	}
}
