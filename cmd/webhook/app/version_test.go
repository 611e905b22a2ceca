package app

import (
	"bytes"
	"testing"

	"kpatch.dev/kpatch/internal/buildinfo"
)

func TestVersionFlag(t *testing.T) {
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	// --port 0 would fail Validate: --version must print and exit first.
	cmd.SetArgs([]string{"--version", "--port", "0"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("--version: %v", err)
	}
	if want := "webhook " + buildinfo.Current().String() + "\n"; out.String() != want {
		t.Errorf("--version printed %q, want %q", out.String(), want)
	}
}
