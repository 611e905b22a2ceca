//go:build !race

package condition

// raceDetector says that the tests run with the race detector (see
// race_test.go).
const raceDetector = false
