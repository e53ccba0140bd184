package mementomap

import (
	"bytes"
	"errors"

	"github.com/mementokit/mementokit/internal/extsort"
)

// sortedSink hands the sort keys of a build to its sorter so that a sorted
// index costs no sort: keys that arrive in order are appended to a run
// (extsort.Sorter.Append) instead of being held in the sorter's chunk.
//
// A sort key is a full SURT whose first '?' is a NUL byte, so that the keys
// of one HxPx key H (the part before the '?') sort together. An index
// sorted byte-wise by its SURTs orders them with the '?' itself, which
// differs in one way: a record "H?Q" comes after the records of longer
// HxPx keys H + C… whose byte C is below '?' ('-', '.', '/', digits, …),
// while its sort key "H\x00Q" sorts before theirs. So the sink holds the
// keys of the records read in pending, in sort-key order, and appends the
// least of them once the index has passed H + "@" ('@' follows '?'), past
// every query of H; pending then holds the captures of one HxPx key and of
// the HxPx keys between its bare form and its queries, at most maxPending
// bytes (past that the least keys are appended all the same).
//
// The map does not depend on any of this: a key that sorts at or before
// the last one appended (a query "P?Q" of a prefix P of keys appended
// already) goes to the chunk (Append does that), and the sorter merges
// the chunk with the appended run, summing equal keys. A record whose key
// sorts before the one of the record before it (the index is not sorted,
// or a key was replaced by the canonical SURT of its URL out of order)
// ends the appending for good: the pending keys and every later one go to
// the chunk.
type sortedSink struct {
	s        *extsort.Sorter
	unsorted bool // appending has ended: every key goes to s.Add
	// prev is the index key (with its '?') of the last record, have
	// whether there was one.
	prev []byte
	have bool
	// pending[head:] are the keys not yet appended, in sort-key order,
	// their bytes in arena (live bytes in all); last is the index of the
	// last record's key (below head once appended).
	pending          []pendingKey
	head, last, live int
	arena, spare     []byte // spare: the other arena, for compact
	maxPending       int
	// lines, when not nil, takes the keys that would be appended instead
	// of the sorter (streamLines): the part's map lines are made as it is
	// read. A key that sorts before the last one so taken ends that for
	// good: replay then gives the sorter the keys of the records before
	// the current one (that many records read again), and every key goes
	// to the sorter from there on.
	lines  *lineStream
	replay func(records int64) error
	// records counts the records handed to the builder (builder.read).
	records *int64
}

// errUnstreamed is what toRun returns for a key that the line stream
// refuses (it sorts before the last one streamed).
var errUnstreamed = errors.New("mementomap: a key out of order for the line stream")

// pendingKey is one sort key of sortedSink.pending, arena[off:off+n], with
// the count of its records; hx is the length of its HxPx key.
type pendingKey struct {
	off, n, hx int
	count      uint64
}

// maxPendingKeys is the most bytes of keys a sortedSink holds.
var maxPendingKeys = 4 << 20 // tests lower it

// sortInto makes s the sorter of b's sort keys, through a sortedSink; the
// function returned appends the keys still pending, for after the last
// record.
func (b *builder) sortInto(s *extsort.Sorter) (finish func() error) {
	p := &sortedSink{s: s, maxPending: maxPendingKeys, last: -1, records: &b.records}
	b.s = s
	b.ss = p
	b.sink = p.add
	return p.finish
}

// streamLines makes the keys that the sink of b (sortInto) would append
// go to ls instead; replay(n) must give b's sorter the sort keys of the
// first n records that b was given, as b made them, for when a key comes
// out of order for ls.
func (b *builder) streamLines(ls *lineStream, replay func(records int64) error) {
	b.ss.lines, b.ss.replay = ls, replay
}

// streamed returns the line stream of b's sink, nil when there is none or
// it was given up (see sortedSink.lines).
func (b *builder) streamed() *lineStream {
	if b.ss == nil {
		return nil
	}
	return b.ss.lines
}

// toRun appends k with count n to the sorter's run, or takes it into the
// line stream: errUnstreamed when the stream refuses it.
func (p *sortedSink) toRun(k []byte, n uint64) error {
	if p.lines == nil {
		return p.s.Append(k, n)
	}
	ok, err := p.lines.add(k, n)
	if err == nil && !ok {
		err = errUnstreamed
	}
	return err
}

// unstream gives up the line stream: the sorter gets the sort keys of the
// first n records again (replay), and the pending keys, which are among
// them, are dropped.
func (p *sortedSink) unstream(n int64) error {
	p.lines.close()
	p.lines = nil
	p.pending, p.head, p.arena, p.live, p.last = p.pending[:0], 0, p.arena[:0], 0, -1
	return p.replay(n)
}

func (p *sortedSink) key(e pendingKey) []byte { return p.arena[e.off : e.off+e.n] }

// add hands over the sort key k (NUL at hx, the length of its HxPx key,
// when it has a query; hx == len(k) when not). k is as it was when add
// returns, but its NUL is a '?' while add runs.
func (p *sortedSink) add(k []byte, hx int) error {
	err := p.add1(k, hx)
	if err != errUnstreamed {
		return err
	}
	// The keys of the records before this one to the sorter, then k.
	if err := p.unstream(*p.records - 1); err != nil {
		return err
	}
	if p.unsorted {
		return p.s.Add(k, 1)
	}
	return p.s.Append(k, 1)
}

// add1 is add with the line stream: errUnstreamed when it refuses a key
// or the index is found out of order (every key then goes to the sorter).
func (p *sortedSink) add1(k []byte, hx int) error {
	if p.unsorted {
		return p.s.Add(k, 1)
	}
	if hx < len(k) {
		k[hx] = '?'
	}
	c := 1
	if p.have {
		c = bytes.Compare(k, p.prev)
	}
	if c > 0 {
		p.prev = append(p.prev[:0], k...)
		p.have = true
	}
	if hx < len(k) {
		k[hx] = 0
	}
	switch {
	case c == 0 && p.last >= p.head:
		p.pending[p.last].count++
		return nil
	case c == 0:
		return p.toRun(k, 1) // to the chunk, at or before the last appended
	case c < 0:
		if p.lines != nil {
			p.unsorted = true
			return errUnstreamed
		}
		return p.giveUp(k)
	}
	// Append the least keys while every later record sorts after them.
	for p.head < len(p.pending) {
		e := p.pending[p.head]
		if p.live <= p.maxPending && !passed(p.prev, p.arena[e.off:e.off+e.hx]) {
			break
		}
		if err := p.toRun(p.key(e), e.count); err != nil {
			return err
		}
		p.live -= e.n
		p.head++
	}
	if p.head == len(p.pending) {
		p.pending, p.head, p.arena, p.last = p.pending[:0], 0, p.arena[:0], -1
	} else if p.head > 64 && p.head > len(p.pending)/2 || len(p.arena) > 2*p.maxPending {
		p.compact()
	}
	e := pendingKey{off: len(p.arena), n: len(k), hx: hx, count: 1}
	p.arena = append(p.arena, k...)
	p.live += len(k)
	// Where k goes: mostly after every pending key, else (the query of
	// an HxPx key whose longer neighbours are pending) before some. A key
	// without a query sorts after them all: each is an earlier record's
	// index key at most, or below it with its '?' made a NUL, and so
	// below k, which is above the last record's.
	i := len(p.pending)
	if hx < len(k) && i > p.head && bytes.Compare(k, p.key(p.pending[i-1])) < 0 {
		lo, hi := p.head, i-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if bytes.Compare(p.key(p.pending[m]), k) < 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		i = lo
	}
	p.pending = append(p.pending, pendingKey{})
	copy(p.pending[i+1:], p.pending[i:])
	p.pending[i] = e
	p.last = i
	return nil
}

// compact moves the pending keys to the start of pending and of an arena,
// the one they were in and spare taking turns.
func (p *sortedSink) compact() {
	live := p.pending[p.head:]
	arena := p.spare[:0]
	for i, e := range live {
		off := len(arena)
		arena = append(arena, p.key(e)...)
		live[i].off = off
	}
	n := copy(p.pending, live)
	p.last -= p.head
	p.pending, p.head = p.pending[:n], 0
	p.arena, p.spare = arena, p.arena[:0]
}

// giveUp ends the streaming: the pending keys and k go to the chunk.
func (p *sortedSink) giveUp(k []byte) error {
	p.unsorted = true
	for _, e := range p.pending[p.head:] {
		if err := p.s.Add(p.key(e), e.count); err != nil {
			return err
		}
	}
	p.pending, p.head, p.arena, p.live, p.last = nil, 0, nil, 0, -1
	return p.s.Add(k, 1)
}

// finish appends the pending keys, all final at the end of the input.
func (p *sortedSink) finish() error {
	for p.head < len(p.pending) {
		e := p.pending[p.head]
		if err := p.toRun(p.key(e), e.count); err == errUnstreamed {
			return p.unstream(*p.records)
		} else if err != nil {
			return err
		}
		p.head++
	}
	p.pending, p.head, p.arena, p.live, p.last = p.pending[:0], 0, p.arena[:0], 0, -1
	return nil
}

// passed reports whether the index key a sorts at or after h + "@", past
// the bare HxPx key h and its queries.
func passed(a, h []byte) bool {
	bound := h
	if len(a) <= len(bound) {
		return bytes.Compare(a, bound) > 0 // a prefix of bound sorts before it
	}
	if c := bytes.Compare(a[:len(bound)], bound); c != 0 {
		return c > 0
	}
	return a[len(bound)] >= '@'
}
