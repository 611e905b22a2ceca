package registry

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Limits bound what the registry may cost. A file beyond a limit fails
// with an error that wraps one of ErrTooManyFiles, ErrFileTooLarge or
// ErrRegistryTooLarge; the process and the other files are unaffected.
// A zero field means no limit.
type Limits struct {
	// MaxFiles is how many patch files the registry may hold; the files
	// after the first MaxFiles in registry order do not apply, and their
	// last good versions neither.
	MaxFiles int
	// MaxFileSize is how many bytes one file may hold; a larger content
	// is refused like one that does not compile (its last good version
	// applies).
	MaxFileSize int64
	// MaxCompiledSize bounds the registry's compiled size, estimated as
	// CompiledSizeFactor times the source bytes of the versions that
	// apply (a file's source, and its ConfigMap's values.yaml once).
	// Files are admitted in registry order while they fit; the content of
	// a file that does not fit is refused without being compiled (its
	// last good version applies if that fits), and the smaller files after
	// it still may.
	MaxCompiledSize int64
}

// DefaultLimits are the webhook's defaults: 10,000 files, 1 MiB a file
// (what a ConfigMap holds anyway) and 128 MiB of estimated compiled size.
var DefaultLimits = Limits{MaxFiles: 10000, MaxFileSize: 1 << 20, MaxCompiledSize: 128 << 20}

// CompiledSizeFactor is how many bytes of memory a compiled file is taken
// to keep per byte of source. BenchmarkCompiledSize measures it: 67 for
// one-line files, 58 for the files of pkg/kpatch/testdata/bench, 83 for a
// 1 MiB file of 60,000 entries (93, 124 and 139 with the engine before);
// the estimate errs on the side of memory.
const CompiledSizeFactor = 128

// Sentinel errors of the registry's limits, checked with errors.Is.
var (
	ErrTooManyFiles     = errors.New("the registry holds more files than it may")
	ErrFileTooLarge     = errors.New("the file is larger than a registry file may be")
	ErrRegistryTooLarge = errors.New("the registry's estimated compiled size would exceed its limit")
	// ErrTenantTooManyFiles and ErrTenantTooLarge are the limits of one
	// tenant registry (Tenancy.Limits); they wrap ErrTooManyFiles and
	// ErrRegistryTooLarge.
	ErrTenantTooManyFiles = fmt.Errorf("the tenant registry holds more files than it may: %w", ErrTooManyFiles)
	ErrTenantTooLarge     = fmt.Errorf("the tenant registry's estimated compiled size would exceed its limit: %w", ErrRegistryTooLarge)
)

// estimate is the estimated compiled size of a version.
func estimate(src, values string) int64 {
	return int64(len(src)+len(values)) * CompiledSizeFactor
}

func tooManyFiles(ref FileRef, limit int) error {
	if ref.Namespace != "" {
		return fmt.Errorf("%s: %w: it is not among the first %d files of the tenant registry of %s (ConfigMap name, then key), the most the webhook applies of one tenant (--max-tenant-files)",
			ref, ErrTenantTooManyFiles, limit, ref.Namespace)
	}
	return fmt.Errorf("%s: %w: it is not among the first %d files of the registry (ConfigMap name, then key), the most the webhook applies (--max-registry-files)",
		ref, ErrTooManyFiles, limit)
}

func fileTooLarge(ref FileRef, size, limit int64) error {
	return fmt.Errorf("%s: %w: %s, more than %s (--max-file-size)", ref, ErrFileTooLarge, quantity(size), quantity(limit))
}

func registryTooLarge(ref FileRef, size, limit int64) error {
	if ref.Namespace != "" {
		return fmt.Errorf("%s: %w: this file is estimated at %s compiled, which the files of %s before it leave no room for within %s (--max-tenant-compiled-size)",
			ref, ErrTenantTooLarge, quantity(size), ref.Namespace, quantity(limit))
	}
	return fmt.Errorf("%s: %w: this file is estimated at %s compiled, which the files before it leave no room for within %s (--max-compiled-size)",
		ref, ErrRegistryTooLarge, quantity(size), quantity(limit))
}

// quantity formats a byte count as Kubernetes does (1Mi, 1536Ki).
func quantity(n int64) string {
	return resource.NewQuantity(n, resource.BinarySI).String()
}

// Limit names, the values of the limit label of
// kpatch_registry_over_limit_files.
const (
	LimitFiles        = "max-registry-files"
	LimitFileSize     = "max-file-size"
	LimitCompiledSize = "max-compiled-size"
	// the limits of one tenant registry
	LimitTenantFiles        = "max-tenant-files"
	LimitTenantCompiledSize = "max-tenant-compiled-size"
)

// LimitOf names the limit err reports, or "" when it is no limit's error.
func LimitOf(err error) string {
	switch {
	case errors.Is(err, ErrTenantTooManyFiles):
		return LimitTenantFiles
	case errors.Is(err, ErrTenantTooLarge):
		return LimitTenantCompiledSize
	case errors.Is(err, ErrTooManyFiles):
		return LimitFiles
	case errors.Is(err, ErrFileTooLarge):
		return LimitFileSize
	case errors.Is(err, ErrRegistryTooLarge):
		return LimitCompiledSize
	}
	return ""
}
