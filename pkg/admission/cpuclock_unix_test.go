//go:build unix

package admission

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system): what a
// benchmark's work costs whatever else the machine runs, where the time
// between two instants counts the waits for a core.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
