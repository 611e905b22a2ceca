package registry

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// LayerLabel is the label of a registry ConfigMap that sets the layer of
// its files: an integer, 0 when absent. Files apply by layer first; a
// file's own `# kpatch:layer: N` line overrides its ConfigMap's label.
const LayerLabel = "kpatch.dev/layer"

// ErrInvalidLayer is a registry ConfigMap whose LayerLabel is not an
// integer: none of its files applies, as their place in the order is not
// known.
var ErrInvalidLayer = errors.New("invalid layer label")

// configMapLayer is the layer that cm's label sets for its files.
func configMapLayer(cm *corev1.ConfigMap) (int, error) {
	v, ok := cm.Labels[LayerLabel]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("ConfigMap %s: %w: %s is %q, not an integer; none of its files applies until it is one", cm.Name, ErrInvalidLayer, LayerLabel, v)
	}
	return n, nil
}

// orderKey is where a file of the registry applies: its layer (its own
// layer line, else its ConfigMap's), the specificity of the version that
// applies (File.Meta), its ConfigMap and key, or, for a file given by
// path, its position.
func orderKey(f *RegistryFile, cmLayer, position int) kpatch.OrderKey {
	key := kpatch.OrderKey{Layer: cmLayer, Source: f.Ref.ConfigMapID(), Key: f.Ref.Key}
	if f.Ref.Path != "" {
		key = kpatch.OrderKey{Position: position}
	}
	if f.Ref.Namespace != "" {
		key.Tier = -1 // a tenant's file: before every admin file (tenant.go)
	}
	if f.File != nil {
		m := f.File.Meta()
		if layer, set := m.Layer(); set {
			key.Layer = layer
		}
		key.Specificity = m.Specificity
	}
	return key
}

// setOrder sets the order key of every file; layers are the layers of the
// ConfigMaps by name (namespace/name for a tenant's).
func setOrder(files []RegistryFile, layers map[string]int) {
	for i := range files {
		files[i].Order = orderKey(&files[i], layers[files[i].Ref.ConfigMapID()], i)
	}
}

// inApplyOrder sorts the files by their order keys, in place: the order
// they apply in (before requires: metadata moves a file after the files it
// requires), a pure function of the registry, the same on every replica.
func inApplyOrder(files []RegistryFile) []RegistryFile {
	slices.SortStableFunc(files, func(a, b RegistryFile) int { return a.Order.Compare(b.Order) })
	return files
}

// refuse adds a file of a ConfigMap whose layer label is invalid: it does
// not apply, and its stored last good version stays in the store for when
// the label is fixed.
func (b *build) refuse(cm *corev1.ConfigMap, key string, err error) {
	ref, st := b.state(cm, key)
	src := cm.Data[key]
	edited := !st.known || st.src != src
	st.known, st.src = true, src
	if old, ok := b.stored.Get(ref); ok {
		b.keep(ref, old, old, true)
	}
	b.add(cm, st, RegistryFile{Ref: ref, Err: fmt.Errorf("%s: %w", ref, err)}, edited)
}
