package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"unicode"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/registry"
)

// ValidatePath is where the webhook serves RegistryValidator: the
// validating webhook of the registry ConfigMaps.
const ValidatePath = "/validate-registry"

// RegistryValidator checks an edit of a registry ConfigMap (CREATE or
// UPDATE; a DELETE is not checked) before the API server stores it: it
// compiles the registry as the Watcher would once the edit is in force,
// the held registry ConfigMaps with this one in place of its stored
// version, and refuses the edit, with the positioned errors kpatch lint
// prints, when
//
//   - a file of the ConfigMap is refused: it does not compile, its values
//     or parameters do not bind, its metadata fail (enabled:, a cycle of
//     requires:, conflicts: with an enabled file), a tenant's file names
//     another namespace, or it is beyond a limit (--max-file-size alone;
//     --max-registry-files and --max-compiled-size with the files before
//     it in the held registry), or what lint's Check finds in it;
//   - a file of another ConfigMap that the held registry applies would be
//     refused with the edit: pushed past --max-registry-files or
//     --max-compiled-size, or in conflict (conflicts:) with a file the
//     edit enables.
//
// A requirement that is not met (requires: a file the registry does not
// hold, or that is disabled or refused) is a warning, not a refusal,
// wherever it is: ConfigMaps are applied one at a time, and the file
// required may come with the next one; so is a file of another ConfigMap
// whose requirement the edit removes. Warnings also name the constructs
// that are not idempotent and the contested fields the ConfigMap's files
// take part in (among the first registry.MaxConflicts of the registry),
// unless the edit is refused. The same checks as a sync, so about the
// same cost: a one-key edit compiles one file (registry.Compiler.Fork),
// and the conflict analysis reads every file. One check runs at a time,
// the users waiting taking turns (validationTurns): one user's edits,
// however many, never hold another user's behind more than one of theirs.
//
// Whatever it cannot check (the request's deadline, a panic, a user with
// maxValidationsPerUser validations waiting or running already, a
// ConfigMap larger than the API server stores, the registry not synced
// yet) is admitted with a warning, as failurePolicy Ignore would. Served
// by the webhook, a request before the first sync never reaches it:
// WithRegistrySynced answers 503, and the validating webhook's own
// failurePolicy decides.
type RegistryValidator struct {
	Watcher *Watcher

	// turns hands out the one place of the validation running.
	turns validationTurns
}

// maxConfigMapData is the most bytes of data (the values of data and
// binaryData) the API server stores in a ConfigMap. A validating webhook
// is called after the API server validated the object, so a larger one is
// no edit the API server sends: it is not checked, nor compiled.
const maxConfigMapData = 1 << 20

// configMapData is the bytes of cm's data, as the API server counts them.
func configMapData(cm *corev1.ConfigMap) int {
	n := 0
	for _, v := range cm.Data {
		n += len(v)
	}
	for _, v := range cm.BinaryData {
		n += len(v)
	}
	return n
}

var _ admission.Handler = (*RegistryValidator)(nil)

// NewRegistryValidator returns the validator of w's registry.
func NewRegistryValidator(w *Watcher) *RegistryValidator {
	return &RegistryValidator{Watcher: w}
}

// Handle checks one edit of a ConfigMap, and counts its result
// (kpatch_registry_validations_total).
func (v *RegistryValidator) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	log, err := logr.FromContext(ctx)
	if err != nil {
		log = logf.Log
	}
	result := metrics.ValidationSkipped
	defer func() {
		if r := recover(); r != nil {
			log.Error(fmt.Errorf("panic: %v", r), "recovered a panic validating a registry ConfigMap", "stack", string(debug.Stack()))
			resp, result = notChecked(fmt.Errorf("internal error: %v", r)), metrics.ValidationUnchecked
		}
		v.Watcher.Metrics.RegistryValidated(result)
	}()
	resp, result = v.check(ctx, log, req)
	return resp
}

// check checks one edit of a ConfigMap: the answer, and its result
// (metrics.ValidationAccepted, ...).
func (v *RegistryValidator) check(ctx context.Context, log logr.Logger, req admission.Request) (admission.Response, string) {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update || req.SubResource != "" {
		return admission.Allowed(""), metrics.ValidationSkipped
	}
	var cm corev1.ConfigMap
	if err := reviewCodec.Unmarshal(req.Object.Raw, &cm); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the ConfigMap: %w", err)), metrics.ValidationRefused
	}
	if cm.Namespace == "" {
		cm.Namespace = req.Namespace
	}
	if cm.Namespace != req.Namespace {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("metadata.namespace %q of the ConfigMap is not the request's namespace %q", cm.Namespace, req.Namespace)), metrics.ValidationRefused
	}
	if cm.Name == "" {
		cm.Name = req.Name
	}
	w := v.Watcher
	if !w.inRegistry(&cm) {
		return admission.Allowed(""), metrics.ValidationSkipped // not, or no longer, a registry ConfigMap
	}
	if n := configMapData(&cm); n > maxConfigMapData {
		return notChecked(fmt.Errorf("the ConfigMap holds %d bytes of data, more than the %d the API server stores", n, maxConfigMapData)), metrics.ValidationUnchecked
	}
	if cm.Namespace != w.Namespace {
		// a tenant's ConfigMap is a registry only in a marked namespace;
		// elsewhere it patches nothing and is not checked
		marked, err := w.tenantMarked(ctx, cm.Namespace)
		if err != nil {
			return notChecked(fmt.Errorf("reading the Namespace %s: %w", cm.Namespace, err)), metrics.ValidationUnchecked
		}
		if !marked {
			return admission.Allowed(""), metrics.ValidationSkipped
		}
	}
	held := w.Current()
	if held == nil {
		return notChecked(admit.ErrNotSynced), metrics.ValidationUnchecked
	}
	user := req.UserInfo.Username
	if err := v.turns.acquire(ctx, user); err != nil {
		return notChecked(err), metrics.ValidationUnchecked
	}
	defer v.turns.release(user)
	cms, err := w.list(ctx)
	if err != nil {
		log.Error(err, "listing the registry ConfigMaps to validate an edit")
		return notChecked(fmt.Errorf("listing the registry ConfigMaps: %w", err)), metrics.ValidationUnchecked
	}
	c := w.compiler.Fork()
	c.Limits = w.Limits
	c.RegistryNamespace = ""
	if w.TenantRegistries {
		c.RegistryNamespace = w.Namespace
	}
	b := c.Build(withEdit(cms, &cm), nil)
	f := findEdit(c, b.Registry, held, &cm)
	if len(f.errs) > 0 {
		log.V(1).Info("registry edit refused", "errors", f.errs, "warnings", f.warns)
		resp := admission.Denied(prefix + strings.Join(bounded(f.errs), "\n"))
		resp.Result.Code, resp.Result.Reason = http.StatusUnprocessableEntity, metav1.StatusReasonInvalid
		return resp.WithWarnings(warningLines(f.warns)...), metrics.ValidationRefused
	}
	// the conflicts of an edit that is refused are for after its fix
	f.conflicts(registry.FindConflicts(b.Registry))
	log.V(1).Info("registry edit checked", "warnings", f.warns)
	if len(f.warns) > 0 {
		return admission.Allowed("").WithWarnings(warningLines(f.warns)...), metrics.ValidationWarned
	}
	return admission.Allowed(""), metrics.ValidationAccepted
}

// notChecked admits an edit that could not be checked, saying why.
func notChecked(err error) admission.Response {
	return admission.Allowed("").WithWarnings(prefix + "the registry edit was not checked: " + err.Error())
}

// warningLines are the admission warnings of messages, bounded, each on
// one line: the API server drops a warning that holds a control
// character.
func warningLines(messages []string) []string {
	out := warnings(messages)
	for i, m := range out {
		out[i] = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, m)
	}
	return out
}

// withEdit returns the held ConfigMaps with cm in place of the one of its
// namespace and name, or added.
func withEdit(held []corev1.ConfigMap, cm *corev1.ConfigMap) []corev1.ConfigMap {
	out := make([]corev1.ConfigMap, 0, len(held)+1)
	for _, h := range held {
		if h.Namespace != cm.Namespace || h.Name != cm.Name {
			out = append(out, h)
		}
	}
	return append(out, *cm)
}

// editFindings are the errors, which refuse an edit, and the warnings of
// one validation, each a line as kpatch lint prints it.
type editFindings struct {
	errs, warns []string
	// own are the names (FileRef.String) of the edited ConfigMap's files.
	own map[string]bool
	// hidden counts the files of other tenants the edit would refuse:
	// counted, never named, to a tenant.
	hidden int
}

// findEdit sorts the problems of the candidate registry reg: those of the
// edited ConfigMap's files, and those of other files that held applies.
func findEdit(c *registry.Compiler, reg, held *registry.Registry, cm *corev1.ConfigMap) *editFindings {
	id := c.ConfigMapID(cm)
	tenant := ""
	if id != cm.Name {
		tenant = cm.Namespace
	}
	refused := map[registry.FileRef]bool{}
	for _, f := range held.Files() {
		if f.Err != nil {
			refused[f.Ref] = true
		}
	}
	e := &editFindings{own: map[string]bool{}}
	var found lint.Findings
	for _, f := range reg.Files() {
		switch {
		case f.Ref.ConfigMapID() == id:
			e.own[f.Ref.String()] = true
			if f.Err != nil {
				report(&found, f.Err, "")
			} else if f.File != nil {
				for _, err := range f.File.Check() {
					found.ReportCheck(err, false)
				}
			}
		case f.Err == nil || refused[f.Ref]:
		case tenant != "" && f.Ref.Namespace != "" && f.Ref.Namespace != tenant:
			e.hidden++
		default:
			report(&found, f.Err, " (the registry applies this file now; with this edit it would not)")
		}
	}
	for _, p := range found.List {
		if p.Warning {
			e.warns = append(e.warns, p.Err.Error())
		} else {
			e.errs = append(e.errs, p.Err.Error())
		}
	}
	if e.hidden > 0 {
		files := "files"
		if e.hidden == 1 {
			files = "file"
		}
		e.errs = append(e.errs, fmt.Sprintf("with this edit, %d %s of other namespaces' registries would no longer apply (a limit of the registry)", e.hidden, files))
	}
	return e
}

// report records each error of a refused file, with note after it: a
// requirement not met is a warning, anything else an error.
func report(found *lint.Findings, err error, note string) {
	var list kpatch.ErrorList
	if !errors.As(err, &list) {
		list = kpatch.ErrorList{err}
	}
	for _, e := range list {
		if errors.Is(e, kpatch.ErrRequirement) {
			found.Warn(noted{e, note + " (the file does not apply until the registry holds what it requires, enabled)", true})
		} else {
			found.Add(noted{e, note, false})
		}
	}
}

// noted is a problem with a note after it, as a warning (position, then
// "warning:") or an error.
type noted struct {
	err     error
	note    string
	warning bool
}

func (n noted) Error() string {
	if !n.warning {
		return n.err.Error() + n.note
	}
	var pe *kpatch.ParseError
	if errors.As(n.err, &pe) {
		return pe.Pos.String() + ": warning: " + pe.Msg + n.note
	}
	return "warning: " + n.err.Error() + n.note
}

func (n noted) Unwrap() error { return n.err }

// conflicts warns of the contested fields that one of the edited
// ConfigMap's files writes: every file that writes it is named, but only
// the values of the edited ConfigMap's own files are shown. Who may create
// or update a ConfigMap may not read the others (create alone, or a review
// made up to claim their namespace, when the path token is off): the
// answer tells them no more than where to look.
func (e *editFindings) conflicts(report *registry.ConflictReport) {
	own := func(file string) bool { return e.own[file] }
	for _, c := range report.First {
		if e.involved(c) {
			e.warns = append(e.warns, "warning: "+c.TextShowing(own))
		}
	}
}

// involved reports whether a file of the edited ConfigMap writes the
// contested field of c.
func (e *editFindings) involved(c *kpatch.Conflict) bool {
	if c.Field == nil {
		return e.own[c.Earlier.File] || e.own[c.Later.File]
	}
	for _, w := range c.Field.Writes {
		if e.own[w.Pos.File] {
			return true
		}
	}
	return false
}
