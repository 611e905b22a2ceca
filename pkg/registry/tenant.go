package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// ErrTenantNamespace is a tenant's file whose target names a namespace
// other than its ConfigMap's: a tenant patches the objects of its own
// namespace only. Checked with errors.Is.
var ErrTenantNamespace = errors.New("a tenant's file patches the objects of its own namespace only")

// A tenant registry is the registry ConfigMaps of a namespace other than
// the registry namespace (Compiler.TenantRegistries). A tenant's files
// patch the objects of their ConfigMap's namespace only: a target without
// a namespace is given it, a target naming another namespace (or a glob
// over namespaces) does not compile, and so for the selects of a
// replacements file's targets. They apply before every file of the
// registry namespace, which has the last word, and they have no last good
// version: a tenant's file that does not compile does not apply.

// tenantOf returns the namespace of cm when it is a tenant's ConfigMap,
// else "".
func (c *Compiler) tenantOf(cm *corev1.ConfigMap) string {
	if c.RegistryNamespace == "" || cm.Namespace == "" || cm.Namespace == c.RegistryNamespace {
		return ""
	}
	return cm.Namespace
}

// ConfigMapID names cm among the registry's ConfigMaps: its name, or
// namespace/name for a tenant's.
func (c *Compiler) ConfigMapID(cm *corev1.ConfigMap) string {
	if ns := c.tenantOf(cm); ns != "" {
		return ns + "/" + cm.Name
	}
	return cm.Name
}

// inLimitOrder sorts cms in the order the limits take them: the registry
// namespace's by name first, so that tenants cannot crowd the admin's
// files out of --max-registry-files or --max-compiled-size, then the
// tenants' by namespace and name.
func (c *Compiler) inLimitOrder(cms []corev1.ConfigMap) []corev1.ConfigMap {
	cms = slices.Clone(cms)
	slices.SortFunc(cms, func(a, b corev1.ConfigMap) int {
		ta, tb := c.tenantOf(&a), c.tenantOf(&b)
		if (ta == "") != (tb == "") {
			if ta == "" {
				return -1
			}
			return 1
		}
		if d := strings.Compare(ta, tb); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	return cms
}

// compileTenant parses a tenant's file, holds its targets to its
// namespace and compiles it.
func compileTenant(ref FileRef, src string) (*kpatch.Patch, error) {
	f, err := kpatch.ParseAny(ref.String(), []byte(src))
	if err != nil {
		return nil, err
	}
	var errs kpatch.ErrorList
	own := func(t *kpatch.Target, line, col int) {
		if t.Namespace != "" && t.Namespace != ref.Namespace {
			errs = append(errs, &kpatch.ParseError{
				Pos: kpatch.Position{File: f.Name, Line: line, Column: col}, Err: ErrTenantNamespace,
				Msg: fmt.Sprintf("the target names namespace %q: %v (%s); leave the namespace out", t.Namespace, ErrTenantNamespace, ref.Namespace),
			})
		}
		t.Namespace = ref.Namespace
	}
	for _, m := range f.Merges {
		own(&m.Target, m.Line, m.Col)
	}
	for _, s := range f.Sections {
		own(&s.Target, s.Line, s.Col)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return kpatch.Compile(f)
}

// tenantSelects is the error of a tenant's replacements file whose
// targets' selects name other namespaces (foreign), or nil.
func tenantSelects(ref FileRef, foreign []replacement.ForeignSelect) error {
	var errs kpatch.ErrorList
	for _, f := range foreign {
		errs = append(errs, &kpatch.ParseError{
			Pos: f.Pos, Err: ErrTenantNamespace,
			Msg: fmt.Sprintf("the target's select names namespace %q: %v (%s); leave the namespace out", f.Namespace, ErrTenantNamespace, ref.Namespace),
		})
	}
	return errs.Err()
}
