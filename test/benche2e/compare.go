package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"kpatch.dev/kpatch/test/cluster"
)

// build is another build of the webhook binary measured beside the
// webhook (-compare NAME=BINARY), in a namespace of its own (bench-NAME)
// that its own configuration selects, with the same registry file.
type build struct {
	name, binary string
	webhook      *cluster.Webhook
}

// builds are the -compare flags.
type builds []build

// buildName is what a -compare name may be: a part of a namespace name.
var buildName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$`)

// errBuild is a -compare flag that does not name a build to compare.
var errBuild = errors.New("-compare wants NAME=BINARY")

func (bs *builds) String() string {
	var s []string
	for _, b := range *bs {
		s = append(s, b.name+"="+b.binary)
	}
	return strings.Join(s, ",")
}

// Set adds a build: NAME=BINARY, NAME a lower-case DNS label of at most
// 22 characters other than the scenarios' own names, BINARY an existing
// file.
func (bs *builds) Set(v string) error {
	name, bin, ok := strings.Cut(v, "=")
	if !ok || !buildName.MatchString(name) || bin == "" {
		return fmt.Errorf("%w: %q (NAME: lower-case letters, digits and dashes)", errBuild, v)
	}
	for _, taken := range []string{"floor", "map", "fixed", "webhook", "change"} {
		if name == taken {
			return fmt.Errorf("%w: %q is a scenario's own name", errBuild, name)
		}
	}
	for _, b := range *bs {
		if b.name == name {
			return fmt.Errorf("%w: %q twice", errBuild, name)
		}
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("-compare %s: %w", name, err)
	}
	*bs = append(*bs, build{name: name, binary: bin})
	return nil
}

// startBuilds starts each build on a port of its own, with the cluster's
// serving certificate, and registers it for its namespace.
func (b *bench) startBuilds(ctx context.Context) error {
	for i := range b.builds {
		c := &b.builds[i]
		port, err := cluster.FreePort()
		if err != nil {
			return err
		}
		c.webhook, err = b.cluster.StartWebhook(ctx, c.binary, port, &b.webhookLog, "--zap-log-level", "error")
		if err != nil {
			return fmt.Errorf("-compare %s: %w\n%s", c.name, err, b.webhookLog.String())
		}
		url := fmt.Sprintf("https://127.0.0.1:%d%s", port, c.webhook.Path("/mutate"))
		if err := installWebhookConfiguration(ctx, b.cluster.Client, "bench-"+c.name, url, b.cluster.CAData, "bench-"+c.name); err != nil {
			return err
		}
	}
	return nil
}
