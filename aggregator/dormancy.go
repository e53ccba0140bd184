package aggregator

import (
	"slices"
	"sync"
	"time"
)

// dormancy puts an archive to sleep after a run of consecutive failures, as
// MemGator's --tolerance and --dormant flags do: after tolerance failures in
// a row the archive is not asked for sleep, then it is asked again; one
// success resets the run. Time comes from time.Now, so testing/synctest
// controls it. tolerance <= 0 disables dormancy.
//
// Which failures lengthen the run is the dormancy rule (see Class): a
// failure before the request reached the archive counts every time; any
// other counts once per URI-R in the run (failure's urir), so that the
// run reaches tolerance only across tolerance different URI-Rs. The run
// keeps at most tolerance URI-Rs.
type dormancy struct {
	tolerance int
	sleep     time.Duration

	mu       sync.Mutex
	failures int      // the run, by the dormancy rule
	contacts int      // failed contacts since the last answer, each counted
	run      []string // URI-Rs whose failures the run counts
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
	d.clearRun()
	return false, time.Time{}
}

func (d *dormancy) clearRun() {
	clear(d.run)
	d.run = d.run[:0]
}

// success ends a run of failures.
func (d *dormancy) success() {
	d.mu.Lock()
	d.failures, d.contacts = 0, 0
	d.clearRun()
	d.until = time.Time{}
	d.mu.Unlock()
}

// failure counts one failure at now and reports whether the archive has
// just gone to sleep. urir is "" for a failure that counts every time (the
// request never reached the archive); otherwise a failure for a URI-R the
// run already counts does not lengthen it. Every call counts one failed
// contact (consecutive), whatever the run does.
func (d *dormancy) failure(now time.Time, urir string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.contacts++
	if urir != "" {
		if slices.Contains(d.run, urir) {
			return false
		}
		if len(d.run) < max(d.tolerance, 1) {
			d.run = append(d.run, urir)
		}
	}
	d.failures++
	if d.tolerance > 0 && d.failures >= d.tolerance && d.until.IsZero() {
		d.until = now.Add(d.sleep)
		return true
	}
	return false
}

// consecutive is the number of failed contacts (searches' requests and
// probes, each counted, failure's calls) since the last answer: at least
// the run, more when one URI-R failed again or while the archive sleeps.
func (d *dormancy) consecutive() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.contacts
}
