package jsonvalue

import (
	"math"
	"testing"
)

func TestTruthy(t *testing.T) {
	tests := []struct {
		v    any
		want bool
	}{
		{true, true}, {false, false},
		{"yes", true}, {"true", true}, {"1", true}, {"enabled", true}, {"off", true}, {"anything", true},
		{"", false}, {"  ", false}, {"false", false}, {"False", false}, {" FALSE ", false},
		{"no", false}, {"No", false}, {"0", false}, {"disabled", false}, {"Disabled", false},
		{int64(1), true}, {int64(-1), true}, {int64(0), false}, {0, false}, {7, true}, {int32(0), false}, {uint64(2), true},
		{0.5, true}, {0.0, false}, {math.NaN(), false}, {float32(0), false}, {float32(-1), true},
		{nil, false}, {map[string]any{"a": 1}, false}, {[]any{1}, false},
	}
	for _, tt := range tests {
		if got := Truthy(tt.v); got != tt.want {
			t.Errorf("Truthy(%#v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
