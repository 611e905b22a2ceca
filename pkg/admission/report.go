package admission

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/registry"
)

// maxConflictLogLines is how many new conflicts one sync logs one by one;
// one more line counts the rest.
const maxConflictLogLines = 10

// reportProblems logs every problem and counts compile errors; the leader
// also records one Event per ConfigMap and reason, listing the first
// files.
func (w *Watcher) reportProblems(problems []registry.Problem, leader bool) {
	type group struct {
		cm    *corev1.ConfigMap
		items []string
	}
	groups := map[string]*group{} // by ConfigMap and reason
	var order []string
	for _, p := range problems {
		reason, item := w.logProblem(p)
		id := p.Ref.Namespace + "/" + p.Ref.ConfigMap + "\x00" + reason
		g := groups[id]
		if g == nil {
			g = &group{cm: p.ConfigMap}
			groups[id] = g
			order = append(order, id)
		}
		g.items = append(g.items, item)
	}
	if !leader || w.Recorder == nil {
		return
	}
	for _, id := range order {
		g := groups[id]
		_, reason, _ := strings.Cut(id, "\x00")
		kind := corev1.EventTypeWarning
		if reason == ReasonPatchCompiled {
			kind = corev1.EventTypeNormal
		}
		w.Recorder.Eventf(g.cm, nil, kind, reason, "Compile", "%s", EventNote("", g.items))
	}
}

// logProblem logs one problem and returns its Event reason and line.
func (w *Watcher) logProblem(p registry.Problem) (reason, item string) {
	if p.Err == nil {
		w.Log.Info("registry file compiles again", "file", p.Ref.String())
		return ReasonPatchCompiled, p.Ref.Key + " compiles again and applies"
	}
	if errors.Is(p.Err, registry.ErrInvalidLayer) {
		w.Log.Error(p.Err, "registry file refused: its ConfigMap's layer label is invalid", "file", p.Ref.String())
		return ReasonInvalidLayer, fmt.Sprintf("%s does not apply: %v", p.Ref.Key, p.Err)
	}
	if errors.Is(p.LastGoodErr, registry.ErrLastGoodRefused) {
		w.Metrics.LastGoodVersionRefused()
	}
	kept := "it has no stored last good version, so it does not apply"
	switch {
	case p.LastGood:
		kept = "its last good version still applies"
	case p.LastGoodErr != nil:
		kept = fmt.Sprintf("its stored last good version does not apply either (%v)", p.LastGoodErr)
	}
	if limit := registry.LimitOf(p.Err); limit != "" {
		w.Log.Error(p.Err, "registry file refused by a limit", "file", p.Ref.String(), "limit", limit, "lastGood", p.LastGood, "lastGoodError", p.LastGoodErr)
		if limit == registry.LimitFiles {
			kept = "it does not apply"
		}
		return ReasonRegistryLimitExceeded, fmt.Sprintf("%s is refused; %s: %v", p.Ref.Key, kept, p.Err)
	}
	w.Metrics.CompileError()
	w.Log.Error(p.Err, "registry file does not compile", "file", p.Ref.String(), "lastGood", p.LastGood, "lastGoodError", p.LastGoodErr)
	return ReasonPatchCompileFailed, fmt.Sprintf("%s does not compile; %s: %s", p.Ref.Key, kept, errorSummary(p.Err))
}

// reportNotStored logs the files the store could not hold and, once per
// file until it is stored, records an Event on its ConfigMap.
func (w *Watcher) reportNotStored(notStored []NotStored, cms []corev1.ConfigMap) {
	next := make(map[registry.FileRef]bool, len(notStored))
	byCM := map[string][]string{}
	for _, n := range notStored {
		next[n.Ref] = true
		if w.notStored[n.Ref] {
			continue
		}
		w.Log.Error(n.Err, "the last good store cannot hold a file: if it breaks, no version of it applies", "file", n.Ref.String())
		id := strings.TrimSuffix(n.Ref.String(), "/"+n.Ref.Key)
		byCM[id] = append(byCM[id], n.Err.Error())
	}
	w.notStored = next
	w.Metrics.SetNotStored(len(notStored))
	for i := range cms {
		if items := byCM[w.compiler.ConfigMapID(&cms[i])]; len(items) > 0 && w.Recorder != nil {
			w.Recorder.Eventf(&cms[i], nil, corev1.EventTypeWarning, ReasonLastGoodNotStored, "Store", "%s",
				EventNote("these files apply, but the last good store cannot keep them: if they break, they do not apply", items))
		}
	}
}

// reportConflicts logs the first new conflicts and a count of the rest,
// and the leader records one Event per ConfigMap that wins some of them.
func (w *Watcher) reportConflicts(report *registry.ConflictReport, fresh []*kpatch.Conflict, leader bool, cms []corev1.ConfigMap) {
	byCM := map[string][]string{}
	for i, c := range fresh {
		if i < maxConflictLogLines {
			w.Log.Info("registry files conflict", "conflict", c.Error())
		}
		// a file's name is configmap/key, or namespace/configmap/key for a
		// tenant's; a key has no slash
		cm := c.Later.File[:max(strings.LastIndex(c.Later.File, "/"), 0)]
		byCM[cm] = append(byCM[cm], c.Error())
	}
	if n := len(fresh) - maxConflictLogLines; n > 0 {
		w.Log.Info("more registry files conflict", "notLogged", n)
	}
	if report.Total > len(report.First) {
		w.Log.Info("the registry has more conflicts than the webhook lists", "conflicts", report.Total, "listed", len(report.First))
	}
	if !leader || w.Recorder == nil {
		return
	}
	for i := range cms {
		if items := byCM[w.compiler.ConfigMapID(&cms[i])]; len(items) > 0 {
			header := fmt.Sprintf("%d new conflicts with an earlier file, which this ConfigMap's file wins:", len(items))
			if report.Total > len(report.First) {
				header = fmt.Sprintf("%d new conflicts among the first %d of the registry's %d, with an earlier file, which this ConfigMap's file wins:",
					len(items), len(report.First), report.Total)
			}
			w.Recorder.Eventf(&cms[i], nil, corev1.EventTypeWarning, ReasonPatchConflict, "Compile", "%s", EventNote(header, items))
		}
	}
}
