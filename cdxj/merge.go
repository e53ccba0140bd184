package cdxj

import (
	"bytes"
	"errors"
	"iter"
)

// Merge returns a Searcher over several sorted indexes at once: each query
// is asked of every one, and their answers are merged line by line in
// byte-wise order, as pywb merges the sources of a collection. Lines that
// appear in several indexes appear that many times. A query's Limit
// applies to the merged answer. An error from any index is yielded as
// that index yields it; a line that does not parse goes on, any other
// error ends the iteration. Merge of one index returns it.
//
// The merge holds one line (or record) per index: each stays valid, as
// its index's iteration guarantees, until that index is asked for its
// next one.
func Merge(indexes ...Searcher) Searcher {
	if len(indexes) == 1 {
		return indexes[0]
	}
	return &merged{s: indexes}
}

type merged struct{ s []Searcher }

// Lines merges the indexes' Lines; see Merge.
func (m *merged) Lines(q Query) iter.Seq2[[]byte, error] {
	return mergeSeq(m.s, q, func(s Searcher, q Query) iter.Seq2[[]byte, error] { return s.Lines(q) },
		func(l []byte) []byte { return l })
}

// Records merges the indexes' Records by their lines; see Merge.
func (m *merged) Records(q Query) iter.Seq2[*Record, error] {
	return mergeSeq(m.s, q, func(s Searcher, q Query) iter.Seq2[*Record, error] { return s.Records(q) },
		func(r *Record) []byte { return r.Line() })
}

func mergeSeq[T any](ss []Searcher, q Query, seq func(Searcher, Query) iter.Seq2[T, error], line func(T) []byte) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		limit := q.Limit
		type head struct {
			next func() (T, error, bool)
			stop func()
			v    T
			ok   bool
		}
		heads := make([]*head, len(ss))
		defer func() {
			for _, h := range heads {
				if h != nil {
					h.stop()
				}
			}
		}()
		// advance moves h to its next line; false after an error the
		// consumer did not want to go past.
		advance := func(h *head) bool {
			for {
				v, err, ok := h.next()
				if !ok {
					h.ok = false
					return true
				}
				if err == nil {
					h.v, h.ok = v, true
					return true
				}
				var pe *ParseError
				if !yield(zero, err) || !errors.As(err, &pe) {
					h.ok = false
					return false
				}
			}
		}
		for i, s := range ss {
			next, stop := iter.Pull2(seq(s, q))
			heads[i] = &head{next: next, stop: stop}
			if !advance(heads[i]) {
				return
			}
		}
		n := 0
		for {
			var best *head
			for _, h := range heads {
				if h.ok && (best == nil || bytes.Compare(line(h.v), line(best.v)) < 0) {
					best = h
				}
			}
			if best == nil {
				return
			}
			if !yield(best.v, nil) {
				return
			}
			n++
			if limit > 0 && n >= limit {
				return
			}
			if !advance(best) {
				return
			}
		}
	}
}
