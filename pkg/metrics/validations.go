package metrics

import "github.com/prometheus/client_golang/prometheus"

// Results of a registry edit that /validate-registry checked, the values
// of the result label of kpatch_registry_validations_total: admitted
// without a warning (ValidationAccepted), admitted with warnings
// (ValidationWarned), refused (ValidationRefused), admitted without a
// check (ValidationUnchecked: deadline, panic, one user's share of
// validations taken, a ConfigMap larger than the API server stores; an
// edit before the first sync is answered 503), or not a registry edit
// (ValidationSkipped: a DELETE, a ConfigMap that is no registry).
const (
	ValidationAccepted  = "accepted"
	ValidationWarned    = "warned"
	ValidationRefused   = "refused"
	ValidationUnchecked = "unchecked"
	ValidationSkipped   = "skipped"
)

// newValidationMetric creates the counter of registry validations, every
// result at zero.
func (m *Metrics) newValidationMetric() {
	m.RegistryValidations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kpatch_registry_validations_total",
		Help: "Registry ConfigMap edits /validate-registry answered, by result: accepted, warned (accepted with warnings), refused, unchecked (admitted without a check: deadline, panic, as many of the user's validations waiting or running as one user may have, a ConfigMap larger than the API server stores; an edit before the first sync is answered 503 and counted in kpatch_admission_requests_rejected_total), skipped (not a registry edit).",
	}, []string{"result"})
	for _, r := range []string{ValidationAccepted, ValidationWarned, ValidationRefused, ValidationUnchecked, ValidationSkipped} {
		m.RegistryValidations.WithLabelValues(r)
	}
}

// RegistryValidated counts a registry edit /validate-registry answered,
// by result (ValidationAccepted, ...).
func (m *Metrics) RegistryValidated(result string) {
	if m != nil {
		m.RegistryValidations.WithLabelValues(result).Inc()
	}
}
