package condition

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestExpressionResults compiles expressions of every type and evaluates
// them to decoded JSON: lists and maps copied out, integers as int64.
func TestExpressionResults(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"name": "db"},
		"spec": map[string]any{"volumes": []any{
			map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": "d"}},
			map[string]any{"name": "config", "configMap": map[string]any{"name": "c"}},
			map[string]any{"name": "wal", "persistentVolumeClaim": map[string]any{"claimName": "w"}},
		}},
	}
	for _, c := range []struct {
		expr   string
		result Result
		want   any
	}{
		{"object.spec.volumes.filter(v, has(v.persistentVolumeClaim)).map(v, v.name).join(',')", ResultString, "data,wal"},
		{"object.spec.volumes.map(v, v.name)", ResultList, []any{"data", "config", "wal"}},
		{"object.spec.volumes[0]", ResultDyn, map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": "d"}}},
		{"{'app': string(object.metadata.name)}", ResultMap, map[string]any{"app": "db"}},
		{"size(object.spec.volumes)", ResultInt, int64(3)},
		{"1.5 * 2.0", ResultDouble, 3.0},
		{"has(object.spec.replicas)", ResultBool, false},
		{"null", ResultNull, nil},
		{"params.tier + '-' + item.name", ResultString, "gold-a"},
	} {
		e, err := CompileExpression(c.expr, Options{Item: true})
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if e.Result() != c.result {
			t.Errorf("%s: result %v, want %v", c.expr, e.Result(), c.result)
		}
		vars := NewVars(&Input{Object: obj, Params: map[string]any{"tier": "gold"}, Item: map[string]any{"name": "a"}})
		budget := NewBudget(0)
		got, err := e.Eval(context.Background(), vars, budget)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.expr, got, c.want)
		}
		if budget.Spent() == 0 && strings.Contains(c.expr, "map(") {
			t.Errorf("%s: charged nothing to the budget", c.expr)
		}
	}
}

// TestExpressionLimit holds an expression's estimate to ExpressionLimit:
// joining the names of a Pod's claimed volumes compiles (the text a join
// makes of the fields of a list's items is at most the request), a loop
// inside a loop does not, and the same join as a condition stays over
// the per-call limit.
func TestExpressionLimit(t *testing.T) {
	join := "object.spec.volumes.filter(v, has(v.persistentVolumeClaim)).map(v, v.name).join(',')"
	if _, err := CompileExpression(join, Options{}); err != nil {
		t.Errorf("%s: %v", join, err)
	}
	nested := "object.spec.containers.map(c, object.spec.containers.map(d, c.name + d.name)).size()"
	_, err := CompileExpression(nested, Options{})
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "exceeds the limit of an expression 10000000") {
		t.Errorf("%s: %v, want an estimate over the limit", nested, err)
	}
	if _, err := Compile(join+" != ''", Options{}); err == nil {
		t.Errorf("the join as a condition compiles within the per-call limit")
	}
}

// TestExpressionNotJSON refuses a value no object holds.
func TestExpressionNotJSON(t *testing.T) {
	for _, expr := range []string{"{1: 'a'}", "1.0 / 0.0", "type(1)"} {
		e, err := CompileExpression(expr, Options{})
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if _, err := e.Eval(context.Background(), NewVars(&Input{}), nil); !errors.Is(err, ErrEvaluation) {
			t.Errorf("%s: %v, want ErrEvaluation", expr, err)
		}
	}
}
