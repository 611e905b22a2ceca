package admit

import (
	"bytes"
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
)

// terminating reports whether the object is that of an UPDATE of an
// object being deleted (metadata.deletionTimestamp set, on the object or
// on the stored one): such an UPDATE passes unpatched. It is the
// controllers removing their finalizers; the API server refuses a new
// finalizer on such an object and keeps most of its fields, and a
// mutating webhook must never hold up its deletion.
func terminating(in *Object, obj map[string]any) bool {
	if in.Operation != string(admissionv1.Update) {
		return false
	}
	if md, _ := obj["metadata"].(map[string]any); md["deletionTimestamp"] != nil {
		return true
	}
	return oldTerminating(in.OldRaw)
}

// deletionTimestampKey is the JSON member that marks an object being
// deleted, as it appears in the raw old object.
var deletionTimestampKey = []byte(`"deletionTimestamp"`)

// oldTerminating reports whether the stored object of an UPDATE is being
// deleted: a client may send the object without the deletionTimestamp,
// which the API server keeps. It decodes the old object's metadata only
// when its bytes name the field.
func oldTerminating(raw []byte) bool {
	if !bytes.Contains(raw, deletionTimestampKey) {
		return false
	}
	var old struct {
		Metadata struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	return json.Unmarshal(raw, &old) == nil && old.Metadata.DeletionTimestamp != nil
}
