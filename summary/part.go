package summary

import (
	"context"
	"errors"
	"io"
	"iter"
	"runtime"
	"sync"

	"github.com/mementokit/mementokit/cdxj"
)

// minPartBytes is the least size of a part of a plain file that ReadIndex
// gives a worker of its own (tests lower it).
var minPartBytes int64 = 4 << 20

// SummarizePart summarizes the records of one part of an index (a unit of
// distributed work, see cdxj.Plan; ix is the index p.Source names) with a
// new Summarizer made with opts (nil means defaults; Grouped and Out are
// ignored) and writes the partial summary to dst (see Summarizer.WriteTo;
// its note line records the part's skipped lines). Partial summaries of any parts, disjoint or
// not, add up exactly with Combiner.AddSummary: every counter is a sum.
// skipBad is ReadIndex's.
func SummarizePart(ctx context.Context, dst io.Writer, ix cdxj.Index, p cdxj.Part, opts *Options, skipBad bool) (Stats, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Grouped, o.Out = false, nil
	s := New(&o)
	if err := s.read(ctx, cdxj.PartRecordsBlank(ix, p, &s.stats.BlankLines), skipBad); err != nil {
		return s.stats, err
	}
	_, err := s.WriteTo(dst)
	return s.stats, err
}

// read adds the records of recs (see ReadIndex).
func (s *Summarizer) read(ctx context.Context, recs iter.Seq2[*cdxj.Record, error], skipBad bool) error {
	n := 0
	for rec, err := range recs {
		if n++; n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err == nil {
			err = s.AddRecord(rec)
		}
		if err != nil {
			if err := badLine(err, skipBad, &s.stats.BadLines, &s.stats.BadExamples); err != nil {
				return err
			}
			if s.opts.Logger != nil && s.stats.BadLines == 1 {
				s.opts.Logger.Warn("summary: skipped a bad index line (first occurrence; the others are counted, not logged)", "err", err)
			}
		}
	}
	return ctx.Err()
}

func (s *Summarizer) workers() int {
	if s.opts.Workers > 0 {
		return s.opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// readParallel reads the parts of ix on w workers, each into a Summarizer
// of its own, and adds them to s in part order. It reports false when ix is
// not cut into several parts (s is then untouched). The first error in
// part order is returned, as a sequential read would meet it.
func (s *Summarizer) readParallel(ctx context.Context, ix cdxj.Index, skipBad bool, w int) (bool, error) {
	n := w
	if f, ok := ix.(*cdxj.File); ok {
		n = int(min(int64(w), max(1, f.Size()/minPartBytes)))
	}
	if n <= 1 {
		return false, nil
	}
	parts, err := cdxj.Plan(ctx, []cdxj.Index{ix}, n)
	if err != nil || len(parts) <= 1 {
		return false, err
	}
	subs := make([]*Summarizer, len(parts))
	errs := make([]error, len(parts))
	ctxs := make([]context.Context, len(parts))
	cancels := make([]context.CancelFunc, len(parts))
	for i := range parts {
		o := s.opts
		o.Grouped, o.Out = false, nil
		subs[i] = New(&o)
		subs[i].min, subs[i].max = s.min, s.max
		ctxs[i], cancels[i] = context.WithCancel(ctx)
	}
	var mu sync.Mutex
	failed := len(parts)
	sem := make(chan struct{}, w)
	var wg sync.WaitGroup
	for i, p := range parts {
		sem <- struct{}{}
		mu.Lock()
		stop := i > failed
		mu.Unlock()
		if stop {
			<-sem
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := subs[i].read(ctxs[i], cdxj.PartRecordsBlank(ix, p, &subs[i].stats.BlankLines), skipBad); err != nil {
				errs[i] = err
				mu.Lock()
				failed = min(failed, i)
				mu.Unlock()
				for j := i + 1; j < len(parts); j++ {
					cancels[j]()
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range cancels {
		c()
	}
	if failed < len(parts) && errors.Is(errs[failed], cdxj.ErrPartLayout) {
		return false, nil // read it whole
	}
	last := len(parts)
	if failed < len(parts) {
		last = failed + 1 // what a sequential read counted before it stopped
	}
	for _, sub := range subs[:last] {
		s.absorb(sub)
	}
	if failed < len(parts) {
		return true, errs[failed]
	}
	return true, nil
}

// absorb adds the keys, counters and stats of o to s.
func (s *Summarizer) absorb(o *Summarizer) {
	for k, oe := range o.entries {
		e := s.entries[k]
		if e == nil {
			s.entries[k] = oe
			s.stats.Keys++
			continue
		}
		for _, pc := range oe.periods {
			e.counters(pc.p).Merge(&pc.c)
		}
	}
	s.stats.Add(o.stats)
}

// Add adds the capture counts of another summarizer's Stats, such as one
// part's (SummarizePart), to s: counted, not 2xx, bad timestamps, bad lines,
// blank lines and captures without a length; at most 5 bad-line examples are kept.
// Keys is not added: keys shared by two summaries are one key of their
// combination.
func (s *Stats) Add(p Stats) {
	s.Counted += p.Counted
	s.NotOK += p.NotOK
	s.BadTimestamp += p.BadTimestamp
	s.BadLines += p.BadLines
	s.BlankLines += p.BlankLines
	s.NoLength += p.NoLength
	for _, e := range p.BadExamples {
		if len(s.BadExamples) < 5 {
			s.BadExamples = append(s.BadExamples, e)
		}
	}
}
