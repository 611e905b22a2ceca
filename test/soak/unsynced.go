package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kpatch.dev/kpatch/test/cluster"
)

// replicaUser makes the API server's user of replica name, granted
// everything (setAccess), and writes its kubeconfig into dir, with server
// as the API server's address; it returns the user and the kubeconfig's
// path. Each replica has its own, so that one can be kept from reading
// the registry while the other serves.
func replicaUser(ctx context.Context, c *cluster.Cluster, name, dir, server string) (string, string, error) {
	user := "soak-webhook-" + name
	u, err := c.Env.AddUser(envtest.User{Name: user}, nil)
	if err != nil {
		return "", "", err
	}
	b, err := u.KubeConfig()
	if err != nil {
		return "", "", err
	}
	direct := filepath.Join(dir, "kubeconfig-"+name+"-direct")
	if err := os.WriteFile(direct, b, 0o600); err != nil {
		return "", "", err
	}
	path := filepath.Join(dir, "kubeconfig-"+name)
	if err := writeKubeconfig(direct, path, server); err != nil {
		return "", "", err
	}
	return user, path, setAccess(ctx, c.Client, user, true)
}

// setAccess grants user everything (the ClusterRole cluster-admin), or
// takes it away: the user can still reach the API server and discover
// its APIs (every authenticated user can), but no longer read the
// registry. It returns once the API server's authorizer says so.
func setAccess(ctx context.Context, c client.Client, user string, on bool) error {
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
	var err error
	if on {
		if err = c.Create(ctx, b); apierrors.IsAlreadyExists(err) {
			err = nil
		}
	} else {
		err = client.IgnoreNotFound(c.Delete(ctx, b))
	}
	if err != nil {
		return err
	}
	return waitFor(30*time.Second, func() error {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: cluster.RegistryNamespace, Verb: "list", Resource: "configmaps"}}}
		if err := c.Create(ctx, review); err != nil {
			return err
		}
		if review.Status.Allowed != on {
			return fmt.Errorf("%s may list the registry: %v", user, review.Status.Allowed)
		}
		return nil
	})
}

// StartProbe is what reviews posted straight to a replica being started
// got, whatever its readiness (as through a url: webhook, or endpoints
// that lag): refused connections before it listens, 503 until its
// registry has synced (or, kept from the API server, until it read its
// path token), then the patch of a version in force. Anything
// else (an object admitted unpatched with a 200, a 503 after a patch, a
// stale version, a torn answer) is a violation.
type StartProbe struct {
	// Refused: no listener yet; Unsynced: 503, not synced (or its path
	// token not read yet); Patched: the
	// patch of a version in force; Unpatched: admitted unpatched with a
	// 200 (a violation); Errors: no answer once it listened.
	Refused, Unsynced, Patched, Unpatched, Errors int
	// FirstPatched is how long after the launch the first patch came.
	FirstPatched time.Duration
}

// startProbePeriod is how often a StartProbe posts a review.
const startProbePeriod = 20 * time.Millisecond

// run posts reviews to r every startProbePeriod from launched on, until
// stop is closed, judging each.
func (p *StartProbe) run(ctx context.Context, client *http.Client, r *Replica, launched time.Time, edits *Edits, maxStale time.Duration, nonce string, tally *Tally, stop <-chan struct{}) {
	tick := time.NewTicker(startProbePeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-tick.C:
		}
		w := r.Webhook()
		if w == nil {
			return
		}
		sent := time.Now()
		v, err := probe(client, r, namespaces[0], nonce)
		if why := p.judge(v, err, sent, time.Now(), launched, edits, maxStale); why != "" {
			tally.Violate("replica %s, posted to straight as it started: %s", r.Name, why)
		}
	}
}

// judge counts one answer of probe (version v, or err) and returns why it
// is a violation, "" when it is not.
func (p *StartProbe) judge(v int, err error, sent, answered, launched time.Time, edits *Edits, maxStale time.Duration) string {
	var status *statusError
	switch {
	case err == nil:
		if err := edits.Check(v, sent, answered, maxStale); err != nil {
			return err.Error()
		}
		if p.Patched == 0 {
			p.FirstPatched = answered.Sub(launched)
		}
		p.Patched++
	case errors.As(err, &status):
		if status.Code != http.StatusServiceUnavailable || !notReadyYet(status.Body) {
			return err.Error()
		}
		p.Unsynced++
		if p.Patched > 0 {
			return "answered 503 (not synced) after it had answered with the patch"
		}
	case errors.Is(err, errNoMarks):
		p.Unpatched++
		return "admitted the object unpatched (200) though the registry in force patches it"
	case errors.Is(err, syscall.ECONNREFUSED) && p.Unsynced == 0 && p.Patched == 0:
		p.Refused++
	case isTransport(err):
		p.Errors++
	default: // a patch that does not apply, a torn answer
		return err.Error()
	}
	return ""
}

// notReadyYet reports whether a 503's body is one of a replica that
// cannot answer yet: its registry has not synced, or it has not read its
// path token (kept from the API server, it can read neither).
func notReadyYet(body string) bool {
	return strings.Contains(body, "the registry has not synced yet") || strings.Contains(body, "has not read its path token yet")
}

// isTransport reports whether err is the client's: no answer at all.
func isTransport(err error) bool {
	var transport *url.Error
	return errors.As(err, &transport)
}

// String says what the probe saw.
func (p *StartProbe) String() string {
	return fmt.Sprintf("%d reviews posted straight to it: %d connections refused (not listening yet), %d answered 503 (not synced, or no path token yet), %d with the patch of a version in force (the first %s after its launch), %d admitted unpatched, %d without an answer once it listened",
		p.Refused+p.Unsynced+p.Patched+p.Unpatched+p.Errors, p.Refused, p.Unsynced, p.Patched, p.FirstPatched.Round(100*time.Millisecond), p.Unpatched, p.Errors)
}
