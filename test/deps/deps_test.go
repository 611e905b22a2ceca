// Package deps holds the commands to the packages they may link: the CLI
// builds its registry offline (pkg/registry) and links none of the
// webhook's API machinery. Its one command that reads a cluster, kpatch
// status (internal/status), links client-go's REST client, its dynamic
// and discovery clients and clientcmd, for the user's kubeconfig: no other
// package of the CLI imports them, so every other command stays offline.
package deps

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// clusterClients are the client-go packages kpatch status reads the
// cluster with.
var clusterClients = []string{"k8s.io/client-go/rest", "k8s.io/client-go/dynamic", "k8s.io/client-go/discovery", "k8s.io/client-go/tools/clientcmd"}

// statusPackage is the one package of the CLI that imports them.
const statusPackage = "kpatch.dev/kpatch/internal/status"

// TestCLILinksNoWebhookStack: kpatch links neither controller-runtime nor
// client-go's informers or their cache; of the module's packages, only
// internal/status imports the clients that read a cluster.
func TestCLILinksNoWebhookStack(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "kpatch.dev/kpatch/cmd/kpatch").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		imports[fields[0]] = fields[1:]
	}
	if len(imports) < 50 || imports["kpatch.dev/kpatch/pkg/registry"] == nil {
		t.Fatalf("go list -deps names %d packages, without pkg/registry: not the CLI's dependencies", len(imports))
	}
	forbidden := []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/informers", "k8s.io/client-go/tools/cache"}
	for d := range imports {
		if slices.ContainsFunc(forbidden, func(f string) bool { return within(d, f) }) {
			t.Errorf("cmd/kpatch links %s", d)
		}
	}
	if !slices.Contains(imports[statusPackage], "k8s.io/client-go/dynamic") {
		t.Errorf("%s does not import k8s.io/client-go/dynamic: not the package that reads the cluster", statusPackage)
	}
	for pkg, imps := range imports {
		if !strings.HasPrefix(pkg, "kpatch.dev/kpatch/") || pkg == statusPackage {
			continue
		}
		for _, imp := range imps {
			if slices.ContainsFunc(clusterClients, func(c string) bool { return within(imp, c) }) {
				t.Errorf("%s imports %s: only %s reads a cluster", pkg, imp, statusPackage)
			}
		}
	}
}

// within reports whether package pkg is root or under it.
func within(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
