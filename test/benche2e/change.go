package main

import (
	_ "embed"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// The change every mutating scenario makes to the Deployment "web": the
// main container's cpu request (100m in the object) and an annotation.
const (
	deploymentName = "web"
	mainContainer  = "app"
	cpuRequest     = "250m"
	annotationKey  = "example.com/owner"
	annotationVal  = "team-a"
)

// registryFile is the change as a kpatch registry file: two sections.
// pkg/admission's BenchmarkHandleBenchE2EChange measures the same file in
// process.
//
//go:embed testdata/change.kpatch
var registryFile string

// policyJSONPatch is the change as a MutatingAdmissionPolicy's JSONPatch
// mutation: the cheapest form for the API server. Like any JSONPatch it
// relies on the object's shape: "add" needs the annotations and the
// requests maps to exist, as they do in the benchmark's Deployment.
const policyJSONPatch = `[
  JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/owner"), value: "team-a"},
  JSONPatch{
    op: "add",
    path: "/spec/template/spec/containers/" +
      string(object.spec.template.spec.containers.map(c, c.name).indexOf("app")) + "/resources/requests/cpu",
    value: "250m"
  }
]`

// policyApplyConfiguration is the change as a MutatingAdmissionPolicy's
// ApplyConfiguration: merged like a server-side apply, so it creates what
// is missing as the registry file does, and the container list, keyed by
// name, keeps its other containers and the other requests.
const policyApplyConfiguration = `Object{
  metadata: Object.metadata{annotations: {"example.com/owner": "team-a"}},
  spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{
    containers: [Object.spec.template.spec.containers{
      name: "app",
      resources: Object.spec.template.spec.containers.resources{requests: {"cpu": "250m"}}
    }]
  }}}
}`

// checkChange decodes what a dry-run create returned and reports an error
// unless the change is there (changed) or absent (!changed); the object's
// other containers must keep their requests either way.
func checkChange(body []byte, changed bool) error {
	var d appsv1.Deployment
	if err := json.Unmarshal(body, &d); err != nil {
		return fmt.Errorf("decoding the created Deployment: %w", err)
	}
	cpu, others := "", 0
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == mainContainer {
			cpu = c.Resources.Requests.Cpu().String()
		} else if !c.Resources.Requests.Cpu().IsZero() {
			others++
		}
	}
	annotation, annotated := d.Annotations[annotationKey]
	switch {
	case others != len(d.Spec.Template.Spec.Containers)-1:
		return fmt.Errorf("containers lost their cpu requests: %+v", d.Spec.Template.Spec.Containers)
	case changed && (cpu != cpuRequest || annotation != annotationVal):
		return fmt.Errorf("not changed: cpu request %q, annotation %q", cpu, annotation)
	case !changed && (cpu == cpuRequest || annotated):
		return fmt.Errorf("changed where nothing mutates: cpu request %q, annotation %q", cpu, annotation)
	}
	return nil
}
