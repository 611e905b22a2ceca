package schema

import (
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CRDStore keeps the structural schemas of the CustomResourceDefinitions
// an informer reports, within a bound in bytes, and gives them as CRDs
// (its CRDs method is a Checker's CRDs). Strip is the informer's
// transform: it keeps of a CRD what a check reads and leaves out the
// schemas of one that does not fit; Set and Delete are its events. A CRD
// whose schemas do not fit is not checked, as one never reported. It is
// safe for concurrent use.
type CRDStore struct {
	maxBytes int64 // 0: no bound
	mu       sync.Mutex
	sizes    map[string]int64 // name -> bytes of the schemas kept
	total    int64
	crds     map[string]*apiextensionsv1.CustomResourceDefinition
	current  atomic.Pointer[CRDs] // nil after a change: built again on the next read
}

// NewCRDStore returns a store that keeps at most maxBytes of schemas
// (their JSON size); 0 keeps every one.
func NewCRDStore(maxBytes int64) *CRDStore {
	return &CRDStore{maxBytes: maxBytes, sizes: map[string]int64{}, crds: map[string]*apiextensionsv1.CustomResourceDefinition{}}
}

// CRDs returns the schemas kept, immutable. They are built on the first
// read after a change, so that the events of an informer's first list
// cost one build, not one each.
func (s *CRDStore) CRDs() *CRDs {
	if c := s.current.Load(); c != nil {
		return c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.current.Load(); c != nil {
		return c
	}
	names := make([]string, 0, len(s.crds))
	for name := range s.crds {
		names = append(names, name)
	}
	slices.Sort(names)
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(names))
	for i, name := range names {
		crds[i] = s.crds[name]
	}
	c := NewCRDs(crds)
	s.current.Store(c)
	return c
}

// Bytes returns the size of the schemas kept.
func (s *CRDStore) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Strip returns what a check reads of obj, a CRD: its name, group, kind
// and versions (name, served, schema); annotations, managed fields and
// status, which can be as large as the schema, are gone. When the
// schemas of the CRD would take the store past its bound, they are left
// out too and fits is false. Any other obj is returned as it is.
func (s *CRDStore) Strip(obj any) (stripped any, fits bool) {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return obj, true
	}
	out := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   crd.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{Name: crd.Name, UID: crd.UID, ResourceVersion: crd.ResourceVersion},
	}
	out.Spec.Group = crd.Spec.Group
	out.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Kind: crd.Spec.Names.Kind, Plural: crd.Spec.Names.Plural}
	out.Spec.Scope = crd.Spec.Scope
	var size int64
	for _, v := range crd.Spec.Versions {
		kept := apiextensionsv1.CustomResourceDefinitionVersion{Name: v.Name, Served: v.Served, Storage: v.Storage}
		if v.Served && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			kept.Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: v.Schema.OpenAPIV3Schema}
			b, _ := json.Marshal(v.Schema.OpenAPIV3Schema)
			size += int64(len(b))
		}
		out.Spec.Versions = append(out.Spec.Versions, kept)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.sizes[crd.Name]
	if s.maxBytes > 0 && s.total-old+size > s.maxBytes {
		s.total -= old
		delete(s.sizes, crd.Name)
		for i := range out.Spec.Versions {
			out.Spec.Versions[i].Schema = nil
		}
		return out, false
	}
	s.total += size - old
	s.sizes[crd.Name] = size
	return out, true
}

// Set keeps the schemas of crd (as Strip left it), replacing those of
// the CRD of its name.
func (s *CRDStore) Set(crd *apiextensionsv1.CustomResourceDefinition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crds[crd.Name] = crd
	s.current.Store(nil)
}

// Delete forgets the CRD name and frees its bytes.
func (s *CRDStore) Delete(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total -= s.sizes[name]
	delete(s.sizes, name)
	delete(s.crds, name)
	s.current.Store(nil)
}
