package mementomap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mementokit/mementokit/timestamp"
	"github.com/mementokit/mementokit/ukvs"
)

// The time key columns a map may declare as its second key column in its
// !fields header (internal/spec/MEMENTOMAP.md, "Time keys"; ORS draft
// ukvs.md, "The datetime Field"):
//
//	!fields {"keys": ["surt", "datetime"], "values": ["frequency"]}
//	com,apple)/* :         300
//	com,apple)/* 2010:2012 100
//	com,apple)/* 2016      120
//
// A "datetime" column holds a [ukvs.DatetimeValue] (a prefix of a 14-digit
// Memento-Datetime, or a range of two, ":" for all time): the line's
// frequency counts the mementos of the key whose Memento-Datetime falls in
// it. An "observed" column holds the 14-digit UTC time at which the line's
// frequency was observed (an observed map): "0" then means
// the archive answered that it held nothing at that time, which is trusted
// for a limited time only ([Map.LookupObserved]). "-" in either column is
// the UKVS placeholder: no time known. The lines of one key are adjacent,
// ordered by the time column byte-wise (ukvs.Check).
const (
	TimeKeyDatetime = "datetime"
	TimeKeyObserved = "observed"
)

// mapLayout is where a map's columns are, from its !fields header.
type mapLayout struct {
	keys    int    // key columns
	freq    int    // the column of the frequency
	timeKey string // TimeKeyDatetime or TimeKeyObserved when the second key column is one
	// fields is the layout every data line is checked against
	// (ukvs.CheckLine): the !fields header's, else ukvs.DefaultFields.
	fields ukvs.Fields
}

var defaultLayout = mapLayout{keys: 1, freq: 1, fields: ukvs.DefaultFields()}

// plain reports whether lines are "KEY FREQUENCY [...]".
func (l mapLayout) plain() bool { return l.keys == 1 && l.freq == 1 }

// layoutOf reads the last !fields header leniently: a header that is not
// valid (relaxed) JSON, or declares no key, leaves the default layout, one
// "surt" key and one "frequency" value (what Open assumes without one).
func layoutOf(hs ukvs.Headers) mapLayout {
	raw := ""
	for _, h := range hs {
		if h.Name == ukvs.HeaderFields {
			raw = h.Raw
		}
	}
	if raw == "" {
		return defaultLayout
	}
	v, err := ukvs.RelaxedJSON([]byte(raw))
	if err != nil {
		return defaultLayout
	}
	var f ukvs.Fields
	if json.Unmarshal(v, &f) != nil || len(f.Keys) == 0 {
		return defaultLayout
	}
	l := mapLayout{keys: len(f.Keys), freq: len(f.Keys), fields: f}
	if i := f.Index("frequency"); i >= 0 {
		l.freq += i
	}
	if len(f.Keys) >= 2 && (f.Keys[1] == TimeKeyDatetime || f.Keys[1] == TimeKeyObserved) {
		l.timeKey = f.Keys[1]
	}
	return l
}

// parseRawHeader splits a header line ("!name value") leniently.
func parseRawHeader(line []byte) ukvs.Header {
	name, raw, _ := strings.Cut(strings.TrimRight(string(bytes.TrimPrefix(line, []byte("!"))), "\r\n"), " ")
	return ukvs.Header{Name: name, Raw: strings.TrimSpace(raw)}
}

// TimeKey returns the map's time key column, TimeKeyDatetime or
// TimeKeyObserved, or "" for a map keyed by SURT alone.
func (m *Map) TimeKey() string { return m.lay.timeKey }

// column returns column i of a data line (columns are separated by runs of
// spaces or tabs), or nil when the line has fewer.
func column(line []byte, i int) []byte {
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	for c := 0; ; c++ {
		for len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			line = line[1:]
		}
		if len(line) == 0 {
			return nil
		}
		j := bytes.IndexAny(line, " \t")
		if j < 0 {
			j = len(line)
		}
		if c == i {
			return line[:j]
		}
		line = line[j:]
	}
}

// timeColumn returns the time key of a line, nil for the placeholder "-".
func timeColumn(line []byte) []byte {
	t := column(line, 1)
	if ukvs.IsUnknown(t) {
		return nil
	}
	return t
}

// keyLine is one line of a key in a map with a time key.
type keyLine struct {
	time  []byte
	value []byte
	f     ukvs.Frequency
}

// keyLines returns the lines of key k starting at p (the first of them),
// appended to dst. A line that is bad by ukvs.CheckLine is an error
// wrapping ErrBadLine, naming the file and the line; rec is scratch for
// the check (nil: one of its own).
func (m *Map) keyLines(dst []keyLine, p int, k []byte, rec *ukvs.Record) ([]keyLine, error) {
	if rec == nil {
		rec = new(ukvs.Record)
	}
	for p < len(m.b) {
		end := m.lineEnd(p)
		line := m.b[p:end]
		if !isBlank(line) {
			if !bytes.Equal(keyOf(line), k) {
				break
			}
			if err := m.checkLine(rec, p, line, 0); err != nil {
				return dst, err
			}
			l := keyLine{time: timeColumn(line), value: column(line, m.lay.freq)}
			_ = l.f.UnmarshalText(l.value) // checked
			dst = append(dst, l)
		}
		p = end + 1
	}
	return dst, nil
}

// anyTime is the answer of a key's lines for a lookup without a time: in a
// datetime map, its all-time line (":"), else the sum of its lines (the
// URI-M count exact when their periods do not overlap, else an upper bound;
// the URI-R count an upper bound when there are several lines, since one
// URI-R may be captured in several periods); in an observed map, its
// latest observation. time is the deciding line's time key, "" for a sum.
func anyTime(timeKey string, ls []keyLine) (value, tkey string, f ukvs.Frequency) {
	if len(ls) == 1 || timeKey == TimeKeyObserved {
		l := ls[len(ls)-1]
		return string(l.value), string(l.time), l.f
	}
	for _, l := range ls {
		if string(l.time) == ":" {
			return string(l.value), ":", l.f
		}
	}
	overlap := false
	var prev ukvs.DatetimeValue
	for i, l := range ls {
		p, err := ukvs.ParseDatetimeValue(string(l.time))
		if err != nil || (i > 0 && !before(prev, p)) {
			overlap = true
		}
		prev = p
		if i == 0 {
			f = l.f
		} else {
			f = f.Add(l.f)
		}
	}
	if overlap {
		f.URIM = upperBound(f.URIM)
	}
	f.URIR = upperBound(f.URIR)
	return f.String(), "", f
}

// before reports whether period a ends before period b starts.
func before(a, b ukvs.DatetimeValue) bool {
	hi, lo := a.Upper(), b.Lower()
	return hi != "" && lo != "" && hi < lo
}

// upperBound marks an exact count as an upper bound; other bounds are
// kept but a lower bound, which a sum of overlapping sets no longer is,
// becomes approximate.
func upperBound(c ukvs.Count) ukvs.Count {
	switch {
	case !c.Known:
	case c.Bound == ukvs.Exact:
		c.Bound = ukvs.AtMost
	case c.Bound == ukvs.AtLeast:
		c.Bound = ukvs.About
	}
	return c
}

// ErrDatetime is wrapped by the error of [Map.LookupAt] and
// [ParseDatetime] for a datetime that is not one; the error also wraps
// timestamp.ErrInvalid.
var ErrDatetime = errors.New("mementomap: invalid datetime")

// ParseDatetime reads the datetime of a lookup ([Map.LookupAt]): one
// timestamp by the rule of package timestamp (4 to 17 digits, standing for
// the whole period it names: "2015", "201503", "20141" for October to
// December 2014, "20150314123456", "20150314123456789"), or a range
// "FROM:TO" of two, either end open (":2009", "2016:", ":" for all time).
// It returns the inclusive bounds the datetime covers, as
// timestamp.Bounds pads a CDX server query's from and to: "2014" gives
// "20140101000000" and "20141231235959"; an open end gives "". An error
// wraps [ErrDatetime] and timestamp.ErrInvalid, and names the value.
//
// The datetime column of a map holds the stricter values of the UKVS draft
// ([ukvs.DatetimeValue]: 4, 6, 8, 10, 12 or 14 digits); a lookup may ask at any
// timestamp, such as the 17 digits of a CDX record with milliseconds.
func ParseDatetime(datetime string) (lo, hi string, err error) {
	from, to, isRange := strings.Cut(datetime, ":")
	if !isRange {
		if datetime == "" {
			return "", "", fmt.Errorf("%w %q: empty: %w", ErrDatetime, datetime, timestamp.ErrInvalid)
		}
		to = from
	}
	lo, hi, err = timestamp.Bounds(from, to)
	if err != nil {
		return "", "", fmt.Errorf("%w %q: %w", ErrDatetime, datetime, err)
	}
	return lo, hi, nil
}

// period is a closed interval of time at millisecond precision (17
// digits); an open end has its flag set.
type period struct {
	lo, hi         timestamp.Digits
	openLo, openHi bool
}

// periodOf converts the bounds of ParseDatetime or of a ukvs.DatetimeValue
// (Lower, Upper: 14 or 17 digits, "" for open) into a period.
func periodOf(lo, hi string) period {
	var p period
	if lo == "" {
		p.openLo = true
	} else {
		p.lo, _ = timestamp.Earliest(lo)
	}
	if hi == "" {
		p.openHi = true
	} else {
		p.hi, _ = timestamp.Latest(hi)
	}
	return p
}

// LookupAt looks up a URI or SURT (as [Map.Lookup]) at a datetime, a
// timestamp or a range of two as [ParseDatetime] reads it ("2015",
// "20150314", "20150314123456789", "2014:2016"). In a map with a
// "datetime" key column, the lookup keys are tried most specific first, and
// the first that has a line whose period overlaps datetime decides: through
// the narrowest line whose period contains the whole of datetime, else
// through the sum of the lines that overlap it, an upper bound (a range
// "2011:2013" finds the line "2012"); a key whose lines are all about other
// times does not decide, so that a more general key (a wildcard, "*")
// answers. Match.Time is the deciding line's datetime ("" for a sum of
// several).
//
// In any other map the datetime does not matter and the answer is
// Lookup's. The datetime is checked in every map all the same: a value
// that is not a datetime is the caller's mistake, and gives the same error
// (wrapping [ErrDatetime]) whatever map is asked, so that a program that
// asks many maps learns of it from the first.
func (m *Map) LookupAt(uriOrSURT, datetime string) (Match, error) {
	lo, hi, err := ParseDatetime(datetime)
	if err != nil {
		return Match{Distance: -1}, err
	}
	if m.lay.timeKey != TimeKeyDatetime {
		return m.Lookup(uriOrSURT)
	}
	q := periodOf(lo, hi)
	ks, err := lookupKeys(uriOrSURT)
	if err != nil {
		return Match{Distance: -1}, fmt.Errorf("mementomap: %w", err)
	}
	return ks.first(func(k string) (Match, error) { return m.lookupAtKey(k, q) })
}

// lookupAtKey is LookupAt of the full SURT k in a datetime map, at period q.
func (m *Map) lookupAtKey(k string, q period) (Match, error) {
	return m.guarded(func() (Match, error) {
		c := m.pool.Get().(*candidates)
		defer m.pool.Put(c)
		c.src = append(c.src[:0], k...)
		c.build(c.src)
		var ls []keyLine
		x := m.indexed()
		for i := range c.n {
			key := c.key(i)
			p, ok, err := m.searchKey(x, key)
			if err != nil {
				return Match{Distance: -1}, err
			}
			if !ok {
				continue
			}
			if ls, err = m.keyLines(ls[:0], p, key, &c.rec); err != nil {
				return Match{Distance: -1}, err
			}
			best, width := -1, time.Duration(0)
			over, first := 0, -1
			var sum ukvs.Frequency
			for j, l := range ls {
				lp, err := ukvs.ParseDatetimeValue(string(l.time))
				if err != nil {
					continue
				}
				p := periodOf(lp.Lower(), lp.Upper())
				if !overlaps(q, p) {
					continue
				}
				if over++; first < 0 {
					first, sum = j, l.f
				} else {
					sum = sum.Add(l.f)
				}
				if !within(q, p) {
					continue
				}
				if w := span(p); best < 0 || w < width {
					best, width = j, w
				}
			}
			if best >= 0 {
				l := ls[best]
				return Match{Key: string(key), Value: string(l.value), Frequency: l.f, Distance: i, Time: string(l.time)}, nil
			}
			if over > 0 {
				// No line covers the whole of q: the lines that overlap it
				// hold all its mementos, and maybe more.
				sum.URIM, sum.URIR = upperBound(sum.URIM), upperBound(sum.URIR)
				t := ""
				if over == 1 {
					t = string(ls[first].time)
				}
				return Match{Key: string(key), Value: sum.String(), Frequency: sum, Distance: i, Time: t}, nil
			}
		}
		return Match{Distance: -1}, nil
	})
}

// within reports whether period q lies inside period p (open ends are
// unbounded).
func within(q, p period) bool {
	if !p.openLo && (q.openLo || bytes.Compare(q.lo[:], p.lo[:]) < 0) {
		return false
	}
	if !p.openHi && (q.openHi || bytes.Compare(q.hi[:], p.hi[:]) > 0) {
		return false
	}
	return true
}

// overlaps reports whether periods q and p share a moment (open ends are
// unbounded).
func overlaps(q, p period) bool {
	if !q.openHi && !p.openLo && bytes.Compare(q.hi[:], p.lo[:]) < 0 {
		return false
	}
	if !p.openHi && !q.openLo && bytes.Compare(p.hi[:], q.lo[:]) < 0 {
		return false
	}
	return true
}

// span is the length of a period, open periods the longest.
func span(p period) time.Duration {
	if p.openLo || p.openHi {
		return 1<<63 - 1
	}
	return p.hi.Time().Sub(p.lo.Time())
}

// DefaultObservedMaxAge is how long a negative observation ("0", the
// archive answered that it held nothing) is trusted when neither the
// caller nor the map's !meta ("negatives_max_age") says otherwise: 7 days.
const DefaultObservedMaxAge = 7 * 24 * time.Hour

// ObservedMaxAge returns how long the map's negative observations are
// trusted: the Go duration in its !meta "negatives_max_age", else
// DefaultObservedMaxAge.
func (m *Map) ObservedMaxAge() time.Duration {
	meta := map[string]any{}
	for _, h := range m.headers {
		if h.Name != ukvs.HeaderMeta {
			continue
		}
		v, err := ukvs.RelaxedJSON([]byte(h.Raw))
		if err == nil {
			_ = json.Unmarshal(v, &meta)
		}
	}
	if s, ok := meta["negatives_max_age"].(string); ok {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d
		}
	}
	return DefaultObservedMaxAge
}

// LookupObserved answers for a URI-R from an observed map (a map whose
// second key column is "observed") at time now, by the
// staleness rule of internal/spec/MEMENTOMAP.md, "Observed maps": the
// lines of the URI-R's full SURT (query included: an observation is of
// one URI-R) are looked up, and the latest decides. A negative ("0")
// observed no longer than maxAge before now says absent; an older one is
// stale and says nothing: the URI-R may hold mementos added since, so the
// archive must be asked (Present, an unknown frequency, Time the stale
// observation's). A positive observation says present. A URI-R never
// observed is present, with the frequency of the map's "*" line (unknown
// when there is none): the map knows nothing of it. maxAge <= 0 means
// [Map.ObservedMaxAge]. In any other map LookupObserved is
// [Map.LookupSURT], with its errors.
//
// It returns ErrClosed after Close, the ErrNotMap or ErrLoneCR of a
// [FromBytes] map that Open would refuse, an error wrapping ErrBadLine (naming the file and line)
// for a line of the URI-R, or of "*", that is bad by the layout, an error
// wrapping ukvs.ErrOutOfOrder while the order check of an unsorted map
// runs, and one wrapping ErrChanged when the file was changed in place
// while open. An empty map gives Distance -1 and nil.
func (m *Map) LookupObserved(surtKey string, now time.Time, maxAge time.Duration) (Match, error) {
	if m.lay.timeKey != TimeKeyObserved {
		return m.LookupSURT(surtKey)
	}
	if maxAge <= 0 {
		maxAge = m.ObservedMaxAge()
	}
	surtKey = strings.TrimSpace(surtKey)
	if surtKey == "" {
		surtKey = "*"
	}
	return m.guarded(func() (Match, error) {
		var ls []keyLine
		var err error
		p, ok, err := m.searchKey(nil, []byte(surtKey))
		if err != nil {
			return Match{Distance: -1}, err
		}
		if ok {
			if ls, err = m.keyLines(ls, p, []byte(surtKey), nil); err != nil {
				return Match{Distance: -1}, err
			}
			l := ls[len(ls)-1]
			res := Match{Key: surtKey, Value: string(l.value), Frequency: l.f, Time: string(l.time)}
			if !l.f.HoldsNothing() {
				return res, nil
			}
			t, err := timestamp.Parse(l.time)
			if err == nil && !now.Before(t) && now.Sub(t) <= maxAge {
				return res, nil
			}
			res.Value, res.Frequency, res.Stale = "/", ukvs.Frequency{Slash: true}, true
			return res, nil
		}
		res := Match{Key: "*", Value: "/", Frequency: ukvs.Frequency{Slash: true}, Distance: 1}
		p, ok, err = m.searchKey(nil, []byte("*"))
		if err != nil {
			return Match{Distance: -1}, err
		}
		if ok {
			if ls, err = m.keyLines(ls[:0], p, []byte("*"), nil); err != nil {
				return Match{Distance: -1}, err
			}
			l := ls[len(ls)-1]
			if !l.f.HoldsNothing() {
				res.Value, res.Frequency, res.Time = string(l.value), l.f, string(l.time)
			}
		}
		return res, nil
	})
}

// guarded runs a lookup under the checks and the fault guard of
// LookupSURT.
func (m *Map) guarded(fn func() (Match, error)) (res Match, err error) {
	switch {
	case m.b == nil && m.f == nil:
		return Match{Distance: -1}, ErrClosed
	case m.b == nil || len(m.b) == 0:
		return Match{Distance: -1}, nil
	case m.err != nil:
		return Match{Distance: -1}, m.err
	case m.damaged.Load():
		return Match{Distance: -1}, m.changedErr()
	}
	defer func() {
		if err != nil {
			res = Match{Distance: -1}
		}
	}()
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	return fn()
}
