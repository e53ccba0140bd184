package memento

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Memento is one capture of an original resource (RFC 7089 §1.1).
type Memento struct {
	// URIM is the memento's URI, resolved (see Link.Target).
	URIM string
	// Datetime is its Memento-Datetime, in UTC, at one-second precision.
	Datetime time.Time
	// Archive is the id of the archive that listed the memento, where a
	// list merges several archives' TimeMaps (an aggregator's answer,
	// github.com/mementokit/mementokit/aggregator); empty in a TimeMap
	// read from one source. Readers leave it empty; writers do not write it.
	Archive string
	// Rel holds the relation types the source gave the link ("memento",
	// "first", "last", ...); read-only, it may be shared with other
	// mementos. Writers recompute first/last from position and ignore it.
	Rel []string
	// Extra holds the link's other parameters (license, collection, ...),
	// without rel and datetime.
	Extra []Param
}

// Page is a link to a TimeMap (rel="timemap" or rel="self"): another page
// of the same TimeMap, a TimeMap of another archive in an index, or the same
// TimeMap in another format (RFC 7089 §5).
type Page struct {
	URI  string
	Type string // media type ("application/link-format"), may be empty
	// From and Until bound the mementos the page lists; zero when absent.
	From, Until time.Time
	// Params holds the link's other parameters (title, ...), without rel,
	// type, from and until.
	Params []Param
}

// TimeMap is the list of mementos of one original resource
// (RFC 7089 §5) together with its navigation links. After ReadTimeMap,
// NewTimeMap or Sort, Mementos is sorted by Datetime, then by URIM
// (byte-wise); identical (URIM, Datetime) pairs appear once, distinct
// URI-Ms with the same datetime are all kept.
type TimeMap struct {
	// Original is the URI-R: the target of the first rel="original" link,
	// resolved against the document's URI (see Link.Target).
	Original string
	// RawOriginal is that target exactly as the archive wrote it (see
	// Link.RawTarget): a relative or scheme-relative "original" of a page
	// is kept as written, for callers that compare or report it.
	RawOriginal string
	// TimeGate is the first rel="timegate" link's target; empty if none.
	TimeGate string
	// Self is the rel="self" link: the TimeMap's own URI, media type and
	// optional from/until. Self.URI is empty when the TimeMap names none.
	Self Page
	// Pages holds the rel="timemap" links (sibling pages, per-archive
	// TimeMaps in an index, other formats), in input order.
	Pages []Page
	// Mementos is sorted as described above.
	Mementos []Memento
	// Invalid counts memento links dropped by a lenient read because their
	// datetime was missing or not a date; Duplicates counts identical
	// (URIM, Datetime) entries removed by Sort.
	Invalid, Duplicates int
}

// TimeMap errors.
var (
	// ErrMementoDatetime: a memento link has no datetime or one that is not
	// an rfc1123-date (strict reads only; lenient reads drop and count it).
	ErrMementoDatetime = errors.New("memento link without a valid datetime")
	// ErrTooManyMementos: a TimeMap lists more than ParseOptions.MaxMementos.
	ErrTooManyMementos = errors.New("too many mementos")
)

// ReadTimeMap reads an application/link-format TimeMap body (RFC 7089 §5)
// with a streaming Reader and returns it sorted. Memory holds the mementos
// (about 200 bytes each plus their URIs) and one link-value; bound it with
// opts.MaxMementos. In strict mode a syntax error or a memento link without
// a valid rfc1123-date datetime stops the read with an error naming the
// byte offset; in lenient mode (the default) the datetime is also read in
// the variants ParseHTTPDateLenient accepts, and memento links without a
// usable datetime are counted in Invalid and skipped (never given a guessed
// date). On error the TimeMap holds what was read before it.
func ReadTimeMap(r io.Reader, opts *ParseOptions) (*TimeMap, error) {
	o := opts.orDefault()
	lr := NewReader(r, &o)
	lr.scratchParams = true // add copies the parameters it keeps
	tm := &TimeMap{}
	if lh, ok := r.(interface{ Len() int }); ok && lh.Len() > 0 {
		// A size hint (bytes.Reader, strings.Reader, the client's body
		// with a Content-Length): a memento link takes 100 bytes or more.
		n := lh.Len()/100 + 8
		if o.MaxMementos > 0 {
			n = min(n, o.MaxMementos)
		}
		tm.Mementos = make([]Memento, 0, n)
	}
	var err error
	for {
		var l Link
		l, err = lr.Read()
		if err != nil {
			break
		}
		if err = tm.add(&l, &o, lr.links); err != nil {
			break
		}
	}
	switch n := len(tm.Mementos); {
	case n == 0:
		tm.Mementos = nil
	case cap(tm.Mementos) > 2*n+64:
		// The size hint was far too high (an index of other TimeMaps).
		tm.Mementos = slices.Clip(slices.Clone(tm.Mementos))
	}
	tm.Sort()
	if err == io.EOF {
		return tm, nil
	}
	return tm, err
}

// NewTimeMap builds a sorted TimeMap from parsed links, such as those of a
// TimeGate's Link header. opts (may be nil) selects strict or lenient
// datetime handling as for ReadTimeMap.
func NewTimeMap(links []Link, opts *ParseOptions) (*TimeMap, error) {
	o := opts.orDefault()
	tm := &TimeMap{}
	for i := range links {
		if err := tm.add(&links[i], &o, i+1); err != nil {
			tm.Sort()
			return tm, err
		}
	}
	tm.Sort()
	return tm, nil
}

// add files one link into tm (unsorted); idx is its 1-based position for
// errors.
func (tm *TimeMap) add(l *Link, o *ParseOptions, idx int) error {
	if l.IsMemento() {
		dv, ok := l.Param("datetime")
		var dt time.Time
		var err error
		if !ok {
			err = ErrMementoDatetime
		} else if o.Strict {
			dt, err = ParseHTTPDate(dv)
		} else {
			dt, err = ParseHTTPDateLenient(dv)
		}
		if err != nil {
			if o.Strict {
				return &ParseError{Offset: l.Offset, Link: idx, Err: fmt.Errorf("%w: %q", ErrMementoDatetime, dv)}
			}
			tm.Invalid++
			if o.Logger != nil {
				o.Logger.Debug("memento: dropped memento link", "target", l.Target, "offset", l.Offset, "datetime", dv)
			}
		} else {
			if o.MaxMementos > 0 && len(tm.Mementos) >= o.MaxMementos {
				return &ParseError{Offset: l.Offset, Link: idx, Err: ErrTooManyMementos}
			}
			m := Memento{URIM: l.Target, Datetime: dt, Rel: l.Rel}
			for _, p := range l.Params {
				if p.Name != "datetime" {
					m.Extra = append(m.Extra, p)
				}
			}
			if len(tm.Mementos) == cap(tm.Mementos) {
				// Double (append grows large slices by 1.25, which
				// copies a big TimeMap many times over).
				grown := make([]Memento, len(tm.Mementos), max(64, 2*cap(tm.Mementos)))
				copy(grown, tm.Mementos)
				tm.Mementos = grown
			}
			tm.Mementos = append(tm.Mementos, m)
		}
	}
	if l.HasRel("original") && tm.Original == "" {
		tm.Original, tm.RawOriginal = l.Target, l.RawTarget
	}
	if l.HasRel("timegate") && tm.TimeGate == "" {
		tm.TimeGate = l.Target
	}
	if l.HasRel("self") && tm.Self.URI == "" {
		tm.Self = pageOf(l, o.Strict)
	}
	if l.HasRel("timemap") {
		tm.Pages = append(tm.Pages, pageOf(l, o.Strict))
	}
	return nil
}

func pageOf(l *Link, strict bool) Page {
	p := Page{URI: l.Target}
	parse := ParseHTTPDateLenient
	if strict {
		parse = ParseHTTPDate
	}
	for _, prm := range l.Params {
		switch prm.Name {
		case "type":
			if p.Type == "" {
				p.Type = prm.Value
			}
		case "from":
			if t, err := parse(prm.Value); err == nil && p.From.IsZero() {
				p.From = t
			}
		case "until":
			if t, err := parse(prm.Value); err == nil && p.Until.IsZero() {
				p.Until = t
			}
		default:
			p.Params = append(p.Params, prm)
		}
	}
	return p
}

// compareMementos orders by datetime, then URI-M byte-wise.
func compareMementos(a, b Memento) int {
	if c := a.Datetime.Compare(b.Datetime); c != 0 {
		return c
	}
	return cmp.Compare(a.URIM, b.URIM)
}

// Sort orders Mementos by Datetime then URIM and merges identical
// (URIM, Datetime) pairs into one, adding their number to Duplicates
// (RFC 7089 §5 lets mementos come in any order; two archives may hold
// captures of the same second, and both are kept). A merged memento has
// the union of the copies' rels (first-seen order: a URI-M listed as
// "memento" and again as "first memento" keeps "first", whichever line
// came first) and of their Extra parameters (by name, the first value
// kept); the copies' Rel slices are not modified. Call it after appending
// mementos, for example when merging the TimeMaps of several archives.
// O(n log n).
func (tm *TimeMap) Sort() {
	if !slices.IsSortedFunc(tm.Mementos, compareMementos) {
		slices.SortStableFunc(tm.Mementos, compareMementos)
	}
	ms := tm.Mementos
	if len(ms) < 2 {
		return
	}
	out := ms[:1]
	for _, m := range ms[1:] {
		last := &out[len(out)-1]
		if m.URIM != last.URIM || !m.Datetime.Equal(last.Datetime) {
			out = append(out, m)
			continue
		}
		last.Rel = unionRels(last.Rel, m.Rel)
		last.Extra = unionParams(last.Extra, m.Extra)
	}
	clear(ms[len(out):]) // release the strings of the dropped copies
	tm.Duplicates += len(ms) - len(out)
	tm.Mementos = out
}

// unionRels returns a followed by the rels of b it lacks
// (case-insensitive); a itself when b adds nothing, else a new slice.
func unionRels(a, b []string) []string {
	var out []string
	for _, r := range b {
		if slices.ContainsFunc(a, func(x string) bool { return strings.EqualFold(x, r) }) ||
			slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, r) }) {
			continue
		}
		out = append(out, r)
	}
	if out == nil {
		return a
	}
	return append(slices.Clip(a), out...)
}

// unionParams returns a followed by the parameters of b whose name a
// lacks; a itself when b adds nothing, else a new slice.
func unionParams(a, b []Param) []Param {
	var out []Param
	for _, p := range b {
		if slices.ContainsFunc(a, func(x Param) bool { return x.Name == p.Name }) ||
			slices.ContainsFunc(out, func(x Param) bool { return x.Name == p.Name }) {
			continue
		}
		out = append(out, p)
	}
	if out == nil {
		return a
	}
	return append(slices.Clip(a), out...)
}

// Merge returns a new TimeMap holding the mementos of every non-nil tms,
// sorted and de-duplicated (see Sort), as an aggregator builds from the
// TimeMaps of several archives. Original and TimeGate come from the first
// TimeMap that has them; Self and Pages are left empty (they belong to the
// merged document's publisher). Invalid and Duplicates add up. The inputs
// are not modified. O(n log n) in the total number of mementos.
func Merge(tms ...*TimeMap) *TimeMap {
	out := &TimeMap{}
	n := 0
	for _, tm := range tms {
		if tm != nil {
			n += len(tm.Mementos)
		}
	}
	out.Mementos = make([]Memento, 0, n)
	for _, tm := range tms {
		if tm == nil {
			continue
		}
		if out.Original == "" {
			out.Original, out.RawOriginal = tm.Original, tm.RawOriginal
		}
		if out.TimeGate == "" {
			out.TimeGate = tm.TimeGate
		}
		out.Mementos = append(out.Mementos, tm.Mementos...)
		out.Invalid += tm.Invalid
		out.Duplicates += tm.Duplicates
	}
	out.Sort()
	return out
}

// Len returns the number of mementos.
func (tm *TimeMap) Len() int { return len(tm.Mementos) }

// First returns the earliest memento (index 0) and false when tm is empty.
func (tm *TimeMap) First() (Memento, bool) {
	if len(tm.Mementos) == 0 {
		return Memento{}, false
	}
	return tm.Mementos[0], true
}

// Last returns the latest memento (the last index) and false when tm is
// empty. With several URI-Ms in the last second it is the byte-wise last.
func (tm *TimeMap) Last() (Memento, bool) {
	if len(tm.Mementos) == 0 {
		return Memento{}, false
	}
	return tm.Mementos[len(tm.Mementos)-1], true
}

// ClosestIndex returns the index of the memento closest to t, or -1 when tm
// is empty. Tie rule: when t lies exactly half-way between two datetimes the
// later memento wins, as the Time Travel TimeGate and MemGator do (RFC 7089
// §4.5.3 leaves the choice to the server). Before the first memento it is
// the first, after the last the last (§4.5.3). Among several URI-Ms of the
// chosen second it returns the first (byte-wise smallest); SameSecond lists
// them all. Mementos must be sorted. O(log n).
func (tm *TimeMap) ClosestIndex(t time.Time) int {
	ms := tm.Mementos
	if len(ms) == 0 {
		return -1
	}
	// j: first memento with Datetime >= t.
	j, _ := slices.BinarySearchFunc(ms, t, func(m Memento, t time.Time) int { return m.Datetime.Compare(t) })
	if j == len(ms) {
		return tm.groupStart(len(ms) - 1)
	}
	if j == 0 || ms[j].Datetime.Equal(t) {
		return j
	}
	before := t.Sub(ms[j-1].Datetime)
	after := ms[j].Datetime.Sub(t)
	if after <= before {
		return j
	}
	return tm.groupStart(j - 1)
}

// groupStart returns the first index with the same Datetime as index i.
func (tm *TimeMap) groupStart(i int) int {
	for i > 0 && tm.Mementos[i-1].Datetime.Equal(tm.Mementos[i].Datetime) {
		i--
	}
	return i
}

// PrevIndex returns the index of the memento that RFC 7089 §2.2.1 calls
// rel="prev" relative to memento i: the latest memento whose datetime is
// strictly before that of memento i (with several URI-Ms in that second, the
// byte-wise last, the list neighbour of i's second). It returns -1 when i is
// in the first second or out of range.
func (tm *TimeMap) PrevIndex(i int) int {
	if i < 0 || i >= len(tm.Mementos) {
		return -1
	}
	return tm.groupStart(i) - 1
}

// NextIndex returns the index of the memento that RFC 7089 §2.2.1 calls
// rel="next" relative to memento i: the earliest memento whose datetime is
// strictly after that of memento i (with several URI-Ms in that second, the
// byte-wise first). It returns -1 when i is in the last second or out of
// range.
func (tm *TimeMap) NextIndex(i int) int {
	if i < 0 || i >= len(tm.Mementos) {
		return -1
	}
	d := tm.Mementos[i].Datetime
	for i < len(tm.Mementos) && tm.Mementos[i].Datetime.Equal(d) {
		i++
	}
	if i == len(tm.Mementos) {
		return -1
	}
	return i
}

// SameSecond returns the mementos that share the datetime of memento i
// (a sub-slice of Mementos, not a copy), or nil when i is out of range.
func (tm *TimeMap) SameSecond(i int) []Memento {
	if i < 0 || i >= len(tm.Mementos) {
		return nil
	}
	s := tm.groupStart(i)
	e := i + 1
	for e < len(tm.Mementos) && tm.Mementos[e].Datetime.Equal(tm.Mementos[i].Datetime) {
		e++
	}
	return tm.Mementos[s:e]
}

// Closest returns the memento closest to t (see ClosestIndex for the tie
// rule) and false when tm is empty.
func (tm *TimeMap) Closest(t time.Time) (Memento, bool) {
	i := tm.ClosestIndex(t)
	if i < 0 {
		return Memento{}, false
	}
	return tm.Mementos[i], true
}

// Prev returns the memento PrevIndex(i) selects, the rel="prev" of memento
// i, and false when there is none. A TimeGate's prev is Prev(ClosestIndex(t)).
func (tm *TimeMap) Prev(i int) (Memento, bool) {
	if p := tm.PrevIndex(i); p >= 0 {
		return tm.Mementos[p], true
	}
	return Memento{}, false
}

// Next returns the memento NextIndex(i) selects, the rel="next" of memento
// i, and false when there is none. A TimeGate's next is Next(ClosestIndex(t)).
func (tm *TimeMap) Next(i int) (Memento, bool) {
	if n := tm.NextIndex(i); n >= 0 {
		return tm.Mementos[n], true
	}
	return Memento{}, false
}
