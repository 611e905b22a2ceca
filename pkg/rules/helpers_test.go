package rules

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// configMap is a registry ConfigMap of the registry namespace.
func configMap(name string, data map[string]string) corev1.ConfigMap {
	return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kpatch-system", ResourceVersion: "1"}, Data: data}
}

// registryConfigMap is a registry ConfigMap to create.
func registryConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	cm := configMap(name, data)
	cm.ResourceVersion = ""
	cm.Labels = map[string]string{"kpatch.dev/registry": "true"}
	return &cm
}

// recorded is one Event a recorder saw.
type recorded struct{ regarding, kind, reason, note string }

// eventLog records Events.
type eventLog struct {
	mu     sync.Mutex
	events []recorded
}

func (l *eventLog) Eventf(regarding runtime.Object, _ runtime.Object, kind, reason, _ string, note string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	name := regarding.(client.Object).GetName()
	l.events = append(l.events, recorded{name, kind, reason, fmt.Sprintf(note, args...)})
}

func (l *eventLog) take() []recorded {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.events
	l.events = nil
	return out
}
