// Package deps holds the commands to the packages they may link: the CLI
// builds its registry offline (pkg/registry) and links none of the
// webhook's API machinery.
package deps

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestCLILinksNoWebhookStack: kpatch links neither controller-runtime nor
// client-go's REST client, informers or their cache.
func TestCLILinksNoWebhookStack(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "kpatch.dev/kpatch/cmd/kpatch").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 || !slices.Contains(deps, "kpatch.dev/kpatch/pkg/registry") {
		t.Fatalf("go list -deps names %d packages, without pkg/registry: not the CLI's dependencies", len(deps))
	}
	forbidden := []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/rest", "k8s.io/client-go/informers", "k8s.io/client-go/tools/cache"}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("cmd/kpatch links %s", d)
			}
		}
	}
}
