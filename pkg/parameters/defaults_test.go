package parameters

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultsUseParameters(t *testing.T) {
	s := mustParse(t, `parameters:
- {name: url, type: string, default: "http://${values.db.host}:${values.db.port}/${values.path}"}
- {name: port, type: integer, default: "${values.db.port}"}
- {name: ratio, type: number, default: "${values.base}"}
- {name: base, type: integer, default: 3}
- {name: db, type: object, default: {host: db, port: 5432}}
- {name: path, type: string, default: "x$${y}"}
- {name: env, type: array, default: [a]}
- {name: env2, type: array, default: "${values.env}"}
- {name: on, type: boolean, default: true}
- {name: label, type: string, default: "on=${features.on} ratio=${values.half}"}
- {name: half, type: number, default: 0.5}
- {name: mirror, type: boolean, default: "${features.on}"}
`)
	got, err := s.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"url": "http://db:5432/x${y}", "port": int64(5432), "ratio": float64(3), "base": int64(3),
		"db": map[string]any{"host": "db", "port": int64(5432)}, "path": "x${y}", "env": []any{"a"}, "env2": []any{"a"},
		"label": "on=true ratio=0.5", "half": 0.5,
	}
	if !reflect.DeepEqual(got.Values, want) || !reflect.DeepEqual(got.Features, map[string]any{"on": true, "mirror": true}) {
		t.Errorf("got %#v", got)
	}
	if d, _ := s.Parameters()[5].Default(); d != "x$${y}" {
		t.Errorf("an escaped default is returned as written: %#v", d)
	}
	got, err = s.Resolve(flagsNoT([]string{"values.db.host=pg", "values.base=4", "features.on=false"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.Values["url"] != "http://pg:5432/x${y}" || got.Values["ratio"] != float64(4) || got.Features["mirror"] != false {
		t.Errorf("defaults do not follow their parameters: %#v", got)
	}
}

func flagsNoT(sets []string) Layer {
	l, err := ParseFlags(sets, nil)
	if err != nil {
		panic(err)
	}
	return l
}

func TestDefaultsErrors(t *testing.T) {
	s := mustParse(t, `parameters:
- {name: host, type: string, pattern: '^[a-z.]+$', default: "${values.n}.example"}
- {name: n, type: integer}
- {name: port, type: integer, maximum: 10, default: "${values.db.port}"}
- {name: user, type: string, default: "${values.db.user}"}
- {name: db, type: object, default: {port: 5432}}
- {name: text, type: string, default: "x${values.db.opts}"}
`)
	_, err := s.Resolve(flagsNoT([]string{"values.db.opts.a=1"}))
	checkErrors(t, err, []string{
		`parameters.yaml:2:61: parameter "host": default "${values.n}.example" uses n, which has no value`,
		`parameters.yaml:4:53: parameter "port": default "${values.db.port}": 5432 is more than the maximum 10`,
		`parameters.yaml:5:39: parameter "user": default "${values.db.user}" uses ${values.db.user}, which has no value`,
		`parameters.yaml:7:39: parameter "text": default "x${values.db.opts}": ${values.db.opts} is a map, which cannot be spliced into text`,
	}, nil)
	_, err = s.Resolve(flagsNoT([]string{"values.n=1", "values.db.port=5", "values.db.user=u", "values.db.opts=o"}))
	checkErrors(t, err, []string{
		`parameters.yaml:2:61: parameter "host": default "${values.n}.example": "1.example" does not match the pattern ^[a-z.]+$`,
	}, ErrPattern)
}

// TestDefaultsIndependentOfOrder declares random acyclic defaults in
// random orders: every order resolves to the same values.
func TestDefaultsIndependentOfOrder(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		decls := randomDAG(r, 2+r.IntN(30))
		var first any
		for range 5 {
			r.Shuffle(len(decls), func(i, j int) { decls[i], decls[j] = decls[j], decls[i] })
			s := mustParse(t, "parameters:\n"+strings.Join(decls, ""))
			got, err := s.Resolve()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if first == nil {
				first = got
			} else if !reflect.DeepEqual(got, first) {
				t.Fatalf("seed %d: order changes the result:\n%v\n%v", seed, got, first)
			}
		}
	}
}

// randomDAG declares n parameters; each default uses up to three
// parameters declared before it in the generation order, as text or as
// one whole variable.
func randomDAG(r *rand.Rand, n int) []string {
	decls := make([]string, n)
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		if i == 0 || r.IntN(4) == 0 {
			decls[i] = fmt.Sprintf("- {name: %s, type: string, default: v%d}\n", name, r.IntN(100))
			continue
		}
		if r.IntN(3) == 0 {
			decls[i] = fmt.Sprintf("- {name: %s, type: string, default: '${values.p%d}'}\n", name, r.IntN(i))
			continue
		}
		var b strings.Builder
		for range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "-${values.p%d}", r.IntN(i))
		}
		decls[i] = fmt.Sprintf("- {name: %s, type: string, default: '%s'}\n", name, b.String())
	}
	return decls
}
