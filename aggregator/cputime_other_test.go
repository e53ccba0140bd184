//go:build !unix

package aggregator

import "time"

// cpuTime is 0 where getrusage is not available: cpu-ns/op then reads 0.
func cpuTime() time.Duration { return 0 }
