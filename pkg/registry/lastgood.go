package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// StoredFile is the last good version of one registry file: the content
// that last compiled, with the values.yaml of its ConfigMap at that time.
type StoredFile struct {
	Source string
	Values string
	// SourceDigest and ValuesDigest are the hex SHA-256 of Source and
	// Values: the identity of the version.
	SourceDigest string
	ValuesDigest string
	// UID and ResourceVersion are the registry ConfigMap's when this
	// version was its content: where the version came from. A ConfigMap
	// deleted and created again under the same name has another uid.
	UID             string
	ResourceVersion string
	// Vouched says that this process asked the API server, which
	// confirmed that the ConfigMap held this version at ResourceVersion
	// (or which no longer knows and the version was in the store when
	// this process started). It is never stored.
	Vouched bool
}

// NewStoredFile returns the version of src and values, with their
// digests, as the ConfigMap of that uid held it at resourceVersion.
func NewStoredFile(src, values, uid, resourceVersion string) StoredFile {
	return StoredFile{Source: src, Values: values, SourceDigest: Digest(src), ValuesDigest: Digest(values), UID: uid, ResourceVersion: resourceVersion}
}

// ErrLastGoodRefused is the error, checked with errors.Is, of a stored
// version that does not apply because nothing shows that a replica
// compiled it from the registry: a store edited by hand, restored from
// another cluster, or written by someone else than the webhook.
var ErrLastGoodRefused = errors.New("the stored version is not one the registry held")

// Trust returns nil when f may apply in place of the refused current
// content of its file in cm: it was stored from cm itself (the same uid,
// not a ConfigMap of the same name deleted and created again), at a
// resourceVersion before cm's current one, and either this process
// compiled it from cm (compiled) or the API server vouched for it
// (Vouched). Else an error wrapping ErrLastGoodRefused says why.
func (f StoredFile) Trust(cm *corev1.ConfigMap, compiled bool) error {
	uid := string(cm.UID)
	switch {
	case f.UID == "":
		return fmt.Errorf("%w: it records no ConfigMap uid", ErrLastGoodRefused)
	case f.UID != uid:
		return fmt.Errorf("%w: it was stored from ConfigMap uid %s, not from this one (%s)", ErrLastGoodRefused, f.UID, uid)
	}
	if c, err := resourceversion.CompareResourceVersion(f.ResourceVersion, cm.ResourceVersion); err != nil || c >= 0 {
		return fmt.Errorf("%w: it was stored at resourceVersion %q, which is not before the ConfigMap's %q", ErrLastGoodRefused, f.ResourceVersion, cm.ResourceVersion)
	}
	if !compiled && !f.Vouched {
		return fmt.Errorf("%w: no replica is known to have compiled it (resourceVersion %s)", ErrLastGoodRefused, f.ResourceVersion)
	}
	return nil
}

// Compiled is one version of a file that compiled as the content of its
// ConfigMap: its identity in a compiler's history.
type Compiled struct {
	UID, SourceDigest, ValuesDigest string
}

// historyLen bounds the versions a compiler remembers of one file.
const historyLen = 8

// history is the versions of one file that this process compiled
// cleanly as the content of its ConfigMap, the latest last, at most
// historyLen of them.
type history []Compiled

func (h *history) add(c Compiled) {
	if i := slices.Index(*h, c); i >= 0 {
		*h = slices.Delete(*h, i, i+1)
	}
	if len(*h) == historyLen {
		*h = slices.Delete(*h, 0, 1)
	}
	*h = append(*h, c)
}

func (h history) has(f StoredFile) bool {
	return slices.Contains(h, Compiled{f.UID, f.SourceDigest, f.ValuesDigest})
}

// SameVersion reports whether two stored files hold the same source and
// values of the same ConfigMap (uid).
func (f StoredFile) SameVersion(o StoredFile) bool {
	return f.SourceDigest == o.SourceDigest && f.ValuesDigest == o.ValuesDigest && f.UID == o.UID
}

// Digest is the hex SHA-256 of s.
func Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// LastGood is the last good version of each registry file, as the cluster
// stores it (LastGoodStore): every replica applies the stored version of
// a file whose current content is refused, so that replicas, and a
// replica restarted after a broken edit, agree. It is immutable; the nil
// *LastGood is empty.
type LastGood struct {
	files map[FileRef]StoredFile
}

// NewLastGood returns a snapshot of files, which it does not copy: the
// caller must not change the map afterwards.
func NewLastGood(files map[FileRef]StoredFile) *LastGood {
	return &LastGood{files: files}
}

// Get returns the stored version of ref.
func (l *LastGood) Get(ref FileRef) (StoredFile, bool) {
	if l == nil {
		return StoredFile{}, false
	}
	f, ok := l.files[ref]
	return f, ok
}

// Len returns how many files have a stored version.
func (l *LastGood) Len() int {
	if l == nil {
		return 0
	}
	return len(l.files)
}

// Refs returns the files with a stored version, in registry order.
func (l *LastGood) Refs() []FileRef {
	if l == nil {
		return nil
	}
	return slices.SortedFunc(maps.Keys(l.files), compareRefs)
}

// All yields every file with a stored version and that version, in no
// particular order.
func (l *LastGood) All() iter.Seq2[FileRef, StoredFile] {
	return maps.All(l.all())
}

// Equal reports whether two snapshots hold the same versions of the same
// files.
func (l *LastGood) Equal(o *LastGood) bool {
	if l.Len() != o.Len() {
		return false
	}
	for ref, f := range l.all() {
		if g, ok := o.Get(ref); !ok || !f.SameVersion(g) {
			return false
		}
	}
	return true
}

func (l *LastGood) all() map[FileRef]StoredFile {
	if l == nil {
		return nil
	}
	return l.files
}

// compareRefs orders files as the registry applies them: ConfigMap name,
// then key.
func compareRefs(a, b FileRef) int {
	if c := strings.Compare(a.ConfigMap, b.ConfigMap); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}

// StoredVersionOf returns the version of the file key that cm holds, as
// the store records it: what a reader compares a stored version with.
func StoredVersionOf(cm *corev1.ConfigMap, key string) StoredFile {
	return NewStoredFile(cm.Data[key], valuesContext(cm), string(cm.UID), cm.ResourceVersion)
}
