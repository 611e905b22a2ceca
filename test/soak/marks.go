package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// What the soak's registry writes on the objects it targets (named
// soak-*): every version of the registry file writes its number and its
// parity, and a Deployment's replicas alternate with it, so an answer
// says which version made it and a mix of two versions shows; a
// replacements file copies the owner of the namespace's source ConfigMap;
// each namespace's tenant registry writes its tenant.
const (
	versionKey = "soak.kpatch.dev/version"
	parityKey  = "soak.kpatch.dev/parity"
	ownerKey   = "soak.kpatch.dev/owner"
	tenantKey  = "soak.kpatch.dev/tenant"
	// touchKey is what an update changes.
	touchKey = "soak.kpatch.dev/touch"
	// updatedKey is what the UPDATE-only file writes: on an UPDATE,
	// never on a CREATE.
	updatedKey = "soak.kpatch.dev/updated"
	// lastGoodKey is what the file of the last good store's forgery
	// writes: lastGoodGenuine in the versions the registry held,
	// lastGoodForged in the one planted in the store.
	lastGoodKey     = "soak.kpatch.dev/last-good"
	lastGoodGenuine = "genuine"
	lastGoodForged  = "forged"
)

// Names: the objects the registry targets, those it does not, and the
// ConfigMaps of the tenant namespaces.
const (
	targetPrefix   = "soak-"
	plainPrefix    = "plain-"
	sourceName     = "soak-source"
	tenantRegistry = "soak-tenant"
	registryName   = "soak"
	versionFileKey = "version.kpatch"
	ownerFileKey   = "owner.yaml"
	updateOnlyKey  = "update-only.kpatch"
	// lastGoodName holds the file lastGoodFileKey of the forgery (its
	// key in the store: lastGoodName_lastGoodFileKey).
	lastGoodName    = "soak-lastgood"
	lastGoodFileKey = "lastgood.kpatch"
	lastGoodStore   = "soak-last-good"
)

// parity is the parity label version v writes.
func parity(v int) string {
	if v%2 == 0 {
		return "even"
	}
	return "odd"
}

// replicas is the replicas version v gives a Deployment.
func replicas(v int) int32 { return 2 + int32(v%2) }

// versionFile is the registry file of version v.
func versionFile(v int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# soak registry version %d\n", v)
	fmt.Fprintf(&b, "[deployment.%s*]\nreplicas: %d\nlabels[%s]: %s\nannotations[%s]: \"%d\"\n\n", targetPrefix, replicas(v), parityKey, parity(v), versionKey, v)
	fmt.Fprintf(&b, "[pod.%s*]\nlabels[%s]: %s\nannotations[%s]: \"%d\"\n", targetPrefix, parityKey, parity(v), versionKey, v)
	return b.String()
}

// ownerFile is the replacements file that copies data.owner of the source
// ConfigMap of the Deployment's namespace into an annotation.
var ownerFile = fmt.Sprintf(`replacements:
- source: {kind: ConfigMap, name: %s, fieldPath: data.owner}
  targets:
  - select: {kind: Deployment, name: %s.*}
    fieldPaths: ["metadata.annotations.[%s]"]
    options: {create: true}
`, sourceName, targetPrefix, ownerKey)

// updateOnlyFile applies on UPDATE only: it marks the objects the
// registry targets as updated.
var updateOnlyFile = fmt.Sprintf("# kpatch:operations: UPDATE\n[deployment.%[1]s*]\nannotations[%[2]s]: \"yes\"\n\n[pod.%[1]s*]\nannotations[%[2]s]: \"yes\"\n", targetPrefix, updatedKey)

// lastGoodFile is the forgery's file, writing mark on the objects the
// registry targets; brokenFile does not compile.
func lastGoodFile(mark string) string {
	return fmt.Sprintf("[deployment.%[1]s*]\nannotations[%[2]s]: %[3]s\n\n[pod.%[1]s*]\nannotations[%[2]s]: %[3]s\n", targetPrefix, lastGoodKey, mark)
}

const brokenFile = "[deployment." + targetPrefix + "*\nannotations oops\n"

// tenantFile is the file of namespace ns's tenant registry.
func tenantFile(ns, nonce string) string {
	return fmt.Sprintf("[deployment.%[1]s*]\nannotations[%[2]s]: %[3]s\n\n[pod.%[1]s*]\nannotations[%[2]s]: %[3]s\n", targetPrefix, tenantKey, tenantMark(ns, nonce))
}

// ownerMark and tenantMark are data only namespace ns holds: its source
// ConfigMap's owner and its tenant registry's value. The nonce keeps them
// apart from anything else an answer could hold.
func ownerMark(ns, nonce string) string  { return "owner-data-of-" + ns + "-" + nonce }
func tenantMark(ns, nonce string) string { return "tenant-data-of-" + ns + "-" + nonce }

// Marks are the soak's marks an object carries.
type Marks struct {
	Kind                           string // "Deployment" or "Pod"
	Version, Parity, Owner, Tenant string
	Updated, LastGood              string
	Replicas                       int32 // Deployments only
}

// readMarks reads the marks of an object's labels and annotations.
func readMarks(kind string, labels, annotations map[string]string, replicas int32) Marks {
	return Marks{Kind: kind, Version: annotations[versionKey], Parity: labels[parityKey],
		Owner: annotations[ownerKey], Tenant: annotations[tenantKey], Updated: annotations[updatedKey],
		LastGood: annotations[lastGoodKey], Replicas: replicas}
}

// soakMarks are the annotations the registry writes, which an update
// takes off the object first, so that an update the webhook did not patch
// shows.
var soakMarks = []string{versionKey, ownerKey, tenantKey, updatedKey, lastGoodKey}

// Patched reports whether the object carries the registry's patch at
// all (its version).
func (m Marks) Patched() bool { return m.Version != "" }

// errNoMarks: an object the registry targets carries none of its marks.
var errNoMarks = errors.New("admitted unpatched")

// Check returns the version an object of namespace ns carries, and why
// its marks are not what one version of the registry writes on it (a
// torn answer, a missing file), if they are not.
func (m Marks) Check(ns, nonce string) (int, error) {
	if !m.Patched() {
		return -1, errNoMarks
	}
	v, err := strconv.Atoi(m.Version)
	if err != nil || v < 0 {
		return -1, fmt.Errorf("version %q is not a version", m.Version)
	}
	var problems []string
	if m.Parity != parity(v) {
		problems = append(problems, fmt.Sprintf("parity %q", m.Parity))
	}
	if m.Kind == "Deployment" {
		if m.Replicas != replicas(v) {
			problems = append(problems, fmt.Sprintf("replicas %d", m.Replicas))
		}
		if m.Owner != ownerMark(ns, nonce) {
			problems = append(problems, fmt.Sprintf("owner %q", m.Owner))
		}
	}
	if m.Tenant != tenantMark(ns, nonce) {
		problems = append(problems, fmt.Sprintf("tenant %q", m.Tenant))
	}
	if m.LastGood == lastGoodForged {
		problems = append(problems, "the forged last good version applies")
	}
	if problems != nil {
		return v, fmt.Errorf("version %d with %s", v, strings.Join(problems, ", "))
	}
	return v, nil
}

// CheckOperation returns why an object the registry patched on a CREATE
// (update false) or an UPDATE does not carry the UPDATE-only file's mark
// as it should: on every UPDATE, never on a CREATE.
func (m Marks) CheckOperation(update bool) error {
	switch {
	case update && m.Updated != "yes":
		return fmt.Errorf("the UPDATE-only file did not apply on an UPDATE (%s %q)", updatedKey, m.Updated)
	case !update && m.Updated != "":
		return fmt.Errorf("the UPDATE-only file applied on a CREATE (%s %q)", updatedKey, m.Updated)
	}
	return nil
}

// Untouched returns why an object the registry does not target carries
// its marks, if it does.
func (m Marks) Untouched() error {
	if m.Version != "" || m.Parity != "" || m.Owner != "" || m.Tenant != "" || m.Updated != "" || m.LastGood != "" {
		return fmt.Errorf("patched though no file targets it: %+v", m)
	}
	return nil
}

// foreignData returns the marks of namespaces other than own that text
// holds: data of another namespace in an answer about an object of own.
func foreignData(text, own, nonce string, namespaces []string) []string {
	var found []string
	for _, ns := range namespaces {
		if ns == own {
			continue
		}
		for _, mark := range []string{ownerMark(ns, nonce), tenantMark(ns, nonce)} {
			if strings.Contains(text, mark) {
				found = append(found, mark)
			}
		}
	}
	return found
}
