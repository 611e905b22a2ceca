package diff

import (
	"fmt"
	"slices"
	"strings"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// shorthand shortens full paths with the format's shorthand (replicas
// for spec.replicas, containers for spec.template.spec.containers, labels
// for metadata.labels), as far as the engine resolves the short path to
// the same place. It asks the engine itself: a probe patch sets the first
// field to null on an empty object of the kind, and the place the null
// lands is where the engine looks the field up. Answers are cached by
// API version, kind and field.
type shorthand struct {
	places map[shorthandKey][]string // nil: the engine does not resolve the field
}

type shorthandKey struct{ apiVersion, kind, field string }

func newShorthand() *shorthand {
	return &shorthand{places: make(map[shorthandKey][]string)}
}

// shorten returns the shortest suffix of path that the engine resolves
// to path on objects of this API version and kind. It fails when the
// engine resolves even the full path elsewhere: a kind without a schema
// whose top-level field is named labels or annotations, which the format
// reads as metadata.labels and metadata.annotations.
func (s *shorthand) shorten(apiVersion, kind string, path kpatch.Path) (kpatch.Path, error) {
	lead := 0
	for lead < len(path) && path[lead].Kind == kpatch.Field {
		lead++
	}
	for p := min(lead, len(path)) - 1; p > 0; p-- {
		place, ok := s.place(apiVersion, kind, path[p].Name)
		if ok && slices.EqualFunc(place, path[:p], func(name string, seg kpatch.Segment) bool { return seg.Name == name }) {
			return path[p:], nil
		}
	}
	if lead > 0 {
		if place, ok := s.place(apiVersion, kind, path[0].Name); ok && len(place) > 0 {
			return nil, fmt.Errorf("%s: the format reads a first field %s as %s.%s: %w", path, path[0].Name, strings.Join(place, "."), path[0].Name, ErrUnaddressable)
		}
	}
	return path, nil
}

// place returns the fields under which the engine looks up a path's
// first field.
func (s *shorthand) place(apiVersion, kind, field string) ([]string, bool) {
	key := shorthandKey{apiVersion, kind, field}
	if place, ok := s.places[key]; ok {
		return place, place != nil
	}
	place := probePlace(apiVersion, kind, field)
	s.places[key] = place
	return place, place != nil
}

// probePlace applies `field: null` to an empty object of the kind and
// returns where the null landed, or nil.
func probePlace(apiVersion, kind, field string) []string {
	const name = "kpatch-probe"
	f := &kpatch.File{Name: "probe.kpatch", Sections: []*kpatch.Section{{
		Target:  kpatch.Target{Kind: kind, Name: name, NameLiteral: true},
		Entries: []*kpatch.Entry{{Key: kpatch.Path{fieldSegment(field)}, Value: kpatch.Value{Raw: "null"}}},
	}}}
	p, err := kpatch.Compile(f)
	if err != nil {
		return nil
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}
	out, err := kpatch.Apply(obj, []*kpatch.Patch{p}, kpatch.ApplyOptions{})
	if err != nil {
		return nil
	}
	place, ok := findNull(out, field, obj)
	if !ok {
		return nil
	}
	return append([]string{}, place...)
}

// findNull returns the keys leading to the map entry field whose value
// is null and that the original object did not have.
func findNull(m map[string]any, field string, orig map[string]any) ([]string, bool) {
	if v, ok := m[field]; ok && v == nil {
		if _, had := orig[field]; !had {
			return []string{}, true
		}
	}
	for k, v := range m {
		sub, ok := v.(map[string]any)
		if !ok {
			continue
		}
		origSub, _ := orig[k].(map[string]any)
		if place, ok := findNull(sub, field, origSub); ok {
			return append([]string{k}, place...), true
		}
	}
	return nil, false
}
