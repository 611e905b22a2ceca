// Package testsuite reads and runs the test suites of a registry
// (kpatch-test.yaml): each test runs apply, or lint, on its patch files
// and inputs, and compares the objects printed, the errors and the
// warnings with what it expects. The runs themselves are passed in
// (Runner), so that a test runs exactly as the commands do.
package testsuite
