package cdxj

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/mementokit/mementokit/timestamp"
)

// DefaultMaxBuffered is the number of lines Run holds, when
// RunOptions.MaxBuffered is 0, to answer sort=reverse, sort=closest or a
// negative limit: 100,000, pywb's default limit.
const DefaultMaxBuffered = 100_000

// DefaultPageSize is the number of ZipNum blocks per page when a paged
// request gives no pageSize= and RunOptions.PageSize is 0: 10, pywb's
// max_blocks default.
const DefaultPageSize = 10

// RunOptions sets up Run, NumPages and PagedIndex. nil means the defaults.
type RunOptions struct {
	// MaxBuffered bounds the lines held in memory for an answer that cannot
	// stream: sort=reverse, sort=closest and a negative limit hold the
	// last (or closest) max(|limit|) lines, and without a limit all of
	// them. A request that needs more gives an error wrapping
	// ErrTooManyLines instead of a cut answer. 0 means DefaultMaxBuffered.
	// A held line costs HeldBytes of memory (about 0.4 KB for a CDXJ line
	// of 250 bytes: 40 MB for DefaultMaxBuffered such lines).
	MaxBuffered int
	// PageSize is the number of blocks per page of a request without
	// pageSize=; 0 means DefaultPageSize.
	PageSize int
	// Context, when not nil, ends Run early: once it is done, Run yields
	// context.Cause(Context) and stops, checking every 1024 index records
	// it reads, so that a request whose client went away does not read on
	// to the end of the index for lines nobody will see (a filter that
	// matches nothing reads every record of the url's range).
	Context context.Context
	// Hold, when not nil, accounts the memory an answer that cannot stream
	// holds: Run calls it with the bytes of each record before holding it
	// (HeldBytes), and with their negation when it lets one go (replaced
	// by a later or closer record, or at the end of the iteration,
	// however it ends). An error from a call with n > 0 ends Run: it is
	// yielded, before any record, and nothing more is held. A server
	// bounds what all its requests hold together with it.
	Hold func(n int64) error
}

// HeldBytes is the memory one record of line bytes costs while Run holds it
// for sort=reverse, sort=closest or a negative limit: the line's bytes,
// rounded up to the allocator's 16-byte step, and heldOverhead bytes of
// bookkeeping; the record is parsed again when it is yielded. For a CDXJ
// line of 250 bytes that is about 0.4 KB (a parsed Record held whole
// costs 1.3 to 3.5 KB).
func HeldBytes(line int) int64 {
	return int64(line+15)&^15 + heldOverhead
}

// heldOverhead is the bookkeeping of one held record: its heldRecord (a
// slice header, a layout pointer, two offsets, a string header and a
// pointer) and its place in the ring or heap.
const heldOverhead = int64(unsafe.Sizeof(closeRec{}))

func (o *RunOptions) maxBuffered() int {
	if o != nil && o.MaxBuffered > 0 {
		return o.MaxBuffered
	}
	return DefaultMaxBuffered
}

func (o *RunOptions) pageSize(r *Request) int {
	if r.PageSize > 0 {
		return r.PageSize
	}
	if o != nil && o.PageSize > 0 {
		return o.PageSize
	}
	return DefaultPageSize
}

// ErrTooManyLines is wrapped by the error of a request that would hold
// more lines in memory than RunOptions.MaxBuffered allows (sort=reverse or
// sort=closest without a small enough limit).
var ErrTooManyLines = errors.New("cdxj: too many lines to hold")

// PageError is the error of a paged request past the last page. Its
// message is pywb's: "Page 10 invalid: First Page is 0, Last Page is 9".
// It wraps ErrQuery (a CDX server answers it with 400).
type PageError struct {
	Page  int // the page asked for
	Pages int // the number of pages of the answer (at least 1)
}

// Error returns pywb's message for e.
func (e *PageError) Error() string {
	return fmt.Sprintf("Page %d invalid: First Page is 0, Last Page is %d", e.Page, e.Pages-1)
}

// Unwrap returns ErrQuery.
func (e *PageError) Unwrap() error { return ErrQuery }

// PageCount is the answer to showNumPages=true, in pywb's JSON form
// {"pages": 4, "pageSize": 10, "blocks": 38}.
type PageCount struct {
	Pages    int `json:"pages"`    // pages of PageSize blocks (0 when nothing matches)
	PageSize int `json:"pageSize"` // blocks per page
	Blocks   int `json:"blocks"`   // ZipNum blocks the answer spans
}

// timeless returns q without its timestamp bounds: pages are counted and
// cut over the key range alone (pywb's page count ignores from= and to=),
// so that every page of a request is cut from the same blocks whatever its
// bounds; Run applies the bounds to the lines.
func timeless(q Query) Query {
	q.From, q.To, q.Limit = "", "", 0
	return q
}

// NumPages answers r's showNumPages=true over s, as pywb does over a
// ZipNum cluster: Pages is the number of pages of PageSize blocks the
// key range spans, Blocks the number of blocks; when the range falls in a
// single block that holds no line of it, both are 0. A source that is not
// a Pager gives an error wrapping ErrNoPaging.
func (r *Request) NumPages(s Searcher, o *RunOptions) (PageCount, error) {
	p, ok := s.(Pager)
	if !ok {
		return PageCount{}, fmt.Errorf("%w: this index is a %s", ErrNoPaging, sourceKind(s))
	}
	q, err := r.Query()
	if err != nil {
		return PageCount{}, err
	}
	ps := o.pageSize(r)
	q = timeless(q)
	pages, blocks, err := p.Pages(q, ps)
	if err != nil {
		return PageCount{}, err
	}
	if blocks == 1 {
		// The block that may hold the range's first line: read it to tell
		// whether anything is there (pywb does the same).
		found := false
		for _, err := range p.PageRecords(q, 0, ps) {
			if err != nil {
				var pe *ParseError
				if errors.As(err, &pe) {
					found = true // a line of the range, bad as it is
					break
				}
				return PageCount{}, err
			}
			found = true
			break
		}
		if !found {
			pages, blocks = 0, 0
		}
	}
	return PageCount{Pages: pages, PageSize: ps, Blocks: blocks}, nil
}

// PagedIndex answers r's showPagedIndex=true over s: the secondary-index
// entries of the blocks of page r.Page (of all pages when r is not paged).
// A page past the last is a *PageError; a source that is not a Pager
// gives an error wrapping ErrNoPaging.
func (r *Request) PagedIndex(s Searcher, o *RunOptions) iter.Seq2[IdxEntry, error] {
	return func(yield func(IdxEntry, error) bool) {
		p, ok := s.(Pager)
		if !ok {
			yield(IdxEntry{}, fmt.Errorf("%w: this index is a %s", ErrNoPaging, sourceKind(s)))
			return
		}
		q, err := r.Query()
		if err != nil {
			yield(IdxEntry{}, err)
			return
		}
		q = timeless(q)
		ps := o.pageSize(r)
		first, last := 0, -1
		if r.Paged {
			pages, _, err := p.Pages(q, ps)
			if err != nil {
				yield(IdxEntry{}, err)
				return
			}
			if pages > 0 && r.Page >= pages {
				yield(IdxEntry{}, &PageError{Page: r.Page, Pages: pages})
				return
			}
			first, last = r.Page, r.Page
		}
		for page := first; last < 0 || page <= last; page++ {
			n := 0
			for e, err := range p.PageBlocks(q, page, ps) {
				if err != nil {
					yield(IdxEntry{}, err)
					return
				}
				n++
				if !yield(e, nil) {
					return
				}
			}
			if n < ps {
				return
			}
		}
	}
}

func sourceKind(s Searcher) string {
	switch s.(type) {
	case *Sorted:
		return "sorted file"
	case *File:
		return "index file"
	case *Stream:
		return "stream"
	case *merged:
		return "merge of several indexes"
	}
	return fmt.Sprintf("%T", s)
}

// Run answers r over s: the records that match r's url, matchType, from
// and to, that pass its filters and its collapsing, in the order and up
// to the limit it asks for. A paged request (page=) reads only that page's
// blocks and needs a Pager (ErrNoPaging otherwise); a page past the last
// is a *PageError. Run does not look at ShowNumPages or ShowPagedIndex
// (see NumPages and PagedIndex) nor at Output (see AppendRecord).
//
// The steps follow pywb's (cdxops.py): filters, then collapsing, then
// sort and limit. A line that does not parse is yielded as its error
// (naming its place) and the iteration goes on if the loop continues;
// any other error ends it. In index order the answer streams, and a
// record is valid until the next iteration; sort=reverse, sort=closest
// and a negative limit hold up to RunOptions.MaxBuffered records (see
// there) and yield copies.
//
// sort=closest orders by the distance of each timestamp from Closest at
// millisecond precision, an equal distance keeping index order; it keeps
// the |limit| closest (or, without limit, all). For an exact match, whose
// lines are in time order, it stops reading once lines only get farther.
func (r *Request) Run(s Searcher, o *RunOptions) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		q, err := r.Query()
		if err != nil {
			yield(nil, err)
			return
		}
		plain := len(r.Filters) == 0 && len(r.Collapse) == 0 && r.Sort == SortIndex && r.Limit > 0
		var src iter.Seq2[*Record, error]
		var lo, hi string
		if r.Paged {
			p, ok := s.(Pager)
			if !ok {
				yield(nil, fmt.Errorf("%w: this index is a %s", ErrNoPaging, sourceKind(s)))
				return
			}
			ps := o.pageSize(r)
			tq := timeless(q)
			pages, _, err := p.Pages(tq, ps)
			if err != nil {
				yield(nil, err)
				return
			}
			if pages > 0 && r.Page >= pages {
				yield(nil, &PageError{Page: r.Page, Pages: pages})
				return
			}
			src = p.PageRecords(tq, r.Page, ps)
			if lo, hi, err = timestamp.Bounds(q.From, q.To); err != nil {
				yield(nil, fmt.Errorf("%w: %v", ErrQuery, err))
				return
			}
		} else {
			if plain {
				q.Limit = r.Limit
			}
			src = s.Records(q)
		}
		bounded := lo != "" || hi != ""
		collapseLast := make([]string, len(r.Collapse))
		collapseSeen := false
		pass := func(rec *Record) bool {
			if bounded && !timestamp.InRange(rec.Timestamp(), lo, hi) {
				return false
			}
			for i := range r.Filters {
				if !r.Filters[i].Match(rec) {
					return false
				}
			}
			if len(r.Collapse) > 0 {
				same := collapseSeen
				for i, c := range r.Collapse {
					k := c.key(rec)
					if k != collapseLast[i] {
						same = false
					}
					collapseLast[i] = k
				}
				collapseSeen = true
				if same {
					return false
				}
			}
			return true
		}
		out := newRunSink(r, o.maxBuffered(), q.Match == MatchExact)
		if o != nil {
			out.hold = o.Hold
		}
		defer out.release()
		var ctx context.Context
		if o != nil {
			ctx = o.Context
		}
		read := 0
		for rec, err := range src {
			if read++; read%1024 == 0 && ctx != nil && ctx.Err() != nil {
				yield(nil, context.Cause(ctx))
				return
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					yield(nil, err)
					return
				}
				if !yield(nil, err) {
					return
				}
				continue
			}
			if !pass(rec) {
				continue
			}
			more, err := out.add(rec, yield)
			if err != nil {
				yield(nil, err)
				return
			}
			if !more {
				break
			}
		}
		out.flush(yield)
	}
}

// runSink applies sort and limit.
type runSink struct {
	r       *Request
	max     int
	exact   bool
	n       int          // records yielded (index order) or seen
	stopped bool         // the consumer stopped
	ring    []heldRecord // last-N buffer (reverse, negative limit)
	start   int          // ring start once full
	all     bool         // reverse without limit: keep everything
	// closest
	target time.Time
	heap   []closeRec // max-heap by (dist, seq)
	keep   int
	// accounting (RunOptions.Hold)
	hold func(int64) error
	held int64 // bytes held, as reported to hold
}

type closeRec struct {
	dist time.Duration
	seq  int
	rec  heldRecord
}

// heldRecord is a record while Run holds it: its line and where it came
// from, without the parse (a Record is 900 bytes before its line), which
// record redoes when it is yielded.
type heldRecord struct {
	line   []byte
	layout *Layout
	lineNo int64
	inOff  int64
	src    string
	lines  *lineCounter
}

// take returns a heldRecord of a copy of rec's line, accounted with hold.
func (s *runSink) take(rec *Record) (heldRecord, error) {
	n := HeldBytes(len(rec.line))
	if s.hold != nil {
		if err := s.hold(n); err != nil {
			return heldRecord{}, err
		}
	}
	s.held += n
	return heldRecord{line: append([]byte(nil), rec.line...), layout: rec.layout,
		lineNo: rec.lineNo, inOff: rec.inOff, src: rec.src, lines: rec.lines}, nil
}

// drop lets h go.
func (s *runSink) drop(h heldRecord) {
	n := HeldBytes(len(h.line))
	s.held -= n
	if s.hold != nil {
		s.hold(-n)
	}
}

// release lets everything held go, once Run ends.
func (s *runSink) release() {
	if s.hold != nil && s.held > 0 {
		s.hold(-s.held)
	}
	s.held = 0
	s.ring, s.heap = nil, nil
}

// record parses h again into a Record of its own, as Record.Clone makes.
func (h *heldRecord) record() *Record {
	c := new(Record)
	// Parsing the bytes that parsed when held, with the same layout,
	// cannot fail.
	if err := c.parse(h.line, h.layout, nil); err != nil {
		c.reset(h.line)
	}
	c.lineNo, c.inOff, c.src, c.lines = h.lineNo, h.inOff, h.src, h.lines
	return c
}

func newRunSink(r *Request, max int, exact bool) *runSink {
	s := &runSink{r: r, max: max, exact: exact}
	if r.Sort == SortClosest {
		t, _ := timestamp.Parse(r.Closest)
		s.target = t
		s.keep = abs(r.Limit)
		if s.keep == 0 {
			s.keep = -1 // all, up to max
		}
	}
	return s
}

// abs returns |n|, and math.MaxInt for math.MinInt (whose negation
// overflows back to itself).
func abs(n int) int {
	if n == math.MinInt {
		return math.MaxInt
	}
	if n < 0 {
		return -n
	}
	return n
}

// add takes one record; more is false when nothing more is wanted.
func (s *runSink) add(rec *Record, yield func(*Record, error) bool) (more bool, err error) {
	r := s.r
	switch {
	case r.Sort == SortClosest:
		return s.addClosest(rec)
	case r.Sort == SortIndex && r.Limit >= 0:
		s.n++
		if !yield(rec, nil) {
			s.stopped = true
			return false, nil
		}
		return r.Limit == 0 || s.n < r.Limit, nil
	}
	// A buffer of the last records: reverse (with or without limit) or a
	// negative limit.
	n := abs(r.Limit)
	if n == 0 {
		if len(s.ring) >= s.max {
			return false, fmt.Errorf("%w: sort=reverse over more than %d lines; give a limit", ErrTooManyLines, s.max)
		}
		h, err := s.take(rec)
		if err != nil {
			return false, err
		}
		s.ring = append(s.ring, h)
		return true, nil
	}
	if n > s.max {
		return false, fmt.Errorf("%w: limit=%d needs to hold %d lines, more than %d", ErrTooManyLines, r.Limit, n, s.max)
	}
	if len(s.ring) < n {
		h, err := s.take(rec)
		if err != nil {
			return false, err
		}
		s.ring = append(s.ring, h)
		return true, nil
	}
	// The oldest goes before the newest is taken: a full ring holds n.
	s.drop(s.ring[s.start])
	h, err := s.take(rec)
	if err != nil {
		s.ring = nil
		return false, err
	}
	s.ring[s.start] = h
	s.start = (s.start + 1) % n
	return true, nil
}

func (s *runSink) addClosest(rec *Record) (bool, error) {
	d := rec.Time().Sub(s.target)
	after := d > 0
	if d < 0 {
		d = -d
	}
	keep := s.keep
	if keep < 0 {
		if len(s.heap) >= s.max {
			return false, fmt.Errorf("%w: sort=closest over more than %d lines; give a limit", ErrTooManyLines, s.max)
		}
	} else if keep > s.max {
		return false, fmt.Errorf("%w: limit=%d needs to hold %d lines, more than %d", ErrTooManyLines, s.r.Limit, keep, s.max)
	}
	c := closeRec{dist: d, seq: s.n}
	s.n++
	if keep >= 0 && len(s.heap) == keep {
		top := s.heap[0]
		if !less(c, top) {
			// No closer than the farthest kept: for an exact match, whose
			// lines come in time order, every later line is farther still.
			return !(s.exact && after), nil
		}
		s.drop(top.rec)
		h, err := s.take(rec)
		if err != nil {
			s.heap = nil
			return false, err
		}
		c.rec = h
		s.heap[0] = c
		s.down(0)
		return true, nil
	}
	h, err := s.take(rec)
	if err != nil {
		return false, err
	}
	c.rec = h
	s.heap = append(s.heap, c)
	s.up(len(s.heap) - 1)
	return true, nil
}

func less(a, b closeRec) bool {
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	return a.seq < b.seq
}

// The heap keeps its farthest record at the top.
func (s *runSink) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(s.heap[p], s.heap[i]) {
			return
		}
		s.heap[p], s.heap[i] = s.heap[i], s.heap[p]
		i = p
	}
}

func (s *runSink) down(i int) {
	for {
		l, m := 2*i+1, i
		if l < len(s.heap) && less(s.heap[m], s.heap[l]) {
			m = l
		}
		if r := l + 1; r < len(s.heap) && less(s.heap[m], s.heap[r]) {
			m = r
		}
		if m == i {
			return
		}
		s.heap[m], s.heap[i] = s.heap[i], s.heap[m]
		i = m
	}
}

// flush yields what was held.
func (s *runSink) flush(yield func(*Record, error) bool) {
	if s.stopped {
		return
	}
	r := s.r
	switch {
	case r.Sort == SortClosest:
		// Pop the farthest first into the back of the answer.
		out := make([]heldRecord, len(s.heap))
		for i := len(s.heap) - 1; i >= 0; i-- {
			out[i] = s.heap[0].rec
			last := len(s.heap) - 1
			s.heap[0] = s.heap[last]
			s.heap = s.heap[:last]
			s.down(0)
		}
		for i := range out {
			if !yield(out[i].record(), nil) {
				return
			}
		}
	case r.Sort == SortIndex && r.Limit >= 0:
	default:
		n := len(s.ring)
		at := func(i int) *Record { return s.ring[(s.start+i)%n].record() }
		if r.Sort == SortReverse {
			for i := n - 1; i >= 0; i-- {
				if !yield(at(i), nil) {
					return
				}
			}
			return
		}
		for i := range n {
			if !yield(at(i), nil) {
				return
			}
		}
	}
}

// AppendRecord appends rec to dst as one line of r's output (newline
// included), with r.Fields when set:
//
//   - OutputCDXJ: a CDXJ record's line as it is; a classic CDX record as
//     "urlkey timestamp {json}" whose JSON block holds each other column
//     of its line in order, under pywb's names, "-" kept, as pywb writes a
//     stored CDX line; with Fields, "urlkey timestamp {json}" whose JSON
//     block holds the other fields asked for.
//   - OutputJSON: {"urlkey": ..., "timestamp": ..., then the members of
//     the CDXJ form}; with Fields, those fields in that order.
//   - OutputText: the fields of the stored line in their order, as pywb
//     writes a capture it holds as fields: a classic CDX record's line as
//     it is; for a CDXJ record the key, the timestamp and the value of
//     each member of its JSON block (a string decoded, any other value as
//     its JSON text), so that a capture a CDX server answered as JSON
//     reads as the CDX line it was stored as; with Fields, those fields.
//     An unknown or empty value is "-"; a space inside a value other than
//     the MIME type is written %20 so that the line splits back into its
//     fields.
//
// With Fields, a field with no value is left out of the JSON forms. An error is the
// *ParseError of a CDXJ record whose JSON block is malformed; dst is then
// returned unchanged.
func (r *Request) AppendRecord(dst []byte, rec *Record) ([]byte, error) {
	start := len(dst)
	var err error
	switch r.Output {
	case OutputJSON:
		dst, err = appendJSONRecord(dst, rec, r.Fields)
	case OutputText:
		dst, err = appendTextRecord(dst, rec, r.Fields)
	default:
		if r.Fields == nil {
			if rec.IsCDXJ() {
				if err := rec.CheckJSON(); err != nil {
					return dst, err
				}
				dst = append(append(dst, rec.Line()...), '\n')
				return dst, nil
			}
			dst = appendKeyTS(dst, rec)
			dst = append(dst, " {"...)
			dst = appendStoredMembers(dst, rec)
			return append(dst, "}\n"...), nil
		}
		dst = appendKeyTS(dst, rec)
		dst = append(dst, " {"...)
		first := true
		for _, name := range r.Fields {
			if name == "urlkey" || name == "timestamp" {
				continue
			}
			dst, first, err = appendMember(dst, rec, name, first)
			if err != nil {
				break
			}
		}
		dst = append(dst, "}\n"...)
	}
	if err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// appendStoredMembers appends, for a classic CDX record, the JSON members
// `"name": "value"` of each of its columns but the key and the timestamp,
// in column order, under pywb's names (url, mime, status, digest,
// redirect, robotflags, length, offset, filename, orig.length,
// orig.offset, orig.filename; another column under its legend name), an
// unknown value kept as "-": pywb's JSON form of a stored CDX line, which
// keeps every field of it.
func appendStoredMembers(dst []byte, rec *Record) []byte {
	l := rec.layout
	first := true
	for c, f := range l.cols {
		var name string
		switch f {
		case fKey, fTimestamp:
			continue
		case fOrigLength:
			name = "orig.length"
		case fOrigOffset:
			name = "orig.offset"
		case fOrigFilename:
			name = "orig.filename"
		case fNone:
			for _, o := range l.other {
				if o.col == c {
					name = o.name
				}
			}
		default:
			name = jsonNames[f][0]
		}
		if name == "" {
			continue
		}
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		s := rec.spans[c]
		dst = appendJSONString(dst, name)
		dst = append(dst, ": "...)
		dst = appendJSONString(dst, rec.line[s[0]:s[1]])
	}
	return dst
}

func appendKeyTS(dst []byte, rec *Record) []byte {
	dst = appendEscapedKey(dst, rec.Key())
	dst = append(dst, ' ')
	return append(dst, rec.Timestamp()...)
}

// appendMember appends `"name": value` for one field of rec, when known.
func appendMember(dst []byte, rec *Record, name string, first bool) ([]byte, bool, error) {
	raw, ok, err := rawField(rec, name)
	if err != nil || !ok {
		return dst, first, err
	}
	if !first {
		dst = append(dst, ", "...)
	}
	dst = appendJSONString(dst, name)
	dst = append(dst, ": "...)
	return append(dst, raw...), false, nil
}

// rawField returns the JSON text of field name of rec: a CDXJ member as
// written, any other value as a JSON string.
func rawField(rec *Record, name string) ([]byte, bool, error) {
	name = canonicalField(name)
	if rec.IsCDXJ() {
		if err := rec.CheckJSON(); err != nil {
			return nil, false, err
		}
		if _, known := wellKnown[name]; !known && name != "urlkey" && name != "timestamp" {
			raw, ok, err := rec.RawField(name)
			if err != nil || !ok || string(raw) == `"-"` {
				return nil, false, err
			}
			return raw, true, nil
		}
	}
	v, ok := FieldValue(rec, name)
	if !ok {
		return nil, false, nil
	}
	return appendJSONString(nil, v), true, nil
}

func appendJSONRecord(dst []byte, rec *Record, fields []string) ([]byte, error) {
	if fields == nil {
		var block []byte // the JSON block of the CDXJ form
		if rec.IsCDXJ() {
			if err := rec.CheckJSON(); err != nil {
				return dst, err
			}
			block = bytes.TrimSpace(rec.JSON())
		} else {
			block = append(appendStoredMembers([]byte{'{'}, rec), '}')
		}
		dst = append(dst, `{"urlkey": `...)
		dst = appendJSONString(dst, rec.Key())
		dst = append(dst, `, "timestamp": `...)
		dst = appendJSONString(dst, rec.Timestamp())
		if inner := bytes.TrimSpace(block[1 : len(block)-1]); len(inner) > 0 {
			dst = append(dst, ", "...)
			dst = append(dst, inner...)
		}
		return append(dst, "}\n"...), nil
	}
	dst = append(dst, '{')
	first := true
	var err error
	for _, name := range fields {
		if dst, first, err = appendMember(dst, rec, name, first); err != nil {
			return dst, err
		}
	}
	return append(dst, "}\n"...), nil
}

func appendTextRecord(dst []byte, rec *Record, fields []string) ([]byte, error) {
	if fields == nil {
		if !rec.IsCDXJ() {
			return append(append(dst, rec.Line()...), '\n'), nil
		}
		return appendTextCDXJ(dst, rec)
	}
	for i, name := range fields {
		if i > 0 {
			dst = append(dst, ' ')
		}
		v, ok := FieldValue(rec, name)
		dst = appendTextValue(dst, v, ok && canonicalField(name) == "mime")
	}
	return append(dst, '\n'), nil
}

// appendTextCDXJ appends the text line of a CDXJ record: its key, its
// timestamp and the values of its JSON block's members in their order.
func appendTextCDXJ(dst []byte, rec *Record) ([]byte, error) {
	start := len(dst)
	dst = appendTextValue(dst, string(rec.Key()), false)
	dst = append(dst, ' ')
	dst = appendTextValue(dst, string(rec.Timestamp()), false)
	var scratch []byte
	bad := false
	err := rec.Fields(func(key, raw []byte) bool {
		v := raw
		if raw[0] == '"' {
			s, sc, ok := unquote(raw, scratch[:0])
			if !ok {
				bad = true
				return false
			}
			v, scratch = s, sc
		}
		dst = append(dst, ' ')
		dst = appendTextValue(dst, string(v), canonicalField(string(key)) == "mime")
		return true
	})
	if err == nil && bad {
		err = rec.CheckJSON()
		if err == nil {
			err = rec.ParseError(causef(ErrJSON, "a string with a bad escape in the JSON block"))
		}
	}
	if err != nil {
		return dst[:start], err
	}
	return append(dst, '\n'), nil
}

// appendTextValue appends one field of a text line: "-" for an empty or
// unknown ("-") value, else v with its spaces and line breaks
// percent-encoded (a MIME type keeps its spaces, as CDX lines hold it).
func appendTextValue(dst []byte, v string, mime bool) []byte {
	if v == "" || v == "-" {
		return append(dst, '-')
	}
	if !mime {
		return appendEscapedKey(dst, v)
	}
	for j := 0; j < len(v); j++ {
		switch c := v[j]; c {
		case '\n':
			dst = append(dst, "%0A"...)
		case '\r':
			dst = append(dst, "%0D"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// AppendIdxEntry appends e to dst as one line of a showPagedIndex answer:
// in OutputJSON pywb's {"urlkey": ..., "part": ..., "offset": N, "length":
// N, "lineno": N}, otherwise the classic tab-separated secondary-index
// line.
func AppendIdxEntry(dst []byte, e IdxEntry, o Output) []byte {
	if o == OutputJSON {
		dst = append(dst, `{"urlkey": `...)
		dst = appendJSONString(dst, e.Key)
		dst = append(dst, `, "part": `...)
		dst = appendJSONString(dst, e.Part)
		dst = append(dst, `, "offset": `...)
		dst = strconv.AppendInt(dst, e.Offset, 10)
		dst = append(dst, `, "length": `...)
		dst = strconv.AppendInt(dst, e.Length, 10)
		if e.Block > 0 {
			dst = append(dst, `, "lineno": `...)
			dst = strconv.AppendInt(dst, e.Block, 10)
		}
		return append(dst, "}\n"...)
	}
	dst = append(dst, e.Key...)
	dst = append(dst, '\t')
	dst = append(dst, e.Part...)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, e.Offset, 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, e.Length, 10)
	if e.Block > 0 {
		dst = append(dst, '\t')
		dst = strconv.AppendInt(dst, e.Block, 10)
	}
	return append(dst, '\n')
}
