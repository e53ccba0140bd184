package aggregator

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// ProbeURIR is the URI-R a probe asks every archive about: any answer
// (mementos, or none) shows the archive answers.
const ProbeURIR = "http://example.com/"

// DefaultProbeTimeout bounds one probe when RunProbes is given none.
const DefaultProbeTimeout = 10 * time.Second

// probeResult is the outcome of an archive's last probe.
type probeResult struct {
	at     time.Time
	reason string // "" when the archive answered
}

// Probe asks every archive once, at the same time (at most FanOut at
// once), for ProbeURIR, through its TimeGate (its TimeMap when it has no
// TimeGate), each within timeout (DefaultProbeTimeout when <= 0), and
// returns the outcomes in rank order. A probe is judged as a search's
// request is (Class) and counts as one toward dormancy: an answer, with
// mementos or none, ends a run of failures (and a dormancy); a failure
// lengthens it as a search's failure would (the dormancy rule), so an
// archive down from the start becomes failing at its first probe and
// dormant after Options.Tolerance probes, with no traffic. Probes are not
// searches: Stats counts them apart (Probes, ProbeFailures, LastProbe,
// ProbeReason), never in Sent, Found, None or Failed, and they wait for
// the archive's concurrency and rate limits as requests do. Dormant
// archives are probed too: that is how one comes back before its
// dormancy ends.
func (ag *Aggregator) Probe(ctx context.Context, timeout time.Duration) []Outcome {
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	out := make([]Outcome, len(ag.archives))
	slots := make(chan struct{}, max(ag.opts.FanOut, 1))
	var wg sync.WaitGroup
	for i, st := range ag.archives {
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				out[i] = Outcome{Archive: st.ID, Status: StatusFailed, Class: ClassDown, Reason: ctxReason(ctx), Err: ctx.Err()}
				return
			}
			out[i] = ag.probe(ctx, st, timeout)
		})
	}
	wg.Wait()
	return out
}

// probe sends st one probe and records it.
func (ag *Aggregator) probe(ctx context.Context, st *archiveState, timeout time.Duration) Outcome {
	start := time.Now()
	o := Outcome{Archive: st.ID}
	select {
	case st.sem <- struct{}{}:
		defer func() { <-st.sem }()
	case <-ctx.Done():
		o.Status, o.Class, o.Reason, o.Err = StatusFailed, ClassDown, ctxReason(ctx), ctx.Err()
		return o
	}
	if st.limiter != nil {
		if err := st.limiter.Wait(ctx); err != nil {
			o.Status, o.Class, o.Reason, o.Err = StatusFailed, ClassDown, ReasonRateLimited, err
			return o
		}
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rctx, prog := withProgress(rctx)
	var (
		ms  []memento.Memento
		n   int
		err error
	)
	if st.TimeGate != "" {
		ms, n, err = ag.up.TimeGate(rctx, &st.Archive, ProbeURIR, start)
	} else {
		ms, n, err = ag.up.TimeMap(rctx, &st.Archive, ProbeURIR)
	}
	o.Requests, o.Elapsed = max(n, 1), time.Since(start)
	ms = cleanMementos(ms)
	class, reason := judge(ms, err, func() string {
		if rctx.Err() != nil {
			return ctxReason(rctx)
		}
		return ""
	})
	if r := prog.slow(reason); r != reason {
		reason, class = r, ClassOf(r)
	}
	o.Class = class
	st.probes.Add(1)
	if ctx.Err() != nil {
		// Ended by the caller (shutdown): says nothing about the archive.
		o.Status, o.Reason, o.Err = StatusFailed, ctxReason(ctx), ctx.Err()
		return o
	}
	switch class {
	case ClassAnswered, ClassNone:
		st.dorm.success()
		o.Status, o.Mementos = StatusNone, len(ms)
		if len(ms) > 0 {
			o.Status = StatusFound
		}
		st.lastProbe.Store(&probeResult{at: start})
		return o
	}
	o.Status, o.Reason, o.Err = StatusFailed, reason, err
	st.probeFailures.Add(1)
	st.lastProbe.Store(&probeResult{at: start, reason: reason})
	if class.Dormancy() && ag.base.Err() == nil {
		key := ""
		if prog.reached(reason) {
			key = ProbeURIR
		}
		if st.dorm.failure(time.Now(), key) {
			ag.log.Warn("archive dormant", "archive", st.ID, "failures", st.dorm.tolerance, "for", st.dorm.sleep, "by", "probe")
		}
	}
	return o
}

// RunProbes probes every archive (Probe, each within timeout) at once and
// then every interval, until ctx ends or the Aggregator is closed; an
// interval <= 0 returns at once without probing. Each round that finds
// failures logs one info record naming them.
func (ag *Aggregator) RunProbes(ctx context.Context, every, timeout time.Duration) {
	if every <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ag.base, cancel)
	defer stop()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		outs := ag.Probe(ctx, timeout)
		if ctx.Err() != nil {
			return
		}
		failed := ""
		n := 0
		for _, o := range outs {
			if o.Status == StatusFailed {
				n++
				if failed != "" {
					failed += ", "
				}
				failed += o.Archive + "=" + o.Reason
			}
		}
		if n > 0 {
			ag.log.Info("probe", "archives", len(outs), "failed", n, "failures", failed)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ArchiveState is what an archive is known to be doing now, as /about
// and /healthz report it (Stats.State).
type ArchiveState string

// The archive states, in the order Stats.State tests them.
const (
	// StateDormant: not asked until Stats.DormantUntil, after Tolerance
	// consecutive failures.
	StateDormant ArchiveState = "dormant"
	// StateFailing: its last request or probe failed
	// (Stats.ConsecutiveFailures > 0), not yet dormant.
	StateFailing ArchiveState = "failing"
	// StateUnknown: never asked and never probed since start.
	StateUnknown ArchiveState = "unknown"
	// StateOK: its last request or probe was answered.
	StateOK ArchiveState = "ok"
)

// State is the archive's ArchiveState.
func (s Stats) State() ArchiveState {
	switch {
	case !s.DormantUntil.IsZero():
		return StateDormant
	case s.ConsecutiveFailures > 0:
		return StateFailing
	case s.Sent == 0 && s.LastProbe.IsZero():
		return StateUnknown
	}
	return StateOK
}

// Detail is the State's explanation in words, "" for StateOK and
// StateUnknown: "DORMANT until T" or "Consecutive failures: N" (as
// MemGator's /about writes them; T in ISO 8601 UTC), followed by the
// last probe's failure reason when the last probe failed
// ("; last probe T: reason").
func (s Stats) Detail() string {
	d := ""
	switch s.State() {
	case StateDormant:
		d = "DORMANT until " + isoDate(s.DormantUntil)
	case StateFailing:
		d = "Consecutive failures: " + strconv.Itoa(s.ConsecutiveFailures)
	default:
		return ""
	}
	if s.ProbeReason != "" {
		d += "; last probe " + isoDate(s.LastProbe) + ": " + s.ProbeReason
	}
	return d
}
