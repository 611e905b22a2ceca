package app

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"kpatch.dev/kpatch/pkg/informed"
	"kpatch.dev/kpatch/pkg/registry"
)

// TenancyOptions are what the cluster admin grants the tenant registries
// (--tenant-registries): the kinds their files patch, and the limits of
// each tenant.
type TenancyOptions struct {
	Kinds           []string
	MaxFiles        int
	MaxCompiledSize string
}

// DefaultTenancyOptions are the defaults of the tenancy flags.
var DefaultTenancyOptions = TenancyOptions{
	Kinds:           registry.DefaultTenantKinds,
	MaxFiles:        registry.DefaultTenantLimits.MaxFiles,
	MaxCompiledSize: quantity(registry.DefaultTenantLimits.MaxCompiledSize),
}

// addFlags binds the tenancy options to flags of fs.
func (o *TenancyOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.Kinds, "tenant-kinds", o.Kinds, "comma-separated kinds a tenant's files may patch (Kind, or Kind.group with core for the core group; @workload for its kinds); a tenant file's target of another kind does not compile, a kind glob is narrowed to these; never "+strings.Join(registry.NeverTenantKinds, ", ")+", whatever this says")
	fs.IntVar(&o.MaxFiles, "max-tenant-files", o.MaxFiles, "most patch files one tenant registry applies (the namespace marked "+informed.TenantLabel+"="+informed.TenantEnabled+"), apart from --max-registry-files and from every other tenant; 0: no limit")
	fs.StringVar(&o.MaxCompiledSize, "max-tenant-compiled-size", o.MaxCompiledSize, "most memory one tenant registry's compiled files may take, estimated as --max-compiled-size is, apart from the registry namespace's and every other tenant's; 0: no limit")
}

// parse parses the tenancy options.
func (o *TenancyOptions) parse() (registry.Tenancy, []error) {
	var errs []error
	t := registry.Tenancy{Limits: registry.Limits{MaxFiles: o.MaxFiles}}
	kinds, err := registry.ParseTenantKinds(o.Kinds)
	if err != nil {
		errs = append(errs, fmt.Errorf("--tenant-kinds: %w", err))
	}
	t.Kinds = kinds
	if o.MaxFiles < 0 {
		errs = append(errs, fmt.Errorf("--max-tenant-files: %d is negative", o.MaxFiles))
	}
	v, err := resource.ParseQuantity(o.MaxCompiledSize)
	switch {
	case err != nil:
		errs = append(errs, fmt.Errorf("--max-tenant-compiled-size: %q is not a quantity (8Mi, 512Ki): %w", o.MaxCompiledSize, err))
	case v.Value() < 0:
		errs = append(errs, fmt.Errorf("--max-tenant-compiled-size: %s is negative", o.MaxCompiledSize))
	default:
		t.Limits.MaxCompiledSize = v.Value()
	}
	return t, errs
}
