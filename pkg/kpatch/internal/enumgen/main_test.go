package main

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTableIsCurrent holds the committed table to what the generator
// writes from the k8s.io/api the module requires: a bump of k8s.io/api
// that adds, removes or changes an enum value fails here until the table
// is generated again.
func TestTableIsCurrent(t *testing.T) {
	dir, version, err := moduleDir(apiModule)
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(dir, version, "kpatch")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../enumvalues.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("pkg/kpatch/enumvalues.go is not what enumgen writes from %s %s; run go generate ./pkg/kpatch\n%s", apiModule, version, want)
	}
	for key, values := range map[string][]string{
		"k8s.io/api/core/v1.PullPolicy": {"Always", "IfNotPresent", "Never"},
		// two of them converted from core/v1's constants
		"k8s.io/api/discovery/v1.AddressType": {"FQDN", "IPv4", "IPv6"},
		// aliased in v1beta1, declared in v1
		"k8s.io/api/admissionregistration/v1.OperationType": {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"},
	} {
		if got := tableValues(t, want, key); !slices.Equal(got, values) {
			t.Errorf("%s: got %q, want %q", key, got, values)
		}
	}
}

// tableValues are the values of key in the table's source, sorted.
func tableValues(t *testing.T, src []byte, key string) []string {
	t.Helper()
	for line := range strings.Lines(string(src)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), strconv.Quote(key)+":")
		if !ok {
			continue
		}
		var values []string
		rest = strings.TrimSuffix(strings.Trim(strings.TrimSpace(rest), "{},"), "}")
		for v := range strings.SplitSeq(rest, ", ") {
			text, err := strconv.Unquote(v)
			if err != nil {
				t.Fatalf("%s: %v in %q", key, err, line)
			}
			values = append(values, text)
		}
		slices.Sort(values)
		return values
	}
	return nil
}

func TestGenerate(t *testing.T) {
	src, err := generate("testdata/api", "v0.0.0", "fixture")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"from k8s.io/api v0.0.0",
		"package fixture",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the table lacks %s:\n%s", want, src)
		}
	}
	// typed, converted, from another package's constant, from an untyped
	// constant, once each
	if got, want := tableValues(t, src, "k8s.io/api/a.Mode"), []string{"Four", "One", "Three", "Two"}; !slices.Equal(got, want) {
		t.Errorf("a.Mode: got %q, want %q", got, want)
	}
	// a constant declared with an alias in another package
	if got, want := tableValues(t, src, "k8s.io/api/b.Kind"), []string{"A", "Extra"}; !slices.Equal(got, want) {
		t.Errorf("b.Kind: got %q, want %q", got, want)
	}
	for _, absent := range []string{"Plain", "NotEnum"} {
		if strings.Contains(string(src), absent) {
			t.Errorf("the table holds %s, which is not marked +enum:\n%s", absent, src)
		}
	}
}

func TestGenerateRefusesUnknownValue(t *testing.T) {
	_, err := generate("testdata/bad", "v0.0.0", "fixture")
	if err == nil || !strings.Contains(err.Error(), "k8s.io/api/c.ModeJoined") {
		t.Fatalf("got %v, want an error naming k8s.io/api/c.ModeJoined", err)
	}
}
