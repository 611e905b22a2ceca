package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Warnings counts the warnings the API server returned with the load's
// answers (the webhook's among them: a file that failed, an object
// admitted unpatched on an internal error), per text. It is a
// rest.WarningHandlerWithContext.
type Warnings struct {
	mu     sync.Mutex
	counts map[string]int
}

// HandleWarningHeaderWithContext counts one warning.
func (w *Warnings) HandleWarningHeaderWithContext(_ context.Context, code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.counts == nil {
		w.counts = map[string]int{}
	}
	w.counts[text]++
}

// Top returns the n most frequent warnings, with their counts, and the
// number of warnings in all.
func (w *Warnings) Top(n int) ([]string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	texts := make([]string, 0, len(w.counts))
	total := 0
	for t, c := range w.counts {
		texts = append(texts, t)
		total += c
	}
	slices.SortFunc(texts, func(a, b string) int {
		if w.counts[a] != w.counts[b] {
			return w.counts[b] - w.counts[a]
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, t := range texts[:min(n, len(texts))] {
		out = append(out, fmt.Sprintf("%d× %.300s", w.counts[t], t))
	}
	return out, total
}
