package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kregistry "kpatch.dev/kpatch/pkg/registry"
	"kpatch.dev/kpatch/test/cluster"
)

// Forgery is what the version planted in the last good store came to.
type Forgery struct {
	At time.Duration // since the load began
	// ResourceVersion is the genuine version's, which the planted entry
	// kept, with the registry ConfigMap's uid.
	ResourceVersion string
	// Starts are the replicas' starts after the plant.
	Starts []*StartProbe
	// Refused is kpatch_last_good_refused_total of each replica after
	// (a replica that never read it, the leader having dropped it, has 0).
	Refused []float64
	// Dropped is how long after both replicas were ready the store no
	// longer held the planted version.
	Dropped time.Duration
	// Probed counts the reviews posted straight to the replicas after,
	// none answered with the planted version.
	Probed int
}

// storeKey is the key of lastGoodName's file in the last good store.
const storeKey = lastGoodName + "_" + lastGoodFileKey

// forgery plants a forged version in the last good store while no
// replica runs (docs/security.md, the last good store): a registry file
// whose genuine version the leader stored is broken, both replicas are
// stopped, and the store's entry of that file is replaced by another
// source with its digests right, the registry ConfigMap's uid and the
// genuine version's resourceVersion, which etcd still keeps. Both replicas
// start again: a replica that reads it refuses it (counted in
// kpatch_last_good_refused_total: at least one replica must have; the
// leader drops it at once, so the other may never read it), the leader
// must drop it from the store, and no answer may carry what it writes
// (Marks.Check). The load pauses while no replica runs.
func (s *Soak) forgery(ctx context.Context) {
	s.phase.Lock()
	defer s.phase.Unlock()
	step("the last good store: planting a forged version while no replica runs")
	f := &s.Report.Forgery
	f.At = time.Since(s.Report.Start)
	c := s.Cluster.Client
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: lastGoodName, Namespace: cluster.RegistryNamespace, Labels: map[string]string{"kpatch.dev/registry": "true"}},
		Data: map[string]string{lastGoodFileKey: lastGoodFile(lastGoodGenuine)}}
	if err := c.Create(ctx, cm); err != nil {
		s.Tally.Violate("the forgery: %v", err)
		return
	}
	defer func() {
		if err := c.Delete(ctx, cm); err != nil && ctx.Err() == nil {
			s.Tally.Violate("the forgery: deleting %s: %v", lastGoodName, err)
		}
	}()
	if err := waitFor(30*time.Second, func() error { return storeHolds(ctx, c, lastGoodFile(lastGoodGenuine)) }); err != nil {
		s.Tally.Violate("the forgery: the genuine version was not stored: %v", err)
		return
	}
	cm.Data[lastGoodFileKey] = brokenFile
	if err := c.Update(ctx, cm); err != nil {
		s.Tally.Violate("the forgery: breaking the file: %v", err)
		return
	}
	if err := waitFor(30*time.Second, func() error { return stillApplies(ctx, c) }); err != nil {
		s.Tally.Violate("the forgery: the broken edit was not reported: %v", err)
		return
	}

	s.Load.Pause()
	for _, r := range s.Replicas {
		r.Down()
	}
	rv, err := plant(ctx, c, lastGoodFile(lastGoodForged))
	f.ResourceVersion = rv
	if err != nil {
		s.Tally.Violate("the forgery: planting: %v", err)
	}
	f.Starts = make([]*StartProbe, len(s.Replicas))
	var wg sync.WaitGroup
	for i, r := range s.Replicas {
		wg.Go(func() { f.Starts[i] = s.start(ctx, r, 0) })
	}
	wg.Wait()
	s.Load.Resume()
	started := time.Now()
	if err != nil {
		return
	}

	if err := waitFor(30*time.Second, func() error {
		if storeHolds(ctx, c, lastGoodFile(lastGoodForged)) == nil {
			return errors.New("the store still holds the planted version")
		}
		return nil
	}); err != nil {
		s.Tally.Violate("the forgery: %v", err)
	}
	f.Dropped = time.Since(started)
	refused := 0.0
	for _, r := range s.Replicas {
		n, err := s.Cluster.Metric(ctx, r.Webhook(), "kpatch_last_good_refused_total")
		if err != nil {
			s.Tally.Violate("the forgery: replica %s: %v", r.Name, err)
		}
		f.Refused = append(f.Refused, n)
		refused += max(n, 0)
		for range 10 {
			if _, err := probe(s.HTTP, r, namespaces[0], s.Nonce); err != nil {
				s.Tally.Violate("the forgery: replica %s after: %v", r.Name, err)
			}
			f.Probed++
		}
	}
	if refused < 1 {
		s.Tally.Violate("the forgery: no replica refused the planted version (kpatch_last_good_refused_total %v)", f.Refused)
	}
}

// storeHolds returns nil when the last good store holds source as
// lastGoodName's file.
func storeHolds(ctx context.Context, c client.Client, source string) error {
	var store corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: lastGoodStore}, &store); err != nil {
		return err
	}
	if got := store.Data[storeKey]; got != source {
		return fmt.Errorf("the store holds %q", got)
	}
	return nil
}

// stillApplies returns nil once the leader reported that lastGoodName's
// file does not compile and its stored version applies.
func stillApplies(ctx context.Context, c client.Client) error {
	var list eventsv1.EventList
	if err := c.List(ctx, &list, client.InNamespace(cluster.RegistryNamespace)); err != nil {
		return err
	}
	for _, e := range list.Items {
		if e.Regarding.Name == lastGoodName && e.Reason == "PatchCompileFailed" && strings.Contains(e.Note, "last good version still applies") {
			return nil
		}
	}
	return errors.New("no PatchCompileFailed Event saying its last good version still applies")
}

// plant replaces the stored version of lastGoodName's file by source, as
// whoever may write the store could: the digest of source, the uid and
// resourceVersion of the genuine version kept. It returns that
// resourceVersion.
func plant(ctx context.Context, c client.Client, source string) (string, error) {
	var store corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: cluster.RegistryNamespace, Name: lastGoodStore}, &store); err != nil {
		return "", err
	}
	var index map[string]any
	if err := json.Unmarshal([]byte(store.Data["index.json"]), &index); err != nil {
		return "", fmt.Errorf("the store's index: %w", err)
	}
	files, _ := index["files"].(map[string]any)
	entry, _ := files[storeKey].(map[string]any)
	rv, _ := entry["resourceVersion"].(string)
	if entry == nil || rv == "" {
		return "", fmt.Errorf("the store's index has no entry of %s with a resourceVersion: %s", storeKey, store.Data["index.json"])
	}
	entry["sha256"] = kregistry.Digest(source)
	b, err := json.Marshal(index)
	if err != nil {
		return rv, err
	}
	store.Data["index.json"], store.Data[storeKey] = string(b), source
	return rv, c.Update(ctx, &store)
}
