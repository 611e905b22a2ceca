// Package pathtoken authenticates the API server to the webhook by what
// only it is told: a random token, the last segment of the path it calls
// (/mutate/<token>, /validate-registry/<token>). A review is a JSON
// document anyone who reaches the webhook port can make up; the path of a
// webhook call is written in the cluster-scoped webhook configurations,
// which only cluster admins read, so a pod that posts a review does not
// know it.
//
// The Keeper owns the token: it keeps it in a Secret of the webhook's
// namespace (created, immutable, with a random token when missing, so that
// every replica serves the same one), writes the path that carries it into
// the clientConfig of the webhook's Mutating- and
// ValidatingWebhookConfiguration (as servingcert writes their caBundle),
// and writes it again when someone sets it back. Its Guard serves a review
// only at the path with the token and refuses any other before reading a
// byte of its body.
package pathtoken
