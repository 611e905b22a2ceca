// Package kustomize holds pkg/replacement to kustomize's own replacement
// filter (sigs.k8s.io/kustomize/api): the differential test over the
// cases of pkg/replacement/testdata, the differential fuzz target of the
// field path splitter, and the benchmarks of the filter beside which
// pkg/replacement's are read. It is a module of its own, so that
// kustomize stays out of the project's go.mod; `make unit` runs it:
//
//	cd test/kustomize && go test ./...
//	cd test/kustomize && go test -run '^$' -bench . -benchmem
package kustomize
