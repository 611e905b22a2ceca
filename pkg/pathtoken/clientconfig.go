package pathtoken

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// tokenPath is the path that carries token for a webhook called at
// current, and whether current is a path the Keeper owns, once cleaned as
// the webhook's server cleans it ("//mutate" is "/mutate"): none (the
// chart writes none, so that Helm and GitOps tools leave the one written
// here alone), base, or base followed by "/" and anything (a token,
// current or replaced). Any other path is another webhook's, left as it
// is.
func tokenPath(current, base, token string) (string, bool) {
	if c := path.Clean("/" + current); c == "/" || c == base || strings.HasPrefix(c, base+"/") {
		return base + "/" + token, true
	}
	return "", false
}

// jsonOp is one operation of a JSON patch.
type jsonOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value string `json:"value"`
}

// pathOps are the operations that make the webhook at index i of a
// configuration, called by c, call base + "/" + token: none when it does
// already, or when its path is another webhook's. Each replacement is
// preceded by a test of the value read, so that a configuration changed
// meanwhile fails the patch rather than lose the change.
func pathOps(i int, c admissionregistrationv1.WebhookClientConfig, base, token string) ([]jsonOp, error) {
	at := fmt.Sprintf("/webhooks/%d/clientConfig", i)
	switch {
	case c.URL != nil:
		u, err := url.Parse(*c.URL)
		if err != nil {
			return nil, fmt.Errorf("webhook %d: url %q: %w", i, *c.URL, err)
		}
		want, ok := tokenPath(u.Path, base, token)
		if !ok || want == u.Path {
			return nil, nil
		}
		u.Path, u.RawPath = want, ""
		return []jsonOp{{"test", at + "/url", *c.URL}, {"replace", at + "/url", u.String()}}, nil
	case c.Service != nil:
		current := ""
		if c.Service.Path != nil {
			current = *c.Service.Path
		}
		want, ok := tokenPath(current, base, token)
		if !ok || want == current {
			return nil, nil
		}
		if c.Service.Path == nil {
			return []jsonOp{{"add", at + "/service/path", want}}, nil
		}
		return []jsonOp{{"test", at + "/service/path", current}, {"replace", at + "/service/path", want}}, nil
	}
	return nil, nil
}
