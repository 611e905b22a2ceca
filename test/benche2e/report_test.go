package main

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	got := summarize(lat)
	want := summary{p50: 50 * time.Millisecond, p90: 90 * time.Millisecond, p99: 99 * time.Millisecond, mean: 50500 * time.Microsecond}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if lat[0] != 100*time.Millisecond {
		t.Error("summarize sorted its input")
	}
}
