package cdxj

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/timestamp"
)

// MatchType says which keys a [Query] selects, as the match types of the
// Wayback CDX servers (pywb, OpenWayback, the Internet Archive's CDX
// server) do.
type MatchType uint8

// The match types of the CDX server API ("matchType=").
const (
	// MatchExact selects the lines whose key is the query key.
	MatchExact MatchType = iota
	// MatchPrefix selects the lines whose key starts with the query key
	// ("com,example)/a" selects "com,example)/a", "com,example)/a/b",
	// "com,example)/about").
	MatchPrefix
	// MatchHost selects every key of the query key's host: the part of the
	// key before ')' ("com,example)/a" selects "com,example)/...", not
	// "com,example,www)/...").
	MatchHost
	// MatchDomain selects every key of the query key's host and of all its
	// subdomains ("com,example" selects "com,example)/..." and
	// "com,example,www)/...", not "com,example-shop)/...").
	MatchDomain
)

var matchNames = [...]string{"exact", "prefix", "host", "domain"}

// String returns the CDX server name of m: "exact", "prefix", "host" or
// "domain".
func (m MatchType) String() string {
	if int(m) < len(matchNames) {
		return matchNames[m]
	}
	return fmt.Sprintf("MatchType(%d)", m)
}

// ErrQuery is wrapped by the errors of an invalid [Query].
var ErrQuery = errors.New("cdxj: invalid query")

// ParseMatchType parses a CDX server matchType value ("exact", "prefix",
// "host", "domain"); "" means exact. Other values give an error wrapping
// [ErrQuery].
func ParseMatchType(s string) (MatchType, error) {
	if s == "" {
		return MatchExact, nil
	}
	for i, n := range matchNames {
		if s == n {
			return MatchType(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown match type %q (want exact, prefix, host or domain)", ErrQuery, s)
}

// Query selects lines of an index by key and by time, as a CDX server
// request does (url=, matchType=, from=, to=). Every [Searcher] answers it:
// [Sorted] (a sorted CDX or CDXJ file) and [Cluster] (a ZipNum cluster)
// find the first candidate line by binary search and read on only while
// lines can still match; [File] and [Stream] do the same or read through.
//
// The zero Query (an empty Key, with Match MatchExact or MatchPrefix)
// selects every line: Records(cdxj.Query{}) walks a whole index, sorted or
// not, and From and To may still bound it in time. A key-range query
// (a Key, or Match MatchHost or MatchDomain) assumes the index is sorted
// byte-wise (LC_ALL=C), as every CDX server does.
type Query struct {
	// Key is the sort key to look up, in the index's own form: a SURT such
	// as "com,example)/a" for a SURT-ordered index. Use [QueryForURL] to
	// start from a URL. One trailing '*' is dropped (a CDX server's
	// "example.com/a*" prefix form). "" selects every key (see above).
	Key string
	// Match selects the keys; the zero value is MatchExact.
	Match MatchType
	// From and To bound the timestamps, inclusively. Each is 4 to 17 digits
	// or "" for no bound; From is padded to the earliest instant it names
	// and To to the latest, so From "2014" To "2014" selects
	// 20140101000000 to 20141231235959 (public case CDX-04b; see
	// timestamp.Bounds). A line whose timestamp is invalid never matches a
	// bounded query.
	From, To string
	// Limit stops the iteration after this many lines; 0 means no limit.
	Limit int
	// Blank, when not nil, is increased by the number of blank lines (empty
	// lines, "\r" line end dropped) the iteration passes over: such a line
	// holds no record and is no error, so it is counted here rather than
	// yielded. A line of spaces is not blank: it is a bad line (a
	// *ParseError). [File], [Stream], [Cluster] (in its blocks) and
	// [Sorted] count them, and [PartRecordsBlank] for a part; the iteration
	// adds to *Blank in the caller's goroutine, so read it after the loop.
	Blank *int64
}

// QueryForURL returns a Query for rawURL with match type m, its key the
// SURT of the URL (surt.Canonicalize), as a CDX server does with url=.
// A URL ending in '*' asks for a prefix match of what comes before it,
// and one starting with "*." for a domain match, as the CDX servers read
// them; m is then ignored. A URL that surt.Canonicalize refuses gives an
// error wrapping ErrQuery with the canonicalizer's reason.
func QueryForURL(rawURL string, m MatchType) (Query, error) {
	switch {
	case strings.HasPrefix(rawURL, "*."):
		rawURL, m = rawURL[2:], MatchDomain
	case strings.HasSuffix(rawURL, "*"):
		rawURL, m = strings.TrimSuffix(rawURL, "*"), MatchPrefix
	}
	key, err := surt.Canonicalize(rawURL)
	if err != nil {
		return Query{}, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	if m == MatchPrefix && strings.HasSuffix(rawURL, "/") && !strings.HasSuffix(key, "/") {
		// Canonicalization drops a trailing slash ("example.com/a/" gives
		// "com,example)/a"); as a prefix the slash matters: /a/ is not /ab.
		key += "/"
	}
	return Query{Key: key, Match: m}, nil
}

// compiled is a Query turned into byte bounds and a line filter.
type compiled struct {
	q       Query
	key     []byte // the key without a trailing '*'
	start   []byte // the first line that can match is >= start
	end     []byte // every line >= end is past the matches; nil = no end
	host    []byte // MatchHost/MatchDomain: the host part of the key
	lo, hi  string // timestamp bounds (timestamp.Bounds)
	bounded bool   // lo or hi set
	all     bool   // every key: the whole-index query
}

// whole reports whether c selects every line of an index (no key, no time
// bound).
func (c *compiled) whole() bool { return c.all && !c.bounded }

func (q Query) compile() (*compiled, error) {
	c := &compiled{q: q}
	key := strings.TrimSuffix(q.Key, "*")
	if strings.ContainsAny(key, " \n") {
		return nil, fmt.Errorf("%w: key %q holds a space or line break", ErrQuery, key)
	}
	if q.Limit < 0 {
		return nil, fmt.Errorf("%w: negative limit %d", ErrQuery, q.Limit)
	}
	lo, hi, err := timestamp.Bounds(q.From, q.To)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	c.lo, c.hi, c.bounded = lo, hi, lo != "" || hi != ""
	c.key = []byte(key)
	host, _, _ := strings.Cut(key, ")")
	if key == "" && (q.Match == MatchExact || q.Match == MatchPrefix) {
		c.all = true
		c.start = []byte{}
		return c, nil
	}
	switch q.Match {
	case MatchExact:
		// "key" .. "key!": the lines "key ..." ('!' is the byte after the
		// space that ends the key field), and a bare "key" line. With a
		// From bound the start moves to "key YYYY", the year of From: a
		// line of that key whose timestamp is not earlier than From has a
		// year at least as great, so it sorts at or after that. (Not
		// "key from": a shorter timestamp such as "2014" sorts before
		// "20140101000000" byte-wise yet stands for the same instant.)
		c.start = []byte(key)
		if len(q.From) >= 4 {
			c.start = []byte(key + " " + q.From[:4])
		}
		c.end = []byte(key + "!")
	case MatchPrefix:
		c.start = []byte(key)
		c.end = successor([]byte(key))
	case MatchHost:
		if host == "" {
			return nil, fmt.Errorf("%w: empty host for a host match", ErrQuery)
		}
		c.host = []byte(host)
		c.start = []byte(host + ")")
		c.end = []byte(host + "*") // '*' is the byte after ')'
	case MatchDomain:
		if host == "" {
			return nil, fmt.Errorf("%w: empty host for a domain match", ErrQuery)
		}
		c.host = []byte(host)
		// host")" .. host"-" spans ')' (0x29) to ',' (0x2C): the host itself
		// and its subdomains, plus keys with '*' or '+' there, which the
		// filter drops.
		c.start = []byte(host + ")")
		c.end = []byte(host + "-")
	default:
		return nil, fmt.Errorf("%w: unknown match type %d", ErrQuery, q.Match)
	}
	return c, nil
}

// successor returns the smallest byte string greater than every string
// with prefix p, or nil when there is none (p empty or all 0xff).
func successor(p []byte) []byte {
	s := bytes.Clone(p)
	for len(s) > 0 {
		if s[len(s)-1] < 0xff {
			s[len(s)-1]++
			return s
		}
		s = s[:len(s)-1]
	}
	return nil
}

// verdict of a line against a compiled query.
type verdict uint8

const (
	vSkip  verdict = iota // does not match, later lines may
	vMatch                // matches
	vStop                 // neither this line nor any later one matches
)

// test checks one data line (no header, no line terminator).
func (c *compiled) test(line []byte) verdict {
	if c.all {
		if !c.bounded {
			return vMatch
		}
		_, rest, _ := bytes.Cut(line, []byte(" "))
		ts, _, _ := bytes.Cut(rest, []byte(" "))
		if !timestamp.InRange(ts, c.lo, c.hi) {
			return vSkip
		}
		return vMatch
	}
	if c.end != nil && bytes.Compare(line, c.end) >= 0 {
		return vStop
	}
	if bytes.Compare(line, c.start) < 0 {
		return vSkip
	}
	key, rest, _ := bytes.Cut(line, []byte(" "))
	switch c.q.Match {
	case MatchExact:
		if !bytes.Equal(key, c.key) {
			return vSkip
		}
	case MatchDomain:
		if len(key) <= len(c.host) || (key[len(c.host)] != ')' && key[len(c.host)] != ',') {
			return vSkip
		}
	}
	if c.bounded {
		ts, _, _ := bytes.Cut(rest, []byte(" "))
		if !timestamp.InRange(ts, c.lo, c.hi) {
			// Within one key, timestamps sort by time (a shorter one
			// standing for its earliest instant), so past To nothing of
			// this key matches; for an exact match that is the end.
			if c.q.Match == MatchExact && c.hi != "" && timestamp.InRange(ts, "", "") && !timestamp.InRange(ts, "", c.hi) {
				return vStop
			}
			return vSkip
		}
	}
	return vMatch
}

// isHeaderLine reports whether line is a header rather than a data line:
// a CDXJ/ORS "!" line or a classic CDX legend (" CDX ...", also without
// the leading space).
func isHeaderLine(line []byte) bool {
	if len(line) > 0 && line[0] == '!' {
		return true
	}
	l := bytes.TrimPrefix(line, []byte(" "))
	return bytes.HasPrefix(l, []byte("CDX")) && (len(l) == 3 || l[3] == ' ')
}

// isBlankLine reports whether line (without its line end) is a blank
// line: empty. A line of spaces is not: in an index it is a bad line.
func isBlankLine(line []byte) bool { return len(line) == 0 }

// countBlank adds 1 to q's blank-line counter, if it has one.
func (q *Query) countBlank() {
	if q.Blank != nil {
		*q.Blank++
	}
}

// Searcher is what answers a [Query]: every index source implements it
// ([*File], [*Cluster], [*Sorted], [*Stream], [*Server]), and [Open] returns one for
// any path. Records(cdxj.Query{}) walks the whole index.
type Searcher interface {
	// Lines returns the matching lines, raw, in index order. A yielded
	// slice is valid only until the next iteration. An error ends the
	// iteration.
	Lines(q Query) iter.Seq2[[]byte, error]
	// Records returns the matching lines parsed as Records (see
	// ParseLine), valid only until the next iteration. A line that does
	// not parse yields its *ParseError and the iteration goes on if the
	// loop continues.
	Records(q Query) iter.Seq2[*Record, error]
}

// records turns a line iterator into a record iterator that reuses one
// Record (hdr and def as Record.parse takes them) (valid until the next iteration, as Searcher says). place fills in
// where the line just yielded by lines is (source, line number, byte
// offset); a line that does not parse gives its *ParseError so placed, and
// the iteration goes on if the loop continues.
func records(lines iter.Seq2[[]byte, error], hdr, def *Layout, place func(pe *ParseError)) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		var rec Record
		var at ParseError
		for line, err := range lines {
			if err != nil {
				yield(nil, err)
				return
			}
			if err := rec.parse(line, hdr, def); err != nil {
				pe := err.(*ParseError)
				place(pe)
				if !yield(nil, pe) {
					return
				}
				continue
			}
			place(&at)
			rec.src, rec.lineNo, rec.inOff = at.Source, at.Line, at.Offset
			if !yield(&rec, nil) {
				return
			}
		}
	}
}
