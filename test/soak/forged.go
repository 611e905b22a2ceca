package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"kpatch.dev/kpatch/test/cluster"
)

// forgedChannel is the tally's channel of the forged reviews.
const forgedChannel = "forged review"

// forgery is one way a caller that reaches the webhook port lies about a
// namespace: the namespace the review claims, and the one the object
// names ("" leaves metadata.namespace out).
type forgery struct {
	claimed, object string
}

// own is the namespace the object belongs to: its own, else the
// request's.
func (f forgery) own() string {
	if f.object != "" {
		return f.object
	}
	return f.claimed
}

// forgeries are the lies told in turn, over the tenant namespaces: a
// review of another namespace's object (whose data the answer may hold:
// it is that namespace's object), an object of one namespace claimed for
// another and the reverse, an object without a namespace, an object
// claimed for the registry namespace and for the cluster scope.
func forgeries(namespaces []string) []forgery {
	var fs []forgery
	for i, a := range namespaces {
		b := namespaces[(i+1)%len(namespaces)]
		fs = append(fs,
			forgery{claimed: b, object: b},
			forgery{claimed: b, object: a},
			forgery{claimed: a, object: b},
			forgery{claimed: b, object: ""},
			forgery{claimed: cluster.RegistryNamespace, object: a},
			forgery{claimed: "", object: a},
		)
	}
	return fs
}

// forge posts forged reviews straight to the replicas, in turn, every
// period until ctx ends, at /mutate without the path token (a forger does
// not know it), and checks that each is refused (403) before it is read;
// were one answered, that the answer holds no data of a namespace other
// than the object's own (the registry namespace holds none of the soak's
// namespace data) and is one the API server would take (its uid, a patch
// that applies).
func forge(ctx context.Context, client *http.Client, replicas []*Replica, namespaces []string, nonce string, period time.Duration, tally *Tally) {
	cases := forgeries(namespaces)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		r := replicas[n%len(replicas)]
		w := r.Webhook()
		if w == nil || !r.Serving() {
			continue // stopped, or starting: the restart's own probe posts to it
		}
		f := cases[n%len(cases)]
		tally.Add(forgeOne(client, w.Port, f, fmt.Sprintf("forged-%d", n), namespaces, nonce))
	}
}

// forgeOne posts one forged review and judges its answer: a refusal for
// want of the path token is a denial.
func forgeOne(client *http.Client, port int, f forgery, uid string, namespaces []string, nonce string) Answer {
	name := targetPrefix + "forged"
	obj := deploymentJSON(f.object, name)
	start := time.Now()
	resp, err := postReview(client, port, "/mutate", deploymentReview(uid, f.claimed, name, obj))
	a := Answer{Channel: forgedChannel, Latency: time.Since(start)}
	var status *statusError
	if errors.As(err, &status) && status.Code == http.StatusForbidden {
		a.Outcome = Denied
		return a
	}
	if err != nil {
		a.Outcome = Errored
		return a
	}
	problems := []string{"a review without the path token was answered"}
	if leaked := foreignData(answerText(resp), f.own(), nonce, namespaces); leaked != nil {
		problems = append(problems, fmt.Sprintf("the answer holds data of other namespaces: %s", strings.Join(leaked, ", ")))
	}
	switch out, err := patched(obj, resp); {
	case string(resp.UID) != uid:
		a.Outcome = Refused
		problems = append(problems, fmt.Sprintf("answered uid %q", resp.UID))
	case err != nil:
		a.Outcome = Refused
		problems = append(problems, err.Error())
	case !resp.Allowed:
		a.Outcome = Denied
	case len(resp.Patch) == 0:
		a.Outcome = AllowedUnpatched
	default:
		a.Outcome = Patched
		if m, err := objectMarks(out); err == nil && m.Patched() {
			// what it holds of the object's own namespace is right too
			if _, err := m.Check(f.own(), nonce); err != nil && f.object == f.claimed {
				problems = append(problems, err.Error())
			}
			if err := m.CheckOperation(false); err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	if problems != nil {
		a.Violation = fmt.Sprintf("claimed %q for an object of %q: %s", f.claimed, f.object, strings.Join(problems, "; "))
	}
	return a
}

// probe posts the review of the CREATE of Deployment soak-probe of
// namespace ns to the replica r, at the path the API server calls, and
// returns the registry version its answer carries; an answer that is not
// what one version writes on a CREATE is an error.
func probe(client *http.Client, r *Replica, ns, nonce string) (int, error) {
	w := r.Webhook()
	if w == nil {
		return -1, fmt.Errorf("replica %s is not running", r.Name)
	}
	name := targetPrefix + "probe"
	obj := deploymentJSON(ns, name)
	resp, err := postReview(client, w.Port, w.Path("/mutate"), deploymentReview("probe", ns, name, obj))
	if err != nil {
		return -1, err
	}
	out, err := patched(obj, resp)
	if err != nil {
		return -1, err
	}
	m, err := objectMarks(out)
	if err != nil {
		return -1, err
	}
	v, err := m.Check(ns, nonce)
	if err == nil {
		err = m.CheckOperation(false)
	}
	return v, err
}
