package e2e

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kpatch.dev/kpatch/test/cluster"
)

// numericUser is a numeric user, with an optional numeric group.
var numericUser = regexp.MustCompile(`^([0-9]+)(:[0-9]+)?$`)

// TestWebhookIsTheImagesBinary: with KPATCH_WEBHOOK_IMAGE (`make e2e` builds
// the image and sets it), the webhook this suite runs against the API
// server is the entrypoint of the image archive, byte for byte; the image
// runs it as a numeric user that is not root, carries the license texts,
// and its labels name the source, the version and the revision that the
// binary itself reports.
func TestWebhookIsTheImagesBinary(t *testing.T) {
	archive := os.Getenv(cluster.ImageEnv)
	if archive == "" {
		t.Skipf("%s is not set: the suite runs a webhook built from source (make e2e sets it to the image archive)", cluster.ImageEnv)
	}
	img, err := cluster.ReadImage(archive)
	if err != nil {
		t.Fatal(err)
	}
	cfg := img.Config.Config
	if m := numericUser.FindStringSubmatch(cfg.User); m == nil {
		t.Errorf("the image runs as %q, not a numeric user", cfg.User)
	} else if uid, _ := strconv.Atoi(m[1]); uid == 0 {
		t.Errorf("the image runs as root (%q)", cfg.User)
	}
	if !slices.Equal(cfg.Entrypoint, []string{"/webhook"}) || len(cfg.Cmd) != 0 {
		t.Errorf("entrypoint %q, cmd %q; want [/webhook] and none", cfg.Entrypoint, cfg.Cmd)
	}
	labels := cfg.Labels
	for _, k := range []string{"source", "version", "revision", "licenses", "title", "description"} {
		if labels["org.opencontainers.image."+k] == "" {
			t.Errorf("no label org.opencontainers.image.%s: %v", k, labels)
		}
	}
	if l := labels["org.opencontainers.image.licenses"]; l != "Apache-2.0" {
		t.Errorf("licenses label %q", l)
	}
	entry, ok := img.Files["/webhook"]
	if !ok {
		t.Fatalf("no /webhook in the image; its files: %v", img.Files)
	}
	if entry.UID != 0 || entry.Mode&0o022 != 0 {
		t.Errorf("/webhook is owned by %d with mode %v: the image's user could rewrite it", entry.UID, entry.Mode)
	}
	running, err := os.ReadFile(webhookBin)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(running, entry.Data) {
		t.Errorf("the suite's webhook %s is not the image's /webhook", webhookBin)
	}
	for file, want := range map[string]string{"/licenses/LICENSE": "Apache License", "/licenses/THIRD_PARTY_NOTICES": "k8s.io/client-go"} {
		if f, ok := img.Files[file]; !ok || !strings.Contains(string(f.Data), want) {
			t.Errorf("%s is missing or lacks %q", file, want)
		}
	}
	out, err := exec.Command(webhookBin, "--version").Output()
	if err != nil {
		t.Fatalf("webhook --version: %v", err)
	}
	if v, rev := labels["org.opencontainers.image.version"], labels["org.opencontainers.image.revision"]; !strings.HasPrefix(string(out), "webhook "+v+" (commit "+rev+",") {
		t.Errorf("webhook --version: %q; the labels say version %s, revision %s", out, v, rev)
	}
	// And that binary is the one serving: ready, and what the other tests
	// of the suite exercise.
	resp, err := http.Get(webhook.ReadyURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %s", resp.Status)
	}
}
