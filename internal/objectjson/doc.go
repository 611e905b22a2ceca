// Package objectjson is the webhook's JSON on the request path: it
// decodes an admitted object as the API server's decoder does, into maps
// lent from a pool for the time of the request (Decode, Maps), and
// encodes the JSONPatch between the object and its patched copy
// (JSONPatch), walking both once.
package objectjson

import "errors"

// ErrNotAnObject is a JSON document that is not an object (null
// included).
var ErrNotAnObject = errors.New("the object is not a JSON object")
