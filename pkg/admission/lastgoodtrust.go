package admission

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/pkg/registry"
)

// Vouch returns the versions of stored, those the API server vouches for
// marked (registry.StoredFile.Vouched): the registry ConfigMap named by a
// version, of the version's uid, held it at the version's resourceVersion,
// as a list at exactly that resourceVersion shows. It asks only for the
// versions that would otherwise not apply: of a ConfigMap of cms of the
// same uid, before its current resourceVersion, and not compiled by this
// process (compiled); once per version. When the API server no longer
// keeps that resourceVersion (etcd compacted it), it vouches for the
// versions the store held when this process first read it, and for no
// other: a version that appears in the store while this process runs is
// checked within seconds, while etcd keeps its history. An error asking is
// returned: the sync is tried again, and the version is not dropped.
func (s *LastGoodStore) Vouch(ctx context.Context, stored *registry.LastGood, cms []corev1.ConfigMap, compiled func(registry.FileRef, registry.StoredFile) bool) (*registry.LastGood, error) {
	s.mu.Lock()
	if s.atStart == nil {
		s.atStart = map[string]bool{}
		for _, ref := range stored.Refs() {
			f, _ := stored.Get(ref)
			s.atStart[versionID(ref, f)] = true
		}
	}
	known := s.vouched
	s.mu.Unlock()

	byName := make(map[string]*corev1.ConfigMap, len(cms))
	for i := range cms {
		if cms[i].Namespace == s.Namespace || cms[i].Namespace == "" {
			byName[cms[i].Name] = &cms[i]
		}
	}
	var files map[registry.FileRef]registry.StoredFile // a copy, once a version is vouched for
	var vouched map[string]bool
	for ref, f := range stored.All() {
		cm := byName[ref.ConfigMap]
		if ref.Namespace != "" || cm == nil || f.UID == "" || f.UID != string(cm.UID) || !before(f.ResourceVersion, cm.ResourceVersion) || compiled(ref, f) {
			continue // it applies, or it never will: Trust decides
		}
		id := versionID(ref, f)
		ok, asked := known[id]
		if !asked {
			var err error
			if ok, err = s.heldAt(ctx, ref, f); err != nil {
				return nil, err
			}
		}
		if vouched == nil {
			vouched = map[string]bool{}
		}
		vouched[id] = ok
		if ok {
			if files == nil {
				files = maps.Collect(stored.All())
			}
			f.Vouched = true
			files[ref] = f
		}
	}
	s.mu.Lock()
	s.vouched = vouched // the versions the store holds now, no others
	s.mu.Unlock()
	if files == nil {
		return stored, nil
	}
	return registry.NewLastGood(files), nil
}

// heldAt asks the API server whether the registry ConfigMap of f held f
// at f's resourceVersion.
func (s *LastGoodStore) heldAt(ctx context.Context, ref registry.FileRef, f registry.StoredFile) (bool, error) {
	r := s.Live
	if r == nil {
		r = s.Reader
	}
	var list corev1.ConfigMapList
	err := r.List(ctx, &list, &client.ListOptions{
		Namespace:     s.Namespace,
		FieldSelector: fields.OneTermEqualSelector("metadata.name", ref.ConfigMap),
		Raw:           &metav1.ListOptions{ResourceVersion: f.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
	})
	switch {
	case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
		s.mu.Lock()
		ok := s.atStart[versionID(ref, f)]
		s.mu.Unlock()
		if ok {
			s.Log.Info("the API server no longer keeps the resourceVersion of a stored version; it was in the store when this process started",
				"file", ref.String(), "resourceVersion", f.ResourceVersion)
		} else {
			s.Log.Error(nil, "refused a stored version: it appeared in the store after this process started, and the API server no longer keeps its resourceVersion",
				"file", ref.String(), "resourceVersion", f.ResourceVersion)
		}
		return ok, nil
	case err != nil:
		return false, fmt.Errorf("asking the API server for %s at resourceVersion %s, to check the last good store: %w", ref, f.ResourceVersion, err)
	}
	for i := range list.Items {
		held := registry.StoredVersionOf(&list.Items[i], ref.Key)
		if held.UID == f.UID && held.SameVersion(f) {
			return true, nil
		}
	}
	s.Log.Error(nil, "refused a stored version: the registry ConfigMap did not hold it at its resourceVersion",
		"file", ref.String(), "resourceVersion", f.ResourceVersion, "sha256", f.SourceDigest)
	return false, nil
}

// before reports whether resourceVersion a is before b; false when either
// is not one the API server gives.
func before(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c < 0
}

// versionID names one stored version of ref.
func versionID(ref registry.FileRef, f registry.StoredFile) string {
	return ref.String() + "\x00" + f.UID + "\x00" + f.ResourceVersion + "\x00" + f.SourceDigest + "\x00" + f.ValuesDigest
}
