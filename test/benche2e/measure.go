package main

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

// result is what one scenario measured.
type result struct {
	name      string
	latencies []time.Duration
	// wrong counts the answers where the change's annotation was not as
	// the scenario expects (a webhook that timed out is ignored by its
	// failure policy, and the object goes through unchanged).
	wrong int
}

// changedAnnotation is how the change's annotation reads in the API
// server's compact JSON answer: a check cheap enough for every request.
var changedAnnotation = []byte(fmt.Sprintf("%q:%q", annotationKey, annotationVal))

// measure runs n iterations; each sends one dry-run create per scenario,
// starting with a different scenario each time so that none always follows
// the same other. Only the request's round trip is timed.
func (b *bench) measure(ctx context.Context, n int) ([]result, error) {
	results := make([]result, len(b.scenarios))
	for i, s := range b.scenarios {
		results[i] = result{name: s.name, latencies: make([]time.Duration, 0, n)}
	}
	for iter := range n {
		for k := range b.scenarios {
			i := (iter + k) % len(b.scenarios)
			s := b.scenarios[i]
			start := time.Now()
			body, err := b.dryRunCreate(ctx, s)
			took := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("%s, iteration %d: %w", s.name, iter, err)
			}
			results[i].latencies = append(results[i].latencies, took)
			if bytes.Contains(body, changedAnnotation) != s.mutated {
				results[i].wrong++
			}
		}
	}
	return results, nil
}
