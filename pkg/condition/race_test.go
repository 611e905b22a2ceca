//go:build race

package condition

// raceDetector says that the tests run with the race detector, under
// which allocations are not the program's: sync.Pool drops some of what
// is put in it (regexp's matchers among them), so that the code using it
// allocates anew.
const raceDetector = true
