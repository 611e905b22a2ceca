package admission

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain gives controller-runtime's root logger a sink that discards,
// as the webhook's main gives it a real one: without it, a test or
// benchmark running past 30 s prints controller-runtime's "SetLogger was
// never called" warning and a stack into its output. Tests that check
// log lines pass their own logger.
func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
