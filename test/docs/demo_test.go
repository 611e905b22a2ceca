package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// demoInputs returns the registry ConfigMaps and the manifests of one
// command line: the values of registryFlag and of -f.
func demoInputs(args []string, registryFlag string) (registry, manifests []string) {
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case registryFlag:
			registry = append(registry, args[i+1])
		case "-f":
			manifests = append(manifests, args[i+1])
		}
	}
	return registry, manifests
}

// TestDemosApplyTheSameFiles: make demo (the webhook on a real API server)
// and make demo-cli (kpatch apply) are given the same registry ConfigMaps
// and the same manifests, as README.md says, read from the recipes make
// would run (make -n runs nothing).
func TestDemosApplyTheSameFiles(t *testing.T) {
	out, err := exec.Command("make", "-n", "-s", "-C", root, "demo", "demo-cli").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n demo demo-cli: %v\n%s", err, out)
	}
	var demo, cli []string
	for _, line := range strings.Split(string(out), "\n") {
		args := strings.Fields(line)
		switch i := slices.Index(args, "./test/demo"); {
		case i > 0 && args[i-1] == "run":
			demo = args[i+1:]
		case len(args) > 1 && strings.HasSuffix(args[0], "/kpatch") && args[1] == "apply":
			cli = args[2:]
		}
	}
	if demo == nil || cli == nil {
		t.Fatalf("make -n demo demo-cli runs no demo or no kpatch apply:\n%s", out)
	}
	demoRegistry, demoManifests := demoInputs(demo, "-registry")
	cliRegistry, cliManifests := demoInputs(cli, "--registry")
	if len(demoRegistry) == 0 || len(demoManifests) != 1 {
		t.Fatalf("make demo: registry %q, manifests %q", demoRegistry, demoManifests)
	}
	if !slices.Equal(demoRegistry, cliRegistry) || !slices.Equal(demoManifests, cliManifests) {
		t.Errorf("make demo applies %q to %q, make demo-cli %q to %q", demoRegistry, demoManifests, cliRegistry, cliManifests)
	}
	samples, err := filepath.Glob(filepath.Join(root, "config/samples/registry-*.yaml"))
	if err != nil || len(samples) != len(demoRegistry) {
		t.Errorf("the demos load %q, config/samples holds %q", demoRegistry, samples)
	}
	for _, f := range append(demoRegistry, demoManifests...) {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Error(err)
		}
	}
}
