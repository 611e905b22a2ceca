package objecttest

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
)

// randomKeys and randomScalars are the keys and scalars of random values:
// odd ones abound.
var (
	randomKeys    = []string{"a", "b", "name", "key", "x.y", "p/q", "0", "with space", "delete", "-", "[k]", "a=b", "labels"}
	randomScalars = []any{"x", "y", "010", "1.10", "true", "on", "", " lead", "a #b", "- x", "${v}", "$${v}", "quote\"d", "line\nbreak",
		int64(0), int64(7), int64(-3), 1.5, 1e21, true, false, nil}
)

// pick returns a random subset of pool in random order.
func pick[T any](r *rand.Rand, pool []T) []T {
	out := slices.Clone(pool)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:r.IntN(len(out)+1)]
}

func anyList[T any](items []T) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

// Deployment draws a valid Deployment from a pool of parts.
func Deployment(r *rand.Rand) map[string]any {
	labels := map[string]any{"app": "web"}
	for _, k := range pick(r, []string{"tier", "env", "app.kubernetes.io/name"}) {
		labels[k] = []string{"a", "b", "010"}[r.IntN(3)]
	}
	var containers []any
	for _, name := range pick(r, []string{"main", "sidecar", "logger"}) {
		c := map[string]any{"name": name, "image": fmt.Sprintf("ghcr.io/example/%s:1.%d", name, r.IntN(3))}
		if args := pick(r, []string{"--port=8080", "--verbose", "-v", "--log-format=json"}); len(args) > 0 {
			c["args"] = anyList(args)
		}
		var env []any
		for _, e := range pick(r, []string{"LOG_LEVEL", "DEBUG", "REGION", "TZ"}) {
			env = append(env, map[string]any{"name": e, "value": []string{"info", "true", "eu", ""}[r.IntN(4)]})
		}
		if env != nil {
			c["env"] = env
		}
		var ports []any
		for _, p := range pick(r, []int64{8080, 9090, 53}) {
			ports = append(ports, map[string]any{"containerPort": p, "name": fmt.Sprintf("p%d", p)})
		}
		if ports != nil {
			c["ports"] = ports
		}
		if r.IntN(2) == 0 {
			c["resources"] = map[string]any{"limits": map[string]any{"cpu": []string{"100m", "1"}[r.IntN(2)], "memory": "64Mi"}}
		}
		containers = append(containers, c)
	}
	if containers == nil {
		containers = []any{map[string]any{"name": "main", "image": "app:1"}}
	}
	spec := map[string]any{"containers": containers}
	var tolerations []any
	for _, k := range pick(r, []string{"a", "b", "c"}) {
		tolerations = append(tolerations, map[string]any{"key": k, "operator": []string{"Exists", "Equal"}[r.IntN(2)]})
	}
	if tolerations != nil {
		spec["tolerations"] = tolerations
	}
	var volumes []any
	for _, v := range pick(r, []string{"config", "cache", "data"}) {
		volumes = append(volumes, map[string]any{"name": v, "configMap": map[string]any{"name": v + "-cm"}})
	}
	if volumes != nil {
		spec["volumes"] = volumes
	}
	d := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "w", "labels": labels},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": spec},
		},
	}
	if r.IntN(3) > 0 {
		d["spec"].(map[string]any)["replicas"] = int64(r.IntN(3) + 1)
	}
	return d
}

// Widget draws a custom resource of random shape.
func Widget(r *rand.Rand) map[string]any {
	w := randomMap(r, 0)
	w["apiVersion"], w["kind"] = "example.com/v1", "Widget"
	w["metadata"] = map[string]any{"name": "w"}
	return w
}

func randomScalar(r *rand.Rand) any { return randomScalars[r.IntN(len(randomScalars))] }

func randomMap(r *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range r.IntN(4) + 1 {
		k := randomKeys[r.IntN(len(randomKeys))]
		if depth == 0 && k == "labels" {
			continue // a custom resource's top-level labels field: no path reaches it
		}
		m[k] = randomValue(r, depth+1)
	}
	return m
}

func randomValue(r *rand.Rand, depth int) any {
	if depth > 3 {
		return randomScalar(r)
	}
	switch r.IntN(6) {
	case 0:
		return randomMap(r, depth)
	case 1:
		var l []any
		for range r.IntN(4) {
			l = append(l, randomScalar(r))
		}
		return append([]any{}, l...)
	case 2:
		var l []any
		for i := range r.IntN(4) {
			item := randomMap(r, depth+1)
			if r.IntN(3) > 0 {
				item["name"] = fmt.Sprint("n", i)
			}
			l = append(l, item)
		}
		return append([]any{}, l...)
	}
	return randomScalar(r)
}

// Mutate changes a value at random places: scalars, keys added and
// removed, list items inserted, removed, duplicated and moved, shapes
// replaced.
func Mutate(r *rand.Rand, v any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			switch r.IntN(6) {
			case 0:
				if depth > 0 || k != "metadata" && k != "apiVersion" && k != "kind" {
					delete(x, k)
				}
			case 1, 2:
				x[k] = Mutate(r, x[k], depth+1)
			}
		}
		if r.IntN(3) == 0 {
			k := randomKeys[r.IntN(len(randomKeys))]
			if depth > 0 || k != "labels" && k != "metadata" {
				x[k] = randomValue(r, depth+1)
			}
		}
		return x
	case []any:
		for i := range x {
			if r.IntN(3) == 0 {
				x[i] = Mutate(r, x[i], depth+1)
			}
		}
		switch r.IntN(6) {
		case 0:
			if len(x) > 0 {
				i := r.IntN(len(x))
				x = slices.Delete(x, i, i+1)
			}
		case 1:
			x = slices.Insert(x, r.IntN(len(x)+1), randomValue(r, depth+1))
		case 2:
			if len(x) > 0 {
				x = append(x, DeepCopy(x[r.IntN(len(x))]))
			}
		case 3:
			r.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
		}
		return x
	}
	if r.IntN(4) == 0 {
		return randomValue(r, depth)
	}
	return randomScalar(r)
}

// RestoreIdentity keeps the fields that pair the objects, and a metadata
// that a resource can hold: its name, and labels and annotations that
// are maps of strings (any resource's metadata is an object's metadata,
// which kpatch types as the API server does).
func RestoreIdentity(obj map[string]any) {
	obj["apiVersion"], obj["kind"] = "example.com/v1", "Widget"
	old, _ := obj["metadata"].(map[string]any)
	md := map[string]any{"name": "w"}
	for _, key := range []string{"labels", "annotations"} {
		if m, ok := old[key].(map[string]any); ok && stringsOnly(m) {
			md[key] = m
		}
	}
	obj["metadata"] = md
}

// stringsOnly reports whether every value of m is a string.
func stringsOnly(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

func DeepCopy(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return normalizeNumbers(out)
}

// normalizeNumbers turns the float64 integers of encoding/json into int64,
// as the manifest reader decodes them.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	case float64:
		if x == float64(int64(x)) && x < 1e18 && x > -1e18 {
			return int64(x)
		}
	}
	return v
}
