package aggregator

import "time"

// callIdle is how long a goroutine of a callPool waits for its next
// archive call before it ends.
const callIdle = 2 * time.Second

// callPool runs the archive calls of searches (one per archive asked) on
// goroutines kept between calls. A call makes an upstream request through
// net/http several kilobytes of stack deep; a new goroutine grows (copies)
// its stack on the way there for every call, while a kept one has the
// stack of its last call. A call is handed to a goroutine waiting for
// one, or else to a new goroutine; each waits callIdle for its next call
// and ends then, or when done is closed (Aggregator.Close), so that no
// goroutine outlives the traffic by more than callIdle. A call never waits
// for another: the search's budget is kept whatever the pool holds.
type callPool struct {
	calls chan func() // unbuffered: a send succeeds only when a goroutine waits
	done  <-chan struct{}
}

func newCallPool(done <-chan struct{}) *callPool {
	return &callPool{calls: make(chan func()), done: done}
}

// run runs f on a waiting goroutine of the pool, or on a new one.
func (p *callPool) run(f func()) {
	select {
	case p.calls <- f:
	default:
		go p.serve(f)
	}
}

// serve runs f, then the calls handed to it, until it has waited callIdle
// for one or the pool is done.
func (p *callPool) serve(f func()) {
	f()
	idle := time.NewTimer(callIdle)
	defer idle.Stop()
	for {
		select {
		case f := <-p.calls:
			f()
			idle.Reset(callIdle)
		case <-idle.C:
			return
		case <-p.done:
			return
		}
	}
}
