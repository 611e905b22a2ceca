package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kpatch.dev/kpatch/test/cluster"
)

// Races is what the edit races saw.
type Races struct {
	// Raced counts the races; Reversed those whose edit that began first
	// was stored last.
	Raced, Reversed int
	// Converged is, for each race, how long after both writes returned
	// the replicas both answered with the version stored last.
	Converged []time.Duration
	// Checked counts the creates through the API server after each race,
	// every one answered with that version.
	Checked int
}

// race writes two versions of the registry file at once, each with a
// merge patch without a resourceVersion, as two agents' edits: both are
// stored, in the order the API server chooses. Then both replicas must
// converge on the version stored last, the registry in force: reviews
// are posted straight to each until it answers with it, within MaxStale,
// and never with another once it did; and creates through the API server
// must be answered with it.
func (s *Soak) race(ctx context.Context) {
	now := time.Now()
	vs := [2]int{s.Edits.Begin(now), s.Edits.Begin(now)}
	var (
		rvs  [2]string
		ends [2]time.Time
		errs [2]error
		wg   sync.WaitGroup
	)
	for i, v := range vs {
		wg.Go(func() {
			patch, _ := json.Marshal(map[string]any{"data": map[string]string{versionFileKey: versionFile(v)}})
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cluster.RegistryNamespace, Name: registryName}}
			errs[i] = s.Cluster.Client.Patch(ctx, cm, client.RawPatch(types.MergePatchType, patch))
			rvs[i], ends[i] = cm.ResourceVersion, time.Now()
		})
	}
	wg.Wait()
	for i, v := range vs {
		if errs[i] != nil {
			s.Edits.Fail(v)
			s.Report.EditErrors.Add(1)
			continue
		}
		s.Edits.End(v, ends[i], rvs[i])
	}
	if errs[0] != nil || errs[1] != nil {
		return
	}
	winner, _ := s.Edits.Latest()
	races := &s.Report.Races
	races.Raced++
	if winner == vs[0] {
		races.Reversed++
	}
	written := ends[0]
	if ends[1].After(written) {
		written = ends[1]
	}
	if !s.converge(ctx, winner) {
		return
	}
	races.Converged = append(races.Converged, time.Since(written))
	for i := range 2 {
		d := deployment(namespaces[i%len(namespaces)], fmt.Sprintf("%srace-%d-%d", targetPrefix, races.Raced, i))
		if err := s.Load.Client.Create(ctx, d, client.DryRunAll); err != nil {
			if ctx.Err() == nil {
				s.Tally.Violate("the edit race: a create after both replicas converged on version %d: %v", winner, err)
			}
			return
		}
		if v, err := marksOf(d).Check(d.Namespace, s.Nonce); err != nil || v != winner {
			s.Tally.Violate("the edit race: a create after both replicas converged on version %d was answered with %d (%v)", winner, v, err)
		}
		races.Checked++
	}
}

// converge posts reviews straight to every replica until each answers
// with version winner, and reports whether they all did within MaxStale;
// an answer of another version after a replica answered winner, or of a
// version not in force, is a violation.
func (s *Soak) converge(ctx context.Context, winner int) bool {
	start := time.Now()
	seen := make([]bool, len(s.Replicas))
	last := make([]string, len(s.Replicas))
	for time.Since(start) < s.MaxStale && ctx.Err() == nil {
		all := true
		for i, r := range s.Replicas {
			sent := time.Now()
			v, err := probe(s.HTTP, r, namespaces[0], s.Nonce)
			if err == nil {
				err = s.Edits.Check(v, sent, time.Now(), s.MaxStale)
			}
			switch {
			case err != nil:
				s.Tally.Violate("the edit race: replica %s: %v", r.Name, err)
				last[i] = err.Error()
			case v == winner:
				seen[i] = true
			case seen[i]:
				s.Tally.Violate("the edit race: replica %s answered version %d after it had answered %d, the version in force", r.Name, v, winner)
			}
			if err == nil {
				last[i] = fmt.Sprint(v)
			}
			all = all && seen[i]
		}
		if all {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ctx.Err() == nil {
		s.Tally.Violate("the edit race: the replicas did not converge on version %d, stored last, within %s: they answer %v", winner, s.MaxStale, last)
	}
	return false
}
