package cluster

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ControllerManagerBinary is the kube-controller-manager `make
// controlplane` builds next to kube-apiserver and etcd (the same
// Kubernetes version), for the tests of objects controllers create.
const ControllerManagerBinary = "kube-controller-manager"

// ControllerManager is a running kube-controller-manager.
type ControllerManager struct {
	cmd  *exec.Cmd
	done chan error
}

// StartControllerManager runs the control plane's kube-controller-manager
// against the cluster (as the Kubeconfig's user), with the controllers
// named only (its --controllers), without leader election and without a
// serving port; its output goes to log. It returns an error wrapping
// fs.ErrNotExist when the binary is not there (a control plane built
// before it was). Nothing schedules or runs the Pods its controllers
// create: what they are admitted as is what it is for.
func (c *Cluster) StartControllerManager(log io.Writer, controllers ...string) (*ControllerManager, error) {
	bin := filepath.Join(c.Env.BinaryAssetsDirectory, ControllerManagerBinary)
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("no %s in %s: run `make controlplane` (%w)", ControllerManagerBinary, c.Env.BinaryAssetsDirectory, err)
	}
	cmd := exec.Command(bin,
		"--kubeconfig", c.Kubeconfig,
		"--controllers", strings.Join(controllers, ","),
		"--leader-elect=false",
		"--secure-port=0",
	)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	m := &ControllerManager{cmd: cmd, done: make(chan error, 1)}
	go func() { m.done <- cmd.Wait() }()
	return m, nil
}

// Exited returns why the controller manager has ended, or nil while it
// runs.
func (m *ControllerManager) Exited() error {
	select {
	case err := <-m.done:
		m.done <- err
		if err == nil {
			err = fmt.Errorf("%s exited", ControllerManagerBinary)
		}
		return err
	default:
		return nil
	}
}

// Stop ends the controller manager and waits for it.
func (m *ControllerManager) Stop() { stopProcess(m.cmd, m.done) }
