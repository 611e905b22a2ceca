package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"time"

	"kpatch.dev/kpatch/test/cluster"
)

// profileSeconds is how long a CPU profile must run to cover n
// iterations that take perIteration each: whole seconds, as
// /debug/pprof/profile takes them, at least one.
func profileSeconds(perIteration time.Duration, n int) int {
	return max(1, int(math.Ceil((perIteration * time.Duration(n)).Seconds())))
}

// cpuProfile saves to path the webhook's CPU profile of the next seconds
// (the webhook runs with --profiling), for `go tool pprof`; the channel
// gets the outcome when it is written.
func cpuProfile(ctx context.Context, w *cluster.Webhook, seconds int, path string) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- saveProfile(ctx, fmt.Sprintf("%sprofile?seconds=%d", w.ProfilingURL, seconds), path)
	}()
	return done
}

func saveProfile(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the webhook's CPU profile: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("the webhook's CPU profile: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the webhook's CPU profile: HTTP %d: %.200s", resp.StatusCode, body)
	}
	return os.WriteFile(path, body, 0o644)
}
