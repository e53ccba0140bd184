//go:build unix

package cdxj

import (
	"syscall"
	"time"
)

// processCPU returns the user plus system CPU time the process has used, so
// that a benchmark can report its speed per CPU-second, which other load on
// the machine does not distort the way it distorts wall-clock time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
