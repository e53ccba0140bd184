package aggregator

import (
	"sync"
	"time"
)

// dormancy puts an archive to sleep after a run of consecutive failures, as
// MemGator's --tolerance and --dormant flags do: after tolerance failures in
// a row the archive is not asked for sleep, then it is asked again; one
// success resets the run. Time comes from time.Now, so testing/synctest
// controls it. tolerance <= 0 disables dormancy.
type dormancy struct {
	tolerance int
	sleep     time.Duration

	mu       sync.Mutex
	failures int
	until    time.Time
}

// asleep reports whether the archive is dormant at now, and until when.
func (d *dormancy) asleep(now time.Time) (bool, time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tolerance <= 0 || d.until.IsZero() {
		return false, time.Time{}
	}
	if now.Before(d.until) {
		return true, d.until
	}
	// Awake: one more failure puts it back to sleep at once.
	d.until = time.Time{}
	d.failures = d.tolerance - 1
	return false, time.Time{}
}

// success ends a run of failures.
func (d *dormancy) success() {
	d.mu.Lock()
	d.failures = 0
	d.until = time.Time{}
	d.mu.Unlock()
}

// failure counts one failure at now and reports whether the archive has
// just gone to sleep.
func (d *dormancy) failure(now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failures++
	if d.tolerance > 0 && d.failures >= d.tolerance && d.until.IsZero() {
		d.until = now.Add(d.sleep)
		return true
	}
	return false
}

// consecutive is the current run of failures.
func (d *dormancy) consecutive() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failures
}
