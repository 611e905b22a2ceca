package app

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"kpatch.dev/kpatch/pkg/schema"
)

// defaultMaxCRDSchemaSize is the default of --max-crd-schema-size.
const defaultMaxCRDSchemaSize = 64 << 20

// addCRDFlags binds the options of the CRD schemas every replica keeps.
func (o *Options) addCRDFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.CRDSchemas, "crd-schemas", o.CRDSchemas, "keep the structural schemas of the CustomResourceDefinitions (RBAC: customresourcedefinitions get, list, watch), on every replica, and leave out of a custom resource a file whose changes its schema refuses (types, enums, required fields), as for built-in kinds; false: custom resources are not checked")
	fs.StringVar(&o.MaxCRDSchemaSize, "max-crd-schema-size", o.MaxCRDSchemaSize, "most bytes of CRD schemas kept (their JSON size), in the order the CRDs arrive; a CRD past it is not checked, with a log line; 0: no limit")
}

// parseCRDSchemas parses --max-crd-schema-size.
func (o *Options) parseCRDSchemas() (int64, error) {
	v, err := resource.ParseQuantity(o.MaxCRDSchemaSize)
	switch {
	case err != nil:
		return 0, fmt.Errorf("--max-crd-schema-size: %q is not a quantity (64Mi, 512Ki): %w", o.MaxCRDSchemaSize, err)
	case v.Value() < 0:
		return 0, fmt.Errorf("--max-crd-schema-size: %s is negative", o.MaxCRDSchemaSize)
	}
	return v.Value(), nil
}

// crdSchemas returns the checker of the handler: built-in kinds, and with
// --crd-schemas custom resources by the schemas of a cache of their
// CRDs, which mgr starts (and waits for) with its own caches, on every
// replica.
func (o *Options) crdSchemas(mgr manager.Manager, maxBytes int64, log logr.Logger) (*schema.Checker, error) {
	if !o.CRDSchemas {
		return &schema.Checker{}, nil
	}
	store := schema.NewCRDStore(maxBytes)
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(), Scheme: scheme, Mapper: mgr.GetRESTMapper(),
		ByObject: map[client.Object]cache.ByObject{&apiextensionsv1.CustomResourceDefinition{}: {
			// kept stripped to what a check reads, within the bound
			Transform: func(obj any) (any, error) {
				out, fits := store.Strip(obj)
				if !fits {
					crd := obj.(*apiextensionsv1.CustomResourceDefinition)
					log.Info("a CRD's schemas are past --max-crd-schema-size: its custom resources are not checked", "crd", crd.Name, "maxBytes", maxBytes)
				}
				return out, nil
			},
		}},
	})
	if err != nil {
		return nil, err
	}
	informer, err := c.GetInformer(context.Background(), &apiextensionsv1.CustomResourceDefinition{})
	if err != nil {
		return nil, err
	}
	if _, err := informer.AddEventHandler(crdEvents{store}); err != nil {
		return nil, err
	}
	if err := mgr.Add(crdCache{c}); err != nil {
		return nil, err
	}
	return &schema.Checker{CRDs: store.CRDs}, nil
}

// crdEvents keeps the CRDs the informer reports in the store.
type crdEvents struct{ store *schema.CRDStore }

func (e crdEvents) OnAdd(obj any, _ bool) { e.set(obj) }

func (e crdEvents) OnUpdate(_, obj any) { e.set(obj) }

func (e crdEvents) OnDelete(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		e.store.Delete(crd.Name)
	}
}

func (e crdEvents) set(obj any) {
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		e.store.Set(crd)
	}
}

// crdCache is a cache the manager starts, and waits for, with its own
// caches on every replica, not only the leader.
type crdCache struct{ cache.Cache }

func (c crdCache) GetCache() cache.Cache { return c.Cache }
