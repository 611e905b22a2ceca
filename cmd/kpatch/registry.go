package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/internal/varflags"
	"kpatch.dev/kpatch/pkg/registry"
)

// defaultRegistrySelector is the webhook's default --registry-selector.
const defaultRegistrySelector = "kpatch.dev/registry=true"

// registryFlags are the --registry flags of apply and lint (and the
// registry of a test): the registry ConfigMaps as manifests, instead of
// patch files, and the selector of the ConfigMaps that belong to it.
type registryFlags struct {
	files    []string
	selector string
}

func (r *registryFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&r.files, "registry", nil, "registry ConfigMap manifests, a YAML or JSON `FILE` or a directory, as applied to the cluster: their patch files, values.yaml and parameters.yaml, ordered and compiled as the webhook does (instead of patch files; repeatable)")
	fs.StringVar(&r.selector, "registry-selector", defaultRegistrySelector, "label `SELECTOR` of the registry ConfigMaps, as the webhook's --registry-selector: other ConfigMaps of --registry are left out, with a warning")
}

// errRegistry is the cause of the problems of registry manifests
// themselves (not of their patch files).
var errRegistry = errors.New("invalid registry manifest")

// load reads the registry ConfigMaps and compiles them as the webhook's
// compiler does (pkg/registry.Compiler), each file bound to its
// ConfigMap's values, ordered by layer (the label kpatch.dev/layer),
// specificity, ConfigMap name and key, then after the files they
// require. The webhook's limits do not apply (they are flags of its
// deployment), nor does a stored last good version: a file that does not
// compile is a problem, reported as the webhook reports it
// (ConfigMap/key:line:column). An error is a file that could not be
// read.
func (in *registryFlags) load(src filesource.Source, found *lint.Findings) (*registry.Registry, error) {
	sel, err := labels.Parse(in.selector)
	if err != nil {
		return nil, usageErrorf("--registry-selector: %v", err)
	}
	m, err := manifest.ReadFiles(in.files, src)
	if err != nil {
		return nil, err
	}
	cms, err := registryConfigMaps(m, sel, found)
	if err != nil {
		return nil, err
	}
	return (&registry.Compiler{}).Build(cms, nil).Registry, nil
}

// registryConfigMaps returns the ConfigMaps of the manifests that the
// selector selects; other ConfigMaps are warnings, other kinds are left
// out silently (a kustomization's directory holds more than ConfigMaps).
// Two ConfigMaps of one name, or one that is not a valid ConfigMap, are
// errors.
func registryConfigMaps(m *manifest.Set, sel labels.Selector, found *lint.Findings) ([]corev1.ConfigMap, error) {
	var cms []corev1.ConfigMap
	seen := map[string]string{}
	for _, d := range m.Docs {
		for _, obj := range d.Items() {
			if obj["apiVersion"] != "v1" || obj["kind"] != "ConfigMap" {
				continue
			}
			var cm corev1.ConfigMap
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &cm); err != nil {
				return nil, fmt.Errorf("%s: %w: ConfigMap: %v", d, errRegistry, err)
			}
			if !sel.Matches(labels.Set(cm.Labels)) {
				found.Warn(fmt.Errorf("%s: warning: ConfigMap %s is not part of the registry: its labels do not match %s", d, cm.Name, selectorText(sel)))
				continue
			}
			if first, ok := seen[cm.Name]; ok {
				return nil, fmt.Errorf("%s: %w: ConfigMap %s is given twice (first at %s)", d, errRegistry, cm.Name, first)
			}
			seen[cm.Name] = d.String()
			cms = append(cms, cm)
		}
	}
	if len(cms) == 0 {
		return nil, fmt.Errorf("%s: %w: no ConfigMap labelled %s", strings.Join(m.Names(), ", "), errRegistry, selectorText(sel))
	}
	return cms, nil
}

// selectorText prints a selector, or says that it selects everything.
func selectorText(sel labels.Selector) string {
	if sel.Empty() {
		return "(any labels)"
	}
	return sel.String()
}

// exclusive fails when --registry is given with patch files or values:
// the registry's ConfigMaps carry their own.
func (in *registryFlags) exclusive(patches bool, vars *varflags.Flags) error {
	switch {
	case len(in.files) == 0:
		return nil
	case patches:
		return usageErrorf("--registry takes the patch files of the registry's ConfigMaps: give either --registry or patch files, not both")
	case vars.Given():
		return usageErrorf("--registry takes the values of the registry's ConfigMaps (values.yaml, parameters.yaml): --values, --set, --set-string and --parameters go with patch files")
	}
	return nil
}
