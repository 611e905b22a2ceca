package cluster

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Freeze stops the kube-apiserver process of the cluster (SIGSTOP), as
// when the API server hangs or its node is partitioned away: connections
// are accepted and nothing answers. The returned thaw resumes it
// (SIGCONT); call it, or the cluster cannot stop.
func (c *Cluster) Freeze() (thaw func() error, err error) {
	pid, err := c.apiServerPID()
	if err != nil {
		return nil, err
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return nil, fmt.Errorf("freezing kube-apiserver %d: %w", pid, err)
	}
	return func() error {
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			return fmt.Errorf("thawing kube-apiserver %d: %w", pid, err)
		}
		return nil
	}, nil
}

// apiServerPID finds the kube-apiserver process that serves the cluster's
// port among this machine's processes.
func (c *Cluster) apiServerPID() (int, error) {
	u, err := url.Parse(c.Config.Host)
	if err != nil {
		return 0, fmt.Errorf("the API server's address %q: %w", c.Config.Host, err)
	}
	flag := []byte("--secure-port=" + u.Port())
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(cmdline, []byte{0})
		if len(args) == 0 || filepath.Base(string(args[0])) != "kube-apiserver" {
			continue
		}
		for i, a := range args {
			if bytes.Equal(a, flag) || (string(a) == "--secure-port" && i+1 < len(args) && string(args[i+1]) == u.Port()) {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no kube-apiserver process with --secure-port=%s", u.Port())
}

// Running reports whether the webhook process has not exited.
func (w *Webhook) Running() bool {
	select {
	case err := <-w.done:
		w.done <- err // for Stop
		return false
	default:
		return true
	}
}
