package kpatch

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
)

// shortNames are the short names the API server gives built-in resources
// (kubectl api-resources, Kubernetes v1.37), by lower-case kind. The
// scheme does not carry them; the plurals are derived from it.
var shortNames = map[string][]string{
	"componentstatus":           {"cs"},
	"configmap":                 {"cm"},
	"endpoints":                 {"ep"},
	"event":                     {"ev"},
	"limitrange":                {"limits"},
	"namespace":                 {"ns"},
	"node":                      {"no"},
	"persistentvolume":          {"pv"},
	"persistentvolumeclaim":     {"pvc"},
	"pod":                       {"po"},
	"replicationcontroller":     {"rc"},
	"resourcequota":             {"quota"},
	"serviceaccount":            {"sa"},
	"service":                   {"svc"},
	"customresourcedefinition":  {"crd", "crds"},
	"daemonset":                 {"ds"},
	"deployment":                {"deploy"},
	"replicaset":                {"rs"},
	"statefulset":               {"sts"},
	"horizontalpodautoscaler":   {"hpa"},
	"cronjob":                   {"cj"},
	"certificatesigningrequest": {"csr"},
	"ipaddress":                 {"ip"},
	"ingress":                   {"ing"},
	"networkpolicy":             {"netpol"},
	"poddisruptionbudget":       {"pdb"},
	"priorityclass":             {"pc"},
	"storageclass":              {"sc"},
	"volumeattributesclass":     {"vac"},
}

// kindName is what a name that is not a kind stands for: a built-in
// kind, and how the name relates to it.
type kindName struct {
	kind string // lower case
	how  string // "plural", "short name"
}

// kindNames indexes the discovery-style names of the built-in kinds:
// their plural resource names and short names.
var kindNames struct {
	once    sync.Once
	names   map[string]kindName
	kinds   []string        // lower-case kinds, sorted
	plurals []string        // the plural names of names, sorted
	groups  map[string]bool // API groups of the scheme; "" is core
}

func loadKindNames() {
	schemas.once.Do(loadSchemas)
	kindNames.names = map[string]kindName{}
	kindNames.groups = map[string]bool{}
	for kind, list := range schemas.byKind {
		for _, ks := range list {
			plural, _ := meta.UnsafeGuessKindToResource(ks.gvk)
			if plural.Resource != kind {
				kindNames.names[plural.Resource] = kindName{kind, "plural"}
			}
			kindNames.groups[ks.gvk.Group] = true
		}
	}
	for kind, names := range shortNames {
		for _, n := range names {
			kindNames.names[n] = kindName{kind, "short name"}
		}
	}
	kindNames.kinds = slices.Sorted(maps.Keys(schemas.byKind))
	for _, n := range slices.Sorted(maps.Keys(kindNames.names)) {
		if kindNames.names[n].how == "plural" {
			kindNames.plurals = append(kindNames.plurals, n)
		}
	}
}

// isBuiltinGroup reports whether an API group is one of the scheme's
// ("" for the core group).
func isBuiltinGroup(group string) bool {
	kindNames.once.Do(loadKindNames)
	return kindNames.groups[group]
}

// suggestKind returns the built-in kind an unknown kind most likely
// means, with why: its plural or short name, or a near miss (one letter
// added, removed, changed or two swapped, for names of five letters or
// more: a shorter custom resource kind, such as Rule, is too easily one
// letter away from a built-in one). ok is false for a name that resembles
// no built-in kind: a custom resource's kind.
func suggestKind(name string) (kind, why string, ok bool) {
	kindNames.once.Do(loadKindNames)
	name = strings.ToLower(name)
	if n, found := kindNames.names[name]; found {
		return n.kind, n.how, true
	}
	if len(name) < 5 {
		return "", "", false
	}
	for _, k := range kindNames.kinds {
		if nearMiss(name, k) {
			return k, "near miss", true
		}
	}
	for _, n := range kindNames.plurals {
		if nearMiss(name, n) {
			return kindNames.names[n].kind, "near miss", true
		}
	}
	return "", "", false
}

// nearMiss reports whether a and b differ by one edit: a byte inserted,
// removed or replaced, or two adjacent bytes swapped.
func nearMiss(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	switch len(b) - len(a) {
	case 0:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if a[i+1:] == b[i+1:] {
			return true // replaced
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}
