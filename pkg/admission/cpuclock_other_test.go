//go:build !unix

package admission

import "time"

var start = time.Now()

// cpuTime is the time since the process started where the CPU time is
// not read.
func cpuTime() time.Duration { return time.Since(start) }
