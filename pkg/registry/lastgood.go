package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
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
	// ResourceVersion is the registry ConfigMap's when this version was
	// stored; it tells a reader where the version came from.
	ResourceVersion string
}

// NewStoredFile returns the version of src and values, with their digests.
func NewStoredFile(src, values, resourceVersion string) StoredFile {
	return StoredFile{Source: src, Values: values, SourceDigest: Digest(src), ValuesDigest: Digest(values), ResourceVersion: resourceVersion}
}

// SameVersion reports whether two stored files hold the same source and
// values.
func (f StoredFile) SameVersion(o StoredFile) bool {
	return f.SourceDigest == o.SourceDigest && f.ValuesDigest == o.ValuesDigest
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
