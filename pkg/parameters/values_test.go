package parameters

import (
	"errors"
	"reflect"
	"sync"
	"testing"

	"kpatch.dev/kpatch/pkg/fileerr"
	"kpatch.dev/kpatch/pkg/variables"
)

func valuesLayer(t *testing.T, src string) Layer {
	t.Helper()
	l, err := ParseValues("values.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func flags(t *testing.T, sets, setStrings []string) Layer {
	t.Helper()
	l, err := ParseFlags(sets, setStrings)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func ns(annotations ...string) Layer {
	m := map[string]string{}
	for i := 0; i+1 < len(annotations); i += 2 {
		m[AnnotationPrefix+annotations[i]] = annotations[i+1]
	}
	return NamespaceAnnotations("team-a", m)
}

func obj(annotations ...string) Layer {
	m := map[string]string{}
	for i := 0; i+1 < len(annotations); i += 2 {
		m[AnnotationPrefix+annotations[i]] = annotations[i+1]
	}
	return ObjectAnnotations("Deployment team-a/web", m)
}

// defaults are the values of issueSchema with image set and nothing else.
func defaults() map[string]any {
	return map[string]any{
		"image": "nginx", "replicas": int64(2), "tier": "silver", "tlsSecret": "web-tls", "app": "web",
		"db": map[string]any{"host": "db", "port": int64(5432)},
	}
}

func with(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func TestResolve(t *testing.T) {
	s := mustParse(t, issueSchema)
	image := func(t *testing.T) Layer { return valuesLayer(t, "values:\n  image: nginx\n") }
	tests := []struct {
		name     string
		layers   func(t *testing.T) []Layer
		values   map[string]any
		features map[string]any
	}{
		{"defaults", func(t *testing.T) []Layer { return []Layer{image(t)} }, defaults(), map[string]any{"canary": false}},
		{"values file", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values:\n  image: nginx\n  replicas: 3\n  tier: gold\n  app: shop\n  ratio: 1\n  env: [{name: A, value: b}]\nfeatures:\n  canary: yes\n")}
		}, with(defaults(), "replicas", int64(3), "tier", "gold", "app", "shop", "tlsSecret", "shop-tls", "ratio", float64(1), "env", []any{map[string]any{"name": "A", "value": "b"}}), map[string]any{"canary": true}},
		{"an integer may be written 2.0", func(t *testing.T) []Layer { return []Layer{valuesLayer(t, "values: {image: nginx, replicas: 4.0}")} },
			with(defaults(), "replicas", int64(4)), map[string]any{"canary": false}},
		{"--set and --set-string", func(t *testing.T) []Layer {
			return []Layer{image(t), flags(t, []string{"values.replicas=5", "features.canary=true", "values.ratio=0.25"}, []string{"values.tier=gold", "values.replicas=6"})}
		}, with(defaults(), "replicas", int64(6), "tier", "gold", "ratio", 0.25), map[string]any{"canary": true}},
		{"--set-string converts to the type", func(t *testing.T) []Layer {
			return []Layer{image(t), flags(t, nil, []string{"values.replicas=7", "features.canary=true", "values.ratio=.5", "values.env=[a, b]", `values.db={"host": "x"}`})}
		}, with(defaults(), "replicas", int64(7), "ratio", 0.5, "env", []any{"a", "b"}, "db", map[string]any{"host": "x", "port": int64(5432)}), map[string]any{"canary": true}},
		{"namespace annotations", func(t *testing.T) []Layer {
			return []Layer{image(t), ns("tier", "gold", "replicas", "3", "canary", "true", "env", `[{"name": "A"}]`, "unknown", "skipped")}
		}, with(defaults(), "replicas", int64(3), "tier", "gold", "env", []any{map[string]any{"name": "A"}}), map[string]any{"canary": true}},
		{"object annotations set fromObject parameters only", func(t *testing.T) []Layer {
			return []Layer{image(t), obj("tier", "gold", "replicas", "9")}
		}, with(defaults(), "tier", "gold"), map[string]any{"canary": false}},
		{"precedence: default < values.yaml < namespace < object", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx, tier: gold, replicas: 3, app: a}"), ns("tier", "silver", "replicas", "4"), obj("tier", "gold")}
		}, with(defaults(), "tier", "gold", "replicas", int64(4), "app", "a", "tlsSecret", "a-tls"), map[string]any{"canary": false}},
		{"an object merges over its default", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx, db: {host: x}}"), flags(t, []string{"values.db.user=u", "values.db.opts.ssl=true"}, nil)}
		}, with(defaults(), "db", map[string]any{"host": "x", "port": int64(5432), "user": "u", "opts": map[string]any{"ssl": true}}), map[string]any{"canary": false}},
		{"an explicit value wins over a default that uses other parameters", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx, app: shop, tlsSecret: mine}")}
		}, with(defaults(), "app", "shop", "tlsSecret", "mine"), map[string]any{"canary": false}},
	}
	// texts are the texts kept of scalars that print otherwise, which a
	// string field receives as written.
	texts := map[string]map[string]any{
		"values file":                       {"features": map[string]any{"canary": "yes"}},
		"an integer may be written 2.0":     {"values": map[string]any{"replicas": "4.0"}},
		"--set-string converts to the type": {"values": map[string]any{"ratio": ".5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(tt.layers(t)...)
			if err != nil {
				t.Fatal(err)
			}
			want := &variables.Variables{Values: tt.values, Features: tt.features, Texts: texts[tt.name]}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %#v\nwant %#v", got, want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	s := mustParse(t, issueSchema)
	tests := []struct {
		name   string
		layers func(t *testing.T) []Layer
		want   []string
		cause  error
	}{
		{"wrong type", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values:\n  image: nginx\n  replicas: \"3\"\n")}
		},
			[]string{`values.yaml:3:3: parameter "replicas": expected an integer, got the string "3"`}, ErrType},
		{"text where a string is", func(t *testing.T) []Layer { return []Layer{valuesLayer(t, "values:\n  image: 1.10\n")} },
			[]string{`values.yaml:2:3: parameter "image": expected a string, got the number 1.1; quote it to make it text`}, ErrType},
		{"null", func(t *testing.T) []Layer { return []Layer{valuesLayer(t, "values:\n  image:\n")} },
			[]string{`values.yaml:2:3: parameter "image": expected a string, got null`}, ErrType},
		{"below minimum", func(t *testing.T) []Layer { return []Layer{valuesLayer(t, "values:\n  image: nginx\n  replicas: 0\n")} },
			[]string{`values.yaml:3:3: parameter "replicas": 0 is less than the minimum 1`}, ErrRange},
		{"above maximum", func(t *testing.T) []Layer { return []Layer{valuesLayer(t, "values:\n  image: nginx\n  ratio: 1.5\n")} },
			[]string{`values.yaml:3:3: parameter "ratio": 1.5 is more than the maximum 1`}, ErrRange},
		{"not in enum", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values:\n  image: nginx\n  tier: bronze\n")}
		},
			[]string{`values.yaml:3:3: parameter "tier": "bronze" is not one of "gold", "silver"`}, ErrEnum},
		{"not matching", func(t *testing.T) []Layer { return []Layer{valuesLayer(t, "values:\n  image: nginx\n  app: Shop\n")} },
			[]string{`values.yaml:3:3: parameter "app": "Shop" does not match the pattern ^[a-z-]+$`, `parameters.yaml:5:44: parameter "tlsSecret": default "${values.app}-tls" uses app, whose value failed`}, nil},
		{"undeclared", func(t *testing.T) []Layer { return []Layer{valuesLayer(t, "values:\n  image: nginx\n  replcas: 3\n")} },
			[]string{`values.yaml:3:3: parameter "replcas": not declared in the parameter schema`}, ErrUndeclared},
		{"a feature under values", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values:\n  image: nginx\n  canary: true\n")}
		},
			[]string{`values.yaml:3:3: parameter "canary": values.canary is not declared: canary is a boolean parameter, set as features.canary`}, ErrUndeclared},
		{"a value under features", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values:\n  image: nginx\nfeatures:\n  app: true\n")}
		},
			[]string{`values.yaml:4:3: parameter "app": features.app is not declared: app is a string parameter, set as values.app`}, ErrUndeclared},
		{"required missing", func(t *testing.T) []Layer { return nil },
			[]string{`parameters.yaml:2:3: parameter "image": required, and no value is given (set values.image)`}, ErrRequired},
		{"--set of the wrong type", func(t *testing.T) []Layer {
			return []Layer{flags(t, []string{"values.image=nginx", "values.replicas=abc"}, nil)}
		}, []string{`--set values.replicas: parameter "replicas": expected an integer, got the string "abc"`}, ErrType},
		{"--set-string that is no integer", func(t *testing.T) []Layer {
			return []Layer{flags(t, []string{"values.image=nginx"}, []string{"values.replicas=3.5"})}
		}, []string{`--set-string values.replicas: parameter "replicas": expected an integer, got the text "3.5"`}, ErrType},
		{"--set-string of a number that is not one", func(t *testing.T) []Layer {
			return []Layer{flags(t, []string{"values.image=nginx"}, []string{"values.ratio=NaN"})}
		}, []string{`--set-string values.ratio: parameter "ratio": expected a number, got the text "NaN"`}, ErrType},
		{"--set-string of a boolean", func(t *testing.T) []Layer {
			return []Layer{flags(t, []string{"values.image=nginx"}, []string{"features.canary=maybe"})}
		}, []string{`--set-string features.canary: parameter "canary": expected a boolean, got the text "maybe"`}, ErrType},
		{"a key of a string", func(t *testing.T) []Layer {
			return []Layer{flags(t, []string{"values.image.x=1"}, nil)}
		}, []string{`--set values.image.x: parameter "image": image is a string; only an object has keys to set`}, ErrType},
		{"namespace annotation of the wrong type", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx}"), ns("replicas", "abc")}
		}, []string{`namespace team-a annotation values.kpatch.dev/replicas: parameter "replicas": expected an integer, got the text "abc"`}, ErrType},
		{"namespace annotation out of range", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx}"), ns("replicas", "99")}
		}, []string{`namespace team-a annotation values.kpatch.dev/replicas: parameter "replicas": 99 is more than the maximum 50`}, ErrRange},
		{"namespace annotation of an array that is no YAML", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx}"), ns("env", "[a")}
		}, []string{`namespace team-a annotation values.kpatch.dev/env: parameter "env": expected an array as YAML or JSON: did not find expected ',' or ']'`}, ErrType},
		{"namespace annotation of an object that is a list", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx}"), ns("db", "[a]")}
		}, []string{`namespace team-a annotation values.kpatch.dev/db: parameter "db": expected an object, got a list`}, ErrType},
		{"object annotation not in enum", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx}"), obj("tier", "bronze")}
		}, []string{`Deployment team-a/web annotation values.kpatch.dev/tier: parameter "tier": "bronze" is not one of "gold", "silver"`}, ErrEnum},
		{"a default whose parameter failed", func(t *testing.T) []Layer {
			return []Layer{valuesLayer(t, "values: {image: nginx}"), ns("app", "Shop")}
		}, []string{
			`namespace team-a annotation values.kpatch.dev/app: parameter "app": "Shop" does not match the pattern ^[a-z-]+$`,
			`parameters.yaml:5:44: parameter "tlsSecret": default "${values.app}-tls" uses app, whose value failed`,
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Resolve(tt.layers(t)...)
			checkErrors(t, err, tt.want, tt.cause)
		})
	}
}

// TestResolvePartial checks that a failed parameter leaves the others
// resolved, and that the errors name what failed.
func TestResolvePartial(t *testing.T) {
	s := mustParse(t, issueSchema)
	got, err := s.Resolve(valuesLayer(t, "values: {image: nginx}"), ns("app", "Shop", "replicas", "x", "tier", "gold"))
	if err == nil {
		t.Fatal("no error")
	}
	if names := ParamErrors(err); !reflect.DeepEqual(names, []string{"app", "replicas", "tlsSecret"}) {
		t.Errorf("ParamErrors: %v", names)
	}
	want := defaults()
	delete(want, "app")
	delete(want, "replicas")
	delete(want, "tlsSecret")
	want["tier"] = "gold"
	if !reflect.DeepEqual(got.Values, want) {
		t.Errorf("got  %#v\nwant %#v", got.Values, want)
	}
}

// TestValuesPerNamespace assigns a ConfigMap's values once and resolves
// each namespace's annotations on top, as the webhook does.
func TestValuesPerNamespace(t *testing.T) {
	s := mustParse(t, issueSchema)
	base, err := s.Assign(valuesLayer(t, "values: {image: nginx, tier: gold}"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := base.Resolve(NamespaceAnnotations("a", map[string]string{AnnotationPrefix + "tier": "silver"}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := base.Resolve(NamespaceAnnotations("b", nil))
	if err != nil {
		t.Fatal(err)
	}
	if a.Values["tier"] != "silver" || b.Values["tier"] != "gold" {
		t.Errorf("a: %v, b: %v", a.Values["tier"], b.Values["tier"])
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tier := []string{"gold", "silver"}[i%2]
			v, err := base.Resolve(NamespaceAnnotations("n", map[string]string{AnnotationPrefix + "tier": tier}))
			if err != nil || v.Values["tier"] != tier {
				t.Errorf("%v %v", v, err)
			}
		}()
	}
	wg.Wait()
}

// TestResolveCopies checks that a result is the caller's: changing it
// changes neither the schema nor the next result.
func TestResolveCopies(t *testing.T) {
	s := mustParse(t, issueSchema)
	l := valuesLayer(t, "values: {image: nginx, env: [a]}")
	first, _ := s.Resolve(l)
	first.Values["db"].(map[string]any)["host"] = "changed"
	first.Values["env"].([]any)[0] = "changed"
	second, _ := s.Resolve(l)
	if second.Values["db"].(map[string]any)["host"] != "db" || second.Values["env"].([]any)[0] != "a" {
		t.Errorf("a result shares its maps: %v", second.Values)
	}
}

func TestParseValuesErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		cause     error
	}{
		{"not YAML", "values: [\n", []string{`values.yaml:1:1: invalid YAML: did not find expected node content`}, ErrSyntax},
		{"not a map", "- a\n", []string{`values.yaml:1:1: a values file is a map with the maps values and features`}, ErrSyntax},
		{"unknown key", "value: {a: 1}\n", []string{`values.yaml:1:1: unknown key "value"; expected the maps values and features`}, ErrSyntax},
		{"values not a map", "values: [a]\n", []string{`values.yaml:1:9: values is a map of names to values`}, ErrSyntax},
		{"scope twice", "values: {a: 1}\nvalues: {b: 1}\n", []string{`values.yaml:2:1: key values is given twice`}, ErrDuplicate},
		{"name twice", "values:\n  a: 1\n  a: 2\n", []string{`values.yaml:3:3: parameter "a": given twice`}, ErrDuplicate},
		{"infinite", "values:\n  a: -.inf\n", []string{`values.yaml:2:6: parameter "a": -.inf cannot be held in a Kubernetes object`}, ErrType},
		{"key twice in a map", "values:\n  a: {b: 1, b: 2}\n", []string{`values.yaml:2:13: parameter "a": key "b" is given twice`}, ErrDuplicate},
		{"list key", "values:\n  a: {[b]: 1}\n", []string{`values.yaml:2:7: parameter "a": a map key must be a scalar`}, ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseValues("values.yaml", []byte(tt.src))
			checkErrors(t, err, tt.want, tt.cause)
		})
	}
	if l, err := ParseValues("values.yaml", []byte("features:\nvalues:\n")); err != nil || len(l.Assignments) != 0 {
		t.Errorf("empty maps: %v %v", l, err)
	}
}

func TestParseFlags(t *testing.T) {
	l, err := ParseFlags([]string{"values.a.b=1.10", "features.x=true", "values.n=3"}, []string{"values.s=1.10"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Assignment{
		{Scope: "values", Path: []string{"a", "b"}, Value: 1.1, Texts: "1.10", Source: Source{Name: "--set values.a.b"}},
		{Scope: "features", Path: []string{"x"}, Value: true, Source: Source{Name: "--set features.x"}},
		{Scope: "values", Path: []string{"n"}, Value: int64(3), Source: Source{Name: "--set values.n"}},
		{Scope: "values", Path: []string{"s"}, Value: "1.10", Text: true, Source: Source{Name: "--set-string values.s"}},
	}
	if !reflect.DeepEqual(l.Assignments, want) {
		t.Errorf("got  %#v\nwant %#v", l.Assignments, want)
	}
	_, err = ParseFlags([]string{"values.a=[1]", "other.a=1", "features.f=3"}, []string{"values.a", "values.=1"})
	checkErrorsUnpositioned(t, err, []string{
		`--set: "values.a=[1]": values are scalars; a list or map needs the YAML patch format`,
		`--set: "other.a=1": unknown variable ${other.a}; expected ${values.NAME} or ${features.NAME}`,
		`--set: "features.f=3": features are booleans (true or false)`,
		`--set-string: "values.a": expected values.NAME=VALUE or features.NAME=VALUE`,
		`--set-string: "values.=1": invalid variable name "" in ${values.}`,
	})
}

func checkErrorsUnpositioned(t *testing.T, err error, want []string) {
	t.Helper()
	var list fileerr.List
	if !errors.As(err, &list) || len(list) != len(want) {
		t.Fatalf("errors %v, want %d", err, len(want))
	}
	for i, e := range list {
		if e.Error() != want[i] || !errors.Is(e, ErrSyntax) {
			t.Errorf("error %d:\n got %s\nwant %s", i, e, want[i])
		}
	}
}

func TestAnnotationLayers(t *testing.T) {
	l := NamespaceAnnotations("team-a", map[string]string{
		"values.kpatch.dev/tier": "gold", "values.kpatch.dev/db.host": "x", "other/tier": "no", "values.kpatch.dev/": "no",
	})
	want := []Assignment{
		{Path: []string{"db", "host"}, Value: "x", Text: true, Source: Source{Name: "namespace team-a annotation values.kpatch.dev/db.host"}},
		{Path: []string{"tier"}, Value: "gold", Text: true, Source: Source{Name: "namespace team-a annotation values.kpatch.dev/tier"}},
	}
	if !reflect.DeepEqual(l.Assignments, want) || !l.SkipUndeclared || l.FromObjectOnly {
		t.Errorf("got %#v", l)
	}
	o := ObjectAnnotations("Pod a/b", map[string]string{"values.kpatch.dev/tier": "gold"})
	if !o.SkipUndeclared || !o.FromObjectOnly || o.Assignments[0].Source.String() != "Pod a/b annotation values.kpatch.dev/tier" {
		t.Errorf("got %#v", o)
	}
}

// TestResolveKeepsTexts: every way a value arrives keeps the text it was
// written as, for a string field to receive (variables.Variables.Texts).
func TestResolveKeepsTexts(t *testing.T) {
	s := mustParse(t, `parameters:
- {name: ver, type: number}
- {name: tag, type: string, default: "v${values.ver}"}
- {name: same, type: number, default: "${values.ver}"}
- {name: limit, type: number, default: 2.50}
- {name: db, type: object, default: {port: 5432.0, tls: on}}
- {name: count, type: integer, fromObject: true}
- {name: canary, type: boolean}
`)
	check := func(t *testing.T, vars *variables.Variables, scope string, path []string, want string) {
		t.Helper()
		m := vars.Values
		if scope == variables.ScopeFeatures {
			m = vars.Features
		}
		val, _ := variables.Lookup(m, path)
		if got, _ := vars.TextOf(scope, path, val); got != want {
			t.Errorf("%s.%v = %#v written %q, want %q", scope, path, val, got, want)
		}
	}
	t.Run("values file and defaults", func(t *testing.T) {
		vars, err := s.Resolve(valuesLayer(t, "values: {ver: 1.0, db: {user: 010}}\nfeatures: {canary: yes}\n"))
		if err != nil {
			t.Fatal(err)
		}
		check(t, vars, "values", []string{"ver"}, "1.0")
		check(t, vars, "values", []string{"same"}, "1.0") // a default that is one variable takes its text
		check(t, vars, "values", []string{"limit"}, "2.50")
		check(t, vars, "values", []string{"db", "port"}, "5432.0") // the default under the values file's keys
		check(t, vars, "values", []string{"db", "user"}, "010")
		check(t, vars, "features", []string{"canary"}, "yes")
		if vars.Values["tag"] != "v1.0" { // a template splices the text
			t.Errorf("tag %#v, want v1.0", vars.Values["tag"])
		}
	})
	t.Run("flags and annotations", func(t *testing.T) {
		flagLayer, err := ParseFlags([]string{"values.db.port=0x10"}, []string{"values.ver=3.00"})
		if err != nil {
			t.Fatal(err)
		}
		vars, err := s.Resolve(flagLayer,
			NamespaceAnnotations("team", map[string]string{AnnotationPrefix + "limit": "7.0", AnnotationPrefix + "db": "{tls: off}"}),
			ObjectAnnotations("Deployment team/web", map[string]string{AnnotationPrefix + "count": "04"}))
		if err != nil {
			t.Fatal(err)
		}
		check(t, vars, "values", []string{"ver"}, "3.00")
		check(t, vars, "values", []string{"db", "port"}, "0x10")
		check(t, vars, "values", []string{"db", "tls"}, "off")
		check(t, vars, "values", []string{"limit"}, "7.0")
		check(t, vars, "values", []string{"count"}, "04")
		if vars.Values["tag"] != "v3.00" {
			t.Errorf("tag %#v, want v3.00", vars.Values["tag"])
		}
	})
	t.Run("a later value without the text", func(t *testing.T) {
		vars, err := s.Resolve(valuesLayer(t, "values: {ver: 1.0}\n"), NamespaceAnnotations("team", map[string]string{AnnotationPrefix + "ver": "2"}))
		if err != nil {
			t.Fatal(err)
		}
		check(t, vars, "values", []string{"ver"}, "") // 2 prints as written
		if vars.Values["tag"] != "v2" {
			t.Errorf("tag %#v, want v2", vars.Values["tag"])
		}
	})
	t.Run("without a schema", func(t *testing.T) {
		var none *Schema
		vars, err := none.Resolve(valuesLayer(t, "values: {ver: 1.0, db: {port: 010}}\n"), flags(t, []string{"values.db.host=1.10"}, nil))
		if err != nil {
			t.Fatal(err)
		}
		check(t, vars, "values", []string{"ver"}, "1.0")
		check(t, vars, "values", []string{"db", "port"}, "010")
		check(t, vars, "values", []string{"db", "host"}, "1.10")
	})
}

// TestResolveDropsStaleTexts: a value set over another keeps no text of
// the value it replaced.
func TestResolveDropsStaleTexts(t *testing.T) {
	s := mustParse(t, "parameters:\n- {name: db, type: object, default: {port: 5432.0, tls: on}}\n- {name: ver, type: number}\n")
	text := func(vars *variables.Variables, path ...string) string {
		val, _ := variables.Lookup(vars.Values, path)
		got, _ := vars.TextOf(variables.ScopeValues, path, val)
		return got
	}
	vars, err := s.Resolve(valuesLayer(t, "values: {db: {port: 5432}, ver: 1.0}\n"), flags(t, []string{"values.ver=1"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(vars, "db", "port"); got != "" {
		t.Errorf("db.port: text %q of the default kept over the values file's 5432", got)
	}
	if got := text(vars, "db", "tls"); got != "on" {
		t.Errorf("db.tls: text %q, want the default's on", got)
	}
	if got := text(vars, "ver"); got != "" {
		t.Errorf("ver: text %q kept over --set values.ver=1", got)
	}
	vars, err = s.Resolve(NamespaceAnnotations("team", map[string]string{AnnotationPrefix + "db": "{tls: true}"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(vars, "db", "tls"); got != "" {
		t.Errorf("db.tls: text %q of the default kept over the annotation's true", got)
	}
	var none *Schema
	vars, err = none.Resolve(valuesLayer(t, "values: {ver: 1.0, db: {port: 010}}\n"), valuesLayer(t, "values: {ver: 1, db: {host: x}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(vars, "ver"); got != "" {
		t.Errorf("untyped ver: text %q kept over 1", got)
	}
	if got := text(vars, "db", "port"); got != "010" {
		t.Errorf("untyped db.port: text %q, want 010 (the later map does not set it)", got)
	}
}
