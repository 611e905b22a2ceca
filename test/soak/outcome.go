package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Outcome is what became of one request.
type Outcome int

// The outcomes, in the order the report lists them.
const (
	// Patched: admitted with the registry's patch.
	Patched Outcome = iota
	// AllowedUnpatched: admitted as it was sent.
	AllowedUnpatched
	// Denied: the webhook refused the object.
	Denied
	// Errored: no answer (a transport error, a timeout, a conflict).
	Errored
	// Refused: the API server refused the webhook's answer (the patch did
	// not apply, or made the object invalid).
	Refused
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"patched", "allowed unpatched", "denied", "errors", "refused by API server"}

func (o Outcome) String() string {
	if o < 0 || o >= numOutcomes {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// webhookName is the webhook of the cluster's MutatingWebhookConfiguration.
const webhookName = "mutate.kpatch.dev"

// classify says what became of a write through the API server, from the
// client's error and, when there was none, whether the stored object
// carries the patch. A denial names the webhook; a 422 or a 500 on an
// object the soak made valid is the API server refusing what the webhook
// answered (a patch that does not apply is an internal error, a patched
// object that does not validate is invalid).
func classify(err error, patched bool) Outcome {
	switch {
	case err == nil && patched:
		return Patched
	case err == nil:
		return AllowedUnpatched
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), fmt.Sprintf("admission webhook %q denied the request", webhookName)):
		return Denied
	case apierrors.IsInvalid(err), apierrors.IsInternalError(err):
		return Refused
	default:
		return Errored
	}
}

// Answer is one request as the soak records it.
type Answer struct {
	// Channel is how it was sent: an operation through the API server
	// ("create", "dry-run update", ...) or "forged review".
	Channel string
	Outcome Outcome
	Latency time.Duration
	// Violation, when not empty, is why this answer breaks what the soak
	// asserts.
	Violation string
}

// Tally counts answers per channel and outcome, keeps their latencies and
// the violations. It is safe for concurrent use.
type Tally struct {
	mu         sync.Mutex
	counts     map[string]*[numOutcomes]int
	latencies  map[string][]time.Duration
	violations []string
	violated   int
}

// maxViolations is how many violations a Tally keeps word for word.
const maxViolations = 50

// NewTally returns an empty Tally.
func NewTally() *Tally {
	return &Tally{counts: map[string]*[numOutcomes]int{}, latencies: map[string][]time.Duration{}}
}

// Add records an answer.
func (t *Tally) Add(a Answer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.counts[a.Channel]
	if c == nil {
		c = new([numOutcomes]int)
		t.counts[a.Channel] = c
	}
	c[a.Outcome]++
	if a.Outcome != Errored {
		t.latencies[a.Channel] = append(t.latencies[a.Channel], a.Latency)
	}
	if a.Violation != "" {
		t.violate(a.Channel + ": " + a.Violation)
	}
}

// Violate records a violation found outside an answer.
func (t *Tally) Violate(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.violate(fmt.Sprintf(format, args...))
}

func (t *Tally) violate(v string) {
	t.violated++
	if len(t.violations) < maxViolations {
		t.violations = append(t.violations, v)
	}
}

// Violations returns how many violations there were and the first of
// them.
func (t *Tally) Violations() (int, []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.violated, slices.Clone(t.violations)
}

// Channels returns the channels answered, sorted.
func (t *Tally) Channels() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var names []string
	for name := range t.counts {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Counts returns the answers of the channels named (all of them when none
// is) per outcome.
func (t *Tally) Counts(channels ...string) [numOutcomes]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	var sum [numOutcomes]int
	for name, c := range t.counts {
		if len(channels) == 0 || slices.Contains(channels, name) {
			for o := range sum {
				sum[o] += c[o]
			}
		}
	}
	return sum
}

// Latencies returns the latencies of the answered requests of the
// channels named (all when none is).
func (t *Tally) Latencies(channels ...string) []time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	var all []time.Duration
	for name, l := range t.latencies {
		if len(channels) == 0 || slices.Contains(channels, name) {
			all = append(all, l...)
		}
	}
	return all
}

// percentile returns the p-th percentile (0-100) of d by the nearest
// rank, 0 for no durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := int(p/100*float64(len(s))+0.999999) - 1
	return s[max(0, min(rank, len(s)-1))]
}
