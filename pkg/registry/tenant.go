package registry

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/fileerr"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// ErrTenantNamespace is a tenant's file whose target names a namespace
// other than its ConfigMap's: a tenant patches the objects of its own
// namespace only. Checked with errors.Is.
var ErrTenantNamespace = errors.New("a tenant's file patches the objects of its own namespace only")

// ErrTenantField is a tenant's file that writes a field no tenant
// writes (TenantProtectedFields). Checked with errors.Is.
var ErrTenantField = errors.New("a tenant's file never writes an object's identity or ownership")

// TenantProtectedFields are the fields of metadata a tenant's file never
// writes, sets, deletes or inserts into, by any path: renaming an object
// would take it away from the admin's files that target it by name, and
// the owners and finalizers decide when the garbage collector deletes it.
var TenantProtectedFields = []string{"name", "namespace", "ownerReferences", "finalizers"}

// A tenant registry is the registry ConfigMaps of a namespace other than
// the registry namespace (Compiler.RegistryNamespace) that the cluster
// admin marked (informed.TenantLabel; the webhook reads no other). A
// tenant's files:
//
//   - patch the objects of their ConfigMap's namespace only: a target
//     without a namespace is given it, a target naming another namespace
//     (or a glob over namespaces) does not compile, and so for the selects
//     of a replacements file's targets;
//   - patch the kinds of the allowlist only (Tenancy.Kinds): a target
//     naming another kind, or one of NeverTenantKinds, does not compile; a
//     kind glob or @workload is narrowed to the allowlist's kinds it
//     matches (one that matches none does not compile), and so is a
//     replacements select without a literal kind, at admission;
//   - never write TenantProtectedFields;
//   - have their own limits (Tenancy.Limits), apart from the admin's and
//     every other tenant's;
//   - apply before every file of the registry namespace, which has the
//     last word, and have no last good version: a tenant's file that does
//     not compile does not apply.

// Tenancy is what the cluster admin grants the tenant registries.
type Tenancy struct {
	// Kinds is the allowlist of the kinds they patch; nil:
	// DefaultTenantKinds.
	Kinds *TenantKinds
	// Limits bound each tenant registry on its own: MaxFiles and
	// MaxCompiledSize per tenant (MaxFileSize is the registry's for every
	// file).
	Limits Limits
}

// DefaultTenantLimits are the limits of each tenant registry by default:
// 100 files and 8 MiB of estimated compiled size (64 KiB of source).
var DefaultTenantLimits = Limits{MaxFiles: 100, MaxCompiledSize: 8 << 20}

// kinds is the allowlist in force.
func (t *Tenancy) kinds() *TenantKinds {
	if t.Kinds == nil {
		return DefaultTenantKindList()
	}
	return t.Kinds
}

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
// namespace's by name first, then the tenants' by namespace and name
// (each tenant within its own limits).
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
// namespace and to the kinds of allow, checks that it writes no
// protected field, and compiles it.
func compileTenant(ref FileRef, src string, allow *TenantKinds) (*kpatch.Patch, error) {
	f, err := kpatch.ParseAny(ref.String(), []byte(src))
	if err != nil {
		return nil, err
	}
	var errs kpatch.ErrorList
	report := func(line, col int, sentinel error, format string, args ...any) {
		errs = append(errs, &kpatch.ParseError{
			Pos: kpatch.Position{File: f.Name, Line: line, Column: col}, Err: sentinel, Msg: fmt.Sprintf(format, args...),
		})
	}
	own := func(t *kpatch.Target, line, col int) {
		if t.Namespace != "" && t.Namespace != ref.Namespace {
			report(line, col, ErrTenantNamespace, "the target names namespace %q: %v (%s); leave the namespace out", t.Namespace, ErrTenantNamespace, ref.Namespace)
		}
		t.Namespace = ref.Namespace
		if msg := tenantKindProblem(t, allow); msg != "" {
			report(line, col, ErrTenantKind, "%s", msg)
		}
	}
	for _, m := range f.Merges {
		own(&m.Target, m.Line, m.Col)
		if field := mergeWritesProtected(m.Patch); field != "" {
			report(m.Line, m.Col, ErrTenantField, "the patch writes %s: %v (%s)", field, ErrTenantField, protectedList())
		}
	}
	for _, s := range f.Sections {
		own(&s.Target, s.Line, s.Col)
		workload := strings.EqualFold(s.Target.Kind, kpatch.WorkloadSet)
		if len(s.Entries) == 0 {
			if field := pathWritesProtected(s.Path, workload); field != "" {
				report(s.Line, s.Col, ErrTenantField, "the header writes %s: %v (%s)", field, ErrTenantField, protectedList())
			}
		}
		for _, e := range s.Entries {
			full := append(slices.Clip(s.Path), e.Key...)
			if field := pathWritesProtected(full, workload); field != "" {
				report(e.Line, e.Col, ErrTenantField, "the entry writes %s: %v (%s)", field, ErrTenantField, protectedList())
			}
		}
	}
	if len(errs) > 0 {
		fileerr.SortParseErrors(errs)
		return nil, errs
	}
	return kpatch.Compile(f)
}

// tenantKindProblem says why a tenant's target t admits no kind of
// allow, or "".
func tenantKindProblem(t *kpatch.Target, allow *TenantKinds) string {
	single := !strings.ContainsAny(t.Kind, "*?@")
	switch {
	case single && neverTenantKind(t.Kind):
		return fmt.Sprintf("the target's kind %s is one a tenant's file never patches: %v", t.Kind, ErrTenantKind)
	case len(allow.Narrow(t)) > 0:
		return ""
	case single:
		return fmt.Sprintf("the target's kind %s%s is not on the allowlist: %v (--tenant-kinds %s)", t.Kind, groupText(t), ErrTenantKind, allow)
	}
	return fmt.Sprintf("the target [%s] matches no kind of the allowlist: %v (--tenant-kinds %s)", t.String(), ErrTenantKind, allow)
}

func groupText(t *kpatch.Target) string {
	if !t.HasGroup {
		return ""
	}
	return "(" + t.Group + ")"
}

// protectedList names TenantProtectedFields for a message.
func protectedList() string {
	return "metadata." + strings.Join(TenantProtectedFields, ", metadata.")
}

// isProtected reports whether a field of metadata is one of
// TenantProtectedFields.
func isProtected(field string) bool { return slices.Contains(TenantProtectedFields, field) }

// pathWritesProtected returns the protected field a path of a .kpatch or
// YAML patch file's field entry writes (workload: under @workload), or
// "". A path writes what its leading fields reach: metadata whole writes
// every field of it (a whole value replaces the map); the pod's metadata
// of @workload (template.metadata) is a Pod's own. Deletes count as
// writes.
func pathWritesProtected(path kpatch.Path, workload bool) string {
	var fields []string
	for _, seg := range path {
		if seg.Kind == kpatch.Delete {
			continue
		}
		if seg.Kind != kpatch.Field {
			break
		}
		fields = append(fields, seg.Name)
	}
	if workload && len(fields) >= 2 && fields[0] == "template" && fields[1] == "metadata" {
		fields = fields[1:]
	}
	return metadataWrite(fields)
}

// metadataWrite returns the protected field that writing the field at
// the path of map keys fields writes, or "".
func metadataWrite(fields []string) string {
	switch {
	case len(fields) == 0 || fields[0] != "metadata":
		return ""
	case len(fields) == 1:
		return "metadata (whole, with " + protectedList() + ")"
	case isProtected(fields[1]):
		return "metadata." + fields[1]
	}
	return ""
}

// mergeWritesProtected returns the protected field a strategic or JSON
// merge patch writes, or "": a key of its metadata that is protected, a
// directive there or at the top ($patch: replace, $retainKeys,
// $deleteFromPrimitiveList/finalizers, ...), or a metadata that is no
// map (null deletes it).
func mergeWritesProtected(patch map[string]any) string {
	for _, k := range slices.Sorted(maps.Keys(patch)) {
		if strings.HasPrefix(k, "$") {
			return "the whole object (" + k + ")"
		}
	}
	md, ok := patch["metadata"]
	if !ok {
		return ""
	}
	m, ok := md.(map[string]any)
	if !ok {
		return "metadata (whole, with " + protectedList() + ")"
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if isProtected(k) || strings.HasPrefix(k, "$") {
			return "metadata." + k
		}
	}
	return ""
}

// tenantSelects is the error of a tenant's replacements file whose
// targets' selects name other namespaces (foreign), or kinds the
// allowlist does not hold, or whose field paths write a protected field;
// nil when there is none.
func tenantSelects(ref FileRef, foreign []replacement.ForeignSelect, writes []replacement.TargetWrite, allow *TenantKinds) error {
	var errs kpatch.ErrorList
	for _, f := range foreign {
		errs = append(errs, &kpatch.ParseError{
			Pos: f.Pos, Err: ErrTenantNamespace,
			Msg: fmt.Sprintf("the target's select names namespace %q: %v (%s); leave the namespace out", f.Namespace, ErrTenantNamespace, ref.Namespace),
		})
	}
	for _, w := range writes {
		if msg := tenantSelectKindProblem(w.Select, allow); msg != "" {
			errs = append(errs, &kpatch.ParseError{Pos: w.Pos, Err: ErrTenantKind, Msg: msg})
		}
		if field := metadataWrite(w.Fields); field != "" {
			errs = append(errs, &kpatch.ParseError{
				Pos: w.Pos, Err: ErrTenantField,
				Msg: fmt.Sprintf("the field path %q writes %s: %v (%s)", w.Path, field, ErrTenantField, protectedList()),
			})
		}
	}
	fileerr.SortParseErrors(errs)
	return errs.Err()
}

// tenantSelectKindProblem says why a select of a tenant's replacements
// file names a kind it may not patch, or "". A select without a literal
// kind (none, or a regular expression) is narrowed at admission.
func tenantSelectKindProblem(sel replacement.ResID, allow *TenantKinds) string {
	kind := sel.Kind
	if kind == "" || regexp.QuoteMeta(kind) != kind {
		return ""
	}
	if neverTenantKind(kind) {
		return fmt.Sprintf("the target's select names kind %s, one a tenant's file never patches: %v", kind, ErrTenantKind)
	}
	group := sel.Group
	if group != "" && regexp.QuoteMeta(group) == group {
		if !allow.Allows(kind, group) {
			return fmt.Sprintf("the target's select names kind %s in group %s, which is not on the allowlist: %v (--tenant-kinds %s)", kind, group, ErrTenantKind, allow)
		}
		return ""
	}
	if !allow.AllowsKind(kind) {
		return fmt.Sprintf("the target's select names kind %s, which is not on the allowlist: %v (--tenant-kinds %s)", kind, ErrTenantKind, allow)
	}
	return ""
}

// tenantFile is a tenant's file as it applies: held to its namespace and
// to the kinds of the allowlist, whatever its targets say. Its Targets
// (and so the registry's indexes and the managed webhook rules) are its
// targets narrowed to the allowlist (TenantKinds.Narrow).
type tenantFile struct {
	apply.File
	namespace string
	allow     *TenantKinds
	targets   []*kpatch.Target // narrowed; nil for a kind without kpatch targets
	kinds     []string         // of targets, lower case
}

var _ apply.File = (*tenantFile)(nil)

// newTenantFile holds f, a file of the tenant namespace, to allow.
func newTenantFile(f apply.File, namespace string, allow *TenantKinds) *tenantFile {
	tf := &tenantFile{File: f, namespace: namespace, allow: allow}
	for _, t := range f.Targets() {
		for _, n := range allow.Narrow(t) {
			tf.targets = append(tf.targets, &n)
			if k := strings.ToLower(n.Kind); !slices.Contains(tf.kinds, k) {
				tf.kinds = append(tf.kinds, k)
			}
		}
	}
	if tf.targets == nil && f.Targets() != nil {
		tf.targets = []*kpatch.Target{} // a patch file that admits nothing
	}
	return tf
}

// with is the tenant file f holds to the same kinds.
func (t *tenantFile) with(f apply.File) *tenantFile {
	return &tenantFile{File: f, namespace: t.namespace, allow: t.allow, targets: t.targets, kinds: t.kinds}
}

// Targets are the file's targets narrowed to the allowlist.
func (t *tenantFile) Targets() []*kpatch.Target {
	if t.targets == nil {
		return nil
	}
	return t.targets
}

// Kinds are the kinds of the narrowed targets, or the kinds a
// replacements file names (all on the allowlist).
func (t *tenantFile) Kinds() ([]string, bool) {
	if t.targets == nil {
		return t.File.Kinds()
	}
	return t.kinds, false
}

// MayTarget reports whether the file may target an object of kind in
// namespace named name: in its namespace, of a kind of the allowlist.
func (t *tenantFile) MayTarget(kind, namespace, name string) bool {
	if namespace != t.namespace || !t.allow.AllowsKind(kind) {
		return false
	}
	if t.targets == nil {
		return t.File.MayTarget(kind, namespace, name)
	}
	for _, n := range t.targets {
		probe := *n
		probe.HasGroup = false
		if name == "" {
			probe.Name, probe.NameLiteral = "*", false
		}
		if probe.Matches(&kpatch.ObjectRef{Kind: kind, Namespace: namespace, Name: name}) {
			return true
		}
	}
	return false
}

// Matches reports whether the file targets the object: one of its
// namespace, of a kind and group of the allowlist, that a narrowed target
// and the file itself match.
func (t *tenantFile) Matches(o *apply.Object) bool {
	ref := o.Ref()
	if ref.Namespace != t.namespace || !t.allow.Allows(ref.Kind, ref.Group()) {
		return false
	}
	if t.targets != nil && !slices.ContainsFunc(t.targets, func(n *kpatch.Target) bool { return n.Matches(ref) }) {
		return false
	}
	return t.File.Matches(o)
}

// Meta is the file's, owned by its namespace: its conditions spend the
// tenant's budget, never the admin's. Its operations, mode and
// conditions are the file's own.
func (t *tenantFile) Meta() apply.Meta {
	m := t.File.Meta()
	m.Owner = t.namespace
	return m
}

// WithValues binds the file and holds it as f is held.
func (t *tenantFile) WithValues(values *kpatch.Variables) apply.File {
	return t.with(t.File.WithValues(values))
}
