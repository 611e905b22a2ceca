package kpatch

import "testing"

// TestReadsManagedFields: only what cannot reach metadata.managedFields
// leaves it out of the object's decoding.
func TestReadsManagedFields(t *testing.T) {
	for src, reads := range map[string]bool{
		"[deployment.web]\nannotations[example.com/owner]: team-a\nlabels.team: a\nreplicas: 2\n":                  false,
		"[deployment.web.containers.name=app]\nresources.requests.cpu: 250m\n":                                     false,
		"[pod.*.containers.*.env[-]]\nname: A\nvalue: ${item.image}\n":                                             false,
		"[deployment.web]\nmetadata.managedFields[0].manager: me\n":                                                true,
		"[deployment.web.metadata]\nmanagedFields.*.manager: me\n":                                                 true,
		"[deployment.web]\nmetadata.managedFields[delete]: \n":                                                     true,
		"# kpatch:when: object.spec.replicas > 1\n[deployment.web]\nreplicas: 2\n":                                 false,
		"[deployment.web]\nreplicas: ${cel: object.spec.replicas * 2}\n":                                           false,
		"[deployment.web.containers[name=app].env[-]]\n# kpatch:foreach: [1]\nname: A\n":                           false,
		"# kpatch:when: has(object.metadata.managedFields)\n[deployment.web]\nreplicas: 2\n":                       true,
		"[deployment.web]\n# kpatch:when: size(object.metadata) > 2\nreplicas: 2\n":                                true,
		"[deployment.web]\nannotations.n: ${cel: string(size(object.metadata.managedFields))}\n":                   true,
		"[deployment.web.containers[name=app].env[-]]\n# kpatch:foreach: object.metadata.managedFields\nname: A\n": true,
	} {
		p, err := ParseAndCompile("a.kpatch", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got := p.ReadsManagedFields(); got != reads {
			t.Errorf("%q: ReadsManagedFields %v, want %v", src, got, reads)
		}
	}
	fields, err := ParseAndCompile("f.yaml", []byte("- target: deployment.web\n  patch:\n    spec:\n      replicas: 2\n"))
	if err != nil || fields.ReadsManagedFields() {
		t.Errorf("YAML field entries: %v, want false", err)
	}
	merge, err := ParseAndCompile("m.yaml", []byte("- target: deployment.web\n  type: strategic\n  patch:\n    spec:\n      replicas: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !merge.ReadsManagedFields() {
		t.Error("a merge entry: want true (a strategic merge may replace metadata whole)")
	}
}
