package registry

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// valuesConfigMap is a registry ConfigMap with a schema and one file that
// reads a parameter each Namespace sets, and one that reads a built-in.
var valuesConfigMap = configMap("values", map[string]string{
	ParametersKey:  "parameters:\n- {name: team, type: string, default: none, pattern: \"^[a-z0-9-]+$\"}\n",
	"team.kpatch":  "[deployment.web]\nlabels.team: ${values.team}\n",
	"owner.kpatch": "[deployment.web]\nlabels.part-of: ${namespace.labels.app.kubernetes.io/part-of}\n",
})

func namespace(name string, annotations map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations, Labels: map[string]string{"app.kubernetes.io/part-of": name + "-shop"}}}
}
