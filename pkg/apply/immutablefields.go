package apply

import (
	"strings"

	"kpatch.dev/kpatch/pkg/jsonvalue"
)

// immutableFields are, by kind ("group/Kind", "/Kind" for the core
// group), the fields of the built-in kinds that the API server does not
// let an UPDATE change: its validation rules for an update of each kind
// (ValidatePodUpdate, ValidateJobSpecUpdate, ValidateDeploymentUpdate,
// ValidateReplicaSetUpdate, ValidateDaemonSetUpdate,
// ValidateStatefulSetUpdate, ValidateServiceUpdate,
// ValidatePersistentVolumeUpdate, ValidatePersistentVolumeClaimUpdate,
// ValidateConfigMapUpdate and ValidateSecretUpdate of the API server's
// validation of the core, apps and batch groups). Where a rule allows a
// change the table cannot tell apart (a terminating Pod's
// terminationGracePeriodSeconds, a Job's template while it is suspended,
// a claim's storage request grown where its storage class expands
// volumes, a PersistentVolume's node affinity set where it had none),
// the field is
// held immutable: a file left out where it could have applied costs
// nothing the API server would have kept.
var immutableFields = map[string][]immutableField{
	"/Pod": {
		// every field of spec but the images, activeDeadlineSeconds,
		// tolerations (additions only) and schedulingGates (removals
		// only)
		{path: "spec", keys: true, except: []string{"containers", "initContainers", "ephemeralContainers", "activeDeadlineSeconds", "tolerations", "schedulingGates"}},
		{path: "spec.containers", items: true, except: []string{"image"}},
		{path: "spec.initContainers", items: true, except: []string{"image"}},
		{path: "spec.ephemeralContainers", items: true, except: []string{"image"}},
		{path: "spec.tolerations", allowed: keepsAll},
		{path: "spec.schedulingGates", allowed: removesOnly},
	},
	"batch/Job": {
		{path: "spec.selector"}, {path: "spec.template"}, {path: "spec.completionMode"},
		{path: "spec.podFailurePolicy"}, {path: "spec.successPolicy"},
		{path: "spec.backoffLimitPerIndex"}, {path: "spec.managedBy"},
	},
	"apps/Deployment": {{path: "spec.selector"}},
	"apps/ReplicaSet": {{path: "spec.selector"}},
	"apps/DaemonSet":  {{path: "spec.selector"}},
	"apps/StatefulSet": {
		{path: "spec", keys: true, except: []string{"replicas", "template", "updateStrategy", "minReadySeconds", "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy", "ordinals"}},
	},
	"/Service": {{path: "spec.clusterIP"}, {path: "spec.clusterIPs"}},
	"/PersistentVolumeClaim": {
		// a storage request may change only on a bound claim whose
		// storage class expands volumes, and never below the capacity:
		// held immutable
		{path: "spec", keys: true, except: []string{"volumeAttributesClassName"}},
	},
	"/PersistentVolume": {
		// the volume's source (csi, nfs, hostPath, ...), volumeMode and
		// nodeAffinity
		{path: "spec", keys: true, except: []string{"capacity", "accessModes", "claimRef", "persistentVolumeReclaimPolicy", "storageClassName", "mountOptions", "volumeAttributesClassName"}},
	},
	"/ConfigMap": {
		{path: "data", when: isImmutable}, {path: "binaryData", when: isImmutable}, {path: "immutable", when: isImmutable},
	},
	"/Secret": {
		{path: "type"},
		{path: "data", when: isImmutable}, {path: "stringData", when: isImmutable}, {path: "immutable", when: isImmutable},
	},
}

func init() {
	for _, fields := range immutableFields {
		for i := range fields {
			fields[i].segments = strings.Split(fields[i].path, ".")
		}
	}
}

// hasImmutableFields reports whether an UPDATE of obj's kind may not
// change some of its fields.
func hasImmutableFields(obj map[string]any) bool {
	return immutableFields[kindKey(obj)] != nil
}

// immutableField is a field that an UPDATE may not change.
type immutableField struct {
	// path is the field, dot-separated; segments the same split at the
	// dots (init).
	path     string
	segments []string
	// keys says that each member of the map at path is a field of its
	// own, but those of except.
	keys bool
	// items says that the field is a list of maps whose members but
	// those of except are immutable.
	items  bool
	except []string
	// allowed, if set, says that an UPDATE may change the field from old
	// to new.
	allowed func(old, new any) bool
	// when, if set, says whether the field is immutable in the stored
	// object.
	when func(old map[string]any) bool
}

// immutableChange returns the first field that an UPDATE of after's kind
// may not change where after, the object before changed by one file,
// differs from before and from the stored object, which stored gives
// (asked only then); "" when there is none.
func immutableChange(stored func() map[string]any, before, after map[string]any) string {
	fields := immutableFields[kindKey(after)]
	for i := range fields {
		f := &fields[i]
		path := f.segments
		b, a := valueAt(before, path), valueAt(after, path)
		if jsonvalue.Equal(b, a) {
			continue
		}
		old := stored()
		if f.when != nil && !f.when(old) {
			continue
		}
		if !f.keys {
			if f.changes(valueAt(old, path), b, a) {
				return f.path
			}
			continue
		}
		bm, _ := b.(map[string]any)
		am, _ := a.(map[string]any)
		om, _ := valueAt(old, path).(map[string]any)
		for _, m := range []map[string]any{am, bm} {
			for k := range m {
				if !f.excepts(k) && f.changes(om[k], bm[k], am[k]) {
					return f.path + "." + k
				}
			}
		}
	}
	return ""
}

// changes reports whether a file that made a of b changes the field
// where the stored object has o.
func (f *immutableField) changes(o, b, a any) bool {
	if f.items {
		o, b, a = f.without(o), f.without(b), f.without(a)
	}
	if jsonvalue.Equal(b, a) || jsonvalue.Equal(a, o) {
		return false
	}
	return f.allowed == nil || !f.allowed(o, a)
}

func (f *immutableField) excepts(key string) bool {
	for _, e := range f.except {
		if e == key {
			return true
		}
	}
	return false
}

// without returns the list v with its maps without the members of
// except.
func (f *immutableField) without(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			out[i] = item
			continue
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			if !f.excepts(k) {
				c[k] = v
			}
		}
		out[i] = c
	}
	return out
}

// kindKey is the key of obj's kind in immutableFields: "group/Kind".
func kindKey(obj map[string]any) string {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		group = ""
	}
	return group + "/" + kind
}

// valueAt is the value at path in obj; nil when there is none.
func valueAt(obj map[string]any, path []string) any {
	var v any = obj
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// keepsAll says that the list new holds every item of the list old: an
// addition.
func keepsAll(old, new any) bool { return subset(old, new) }

// removesOnly says that every item of the list new is in the list old: a
// removal.
func removesOnly(old, new any) bool { return subset(new, old) }

// subset reports whether every item of the list a is in the list b.
func subset(a, b any) bool {
	la, _ := a.([]any)
	lb, _ := b.([]any)
	for _, x := range la {
		found := false
		for _, y := range lb {
			if jsonvalue.Equal(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// isImmutable says that the stored object is marked immutable: true (a
// ConfigMap, a Secret).
func isImmutable(old map[string]any) bool {
	v, _ := old["immutable"].(bool)
	return v
}
