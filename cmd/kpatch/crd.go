package main

import (
	"fmt"

	"github.com/spf13/pflag"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kpatch.dev/kpatch/internal/filesource"
	"kpatch.dev/kpatch/internal/manifest"
	"kpatch.dev/kpatch/pkg/schema"
)

// crdFlag is --crd: the CustomResourceDefinitions whose structural
// schemas hold the results of custom resources, as the webhook reads
// them from the API server.
type crdFlag struct {
	paths []string
	set   *schema.CRDs
}

func (c *crdFlag) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&c.paths, "crd", nil, "CustomResourceDefinition manifests, a `FILE` or a directory: what the files write into a custom resource takes its fields' types (1.10 into a string field is \"1.10\"), and a custom resource a file changes must fit its schema (types, enums, required fields, list-map keys), or that file is left out of it; repeatable")
}

// load reads the CRDs of the flag, once.
func (c *crdFlag) load(src filesource.Source) error {
	if len(c.paths) == 0 || c.set != nil {
		return nil
	}
	files, err := src.Expand(c.paths, filesource.Manifests, true)
	if err != nil {
		return err
	}
	m, err := manifest.ReadFiles(files, src)
	if err != nil {
		return err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, d := range m.Docs {
		for _, obj := range d.Items() {
			if obj["apiVersion"] != "apiextensions.k8s.io/v1" || obj["kind"] != "CustomResourceDefinition" {
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, crd); err != nil {
				return fmt.Errorf("%s: CustomResourceDefinition %v: %w", d, obj["metadata"], err)
			}
			crds = append(crds, crd)
		}
	}
	c.set = schema.NewCRDs(crds)
	return nil
}

// get returns the schemas read, nil before load or without --crd.
func (c *crdFlag) get() *schema.CRDs { return c.set }
