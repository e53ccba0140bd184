package aggregator

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// flights are the searches running now, by key (service, URI-R and, for
// dynamic services, datetime), each shared by the identical callers that
// came while it ran. It does what golang.org/x/sync/singleflight does and
// also counts the callers waiting for each search, so that the search's
// body bytes (bodyHold) stay held until the last of them is done with
// the Result.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

// flight is one search and the callers waiting for it.
type flight struct {
	done    chan struct{} // closed once res or err is set
	res     *Result
	err     error
	hold    *bodyHold // the search's body bytes
	waiters int       // callers waiting; each gets a hold of hold once done
	ended   bool      // res or err is set (under flights.mu)
}

// searchShared is Search for a URI-R that checkURIR accepted. The caller
// gets a hold of the search's body bytes, kept by holds until the caller
// is done with the Result (nil: let go at once).
func (ag *Aggregator) searchShared(ctx context.Context, s Service, urir string, at time.Time, holds *bodyHolds) (*Result, error) {
	k := kindOf(s)
	key := string(s) + "\x00" + urir
	if k == Dynamic {
		key += "\x00" + strconv.FormatInt(at.Unix(), 10)
	}
	fl := &ag.flights
	fl.mu.Lock()
	if fl.m == nil {
		fl.m = map[string]*flight{}
	}
	f := fl.m[key]
	if f == nil {
		f = &flight{done: make(chan struct{})}
		fl.m[key] = f
		go ag.fly(key, f, s, k, urir, at)
	}
	f.waiters++
	fl.mu.Unlock()
	select {
	case <-f.done:
		if f.err != nil {
			return nil, f.err
		}
		if holds == nil || !holds.request {
			f.res.kept.Store(true) // before the caller's hold goes: its mementos are never given back
		}
		holds.keep(f.hold)
		return f.res, nil
	case <-ctx.Done():
		fl.mu.Lock()
		ended := f.ended
		if !ended {
			f.waiters--
		}
		fl.mu.Unlock()
		if ended && f.err == nil {
			f.hold.release() // the hold taken for this caller
		}
		return nil, ctx.Err()
	}
}

// fly runs the search of f and hands its Result, and a hold of its body
// bytes each, to the callers waiting.
func (ag *Aggregator) fly(key string, f *flight, s Service, k Kind, urir string, at time.Time) {
	var (
		res  *Result
		hold *bodyHold
		err  error
	)
	if ag.track() {
		res, hold = ag.search(s, k, urir, at)
		ag.bg.Done()
	} else {
		err = ErrClosed
	}
	fl := &ag.flights
	fl.mu.Lock()
	delete(fl.m, key)
	f.res, f.hold, f.err, f.ended = res, hold, err, true
	if hold != nil {
		for range f.waiters {
			hold.hold()
		}
		hold.release() // the search's own
	}
	fl.mu.Unlock()
	close(f.done)
}
