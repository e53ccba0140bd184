package summary

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
)

// Capture is the part of one index record that a summary needs. Strings are
// only read during the call they are passed to and may alias a reused buffer.
type Capture struct {
	// IndexKey is the record's SURT key ("com,example)/a"), or in classic
	// CDX files without SURT keys the massaged URL ("example.com/a").
	IndexKey string
	// Timestamp is the 14-digit capture time, YYYYMMDDhhmmss (shorter forms
	// are accepted as long as the year, or year and month, are present).
	Timestamp string
	// URL is the original URI (URI-R); may be empty.
	URL string
	// MIME is the media type as indexed; "" or "-" when unknown.
	MIME string
	// Status is the HTTP status code, 0 when unknown ("-" or absent, as for
	// revisit and request records in many CDXJ files).
	Status int
	// Length is the compressed WARC record length in bytes; negative when
	// unknown. A value above MaxRecordLength is taken as unknown.
	Length int64
	// Filename is the WARC (or ARC) file that holds the record.
	Filename string
	// Revisit marks a revisit (deduplicated) record.
	Revisit bool
}

// Options configures a Summarizer. The zero value keys by registrable
// domain, buckets by year and accepts years 1991 to the current year + 1.
type Options struct {
	// Keys selects the key of each summary line (default KeyDomain).
	Keys KeyMode
	// Monthly buckets by year and month (202001) instead of by year.
	Monthly bool
	// MinYear and MaxYear bound the capture years counted; captures outside
	// are not counted and are reported in Stats.BadTimestamp. Zero means
	// 1991 (the first web crawls) and the current year + 1.
	MinYear, MaxYear int
	// Grouped streams: the input is grouped by key (sorted SURT keys are,
	// for KeyHost, and for KeyDomain as long as no other host sorts between
	// two hosts of one domain). A key's line is written as soon as another
	// key starts, so memory holds one key. If the input is not grouped a key
	// may appear on several lines; Combine merges them.
	Grouped bool
	// Out receives the lines of a Grouped summary as they complete; it is
	// required with Grouped and ignored otherwise.
	Out io.Writer
	// Compact leaves zero counters out of the written lines.
	Compact bool
	// Workers bounds the parts of one index ReadIndex reads at once, each
	// on its own goroutine; 0 means runtime.GOMAXPROCS(0), 1 reads in the
	// calling goroutine. Ignored with Grouped. The summary is the same
	// whatever the number.
	Workers int
	// Logger, when not nil, receives one warning per kind of skipped record
	// (the first occurrence), at Warn level.
	Logger *slog.Logger
}

// Stats counts what a Summarizer saw. Counted + NotOK + BadTimestamp equals
// the number of captures added; BadLines were never captures.
type Stats struct {
	Counted      int64 // captures counted in the summary (2xx status)
	NotOK        int64 // captures not counted: status unknown or not 2xx
	BadTimestamp int64 // 2xx captures not counted: year outside [MinYear, MaxYear] or malformed
	Keys         int64 // distinct keys (lines) produced so far
	BadLines     int64 // index lines skipped as malformed (ReadIndex with skipBad)
	// BadExamples holds up to 5 of those, each "SOURCE: line N: cause".
	BadExamples []string
	// BlankLines counts the blank (empty) index lines ReadIndex passed
	// over (cdxj.Query.Blank): they hold no record and are no error, so
	// they never stop a read, skipBad or not, and are not BadLines; no
	// capture is lost, so the summary has no note line for them.
	BlankLines int64
	// NoLength counts the captures among Counted whose length was missing,
	// "-", or invalid (negative, not an integer, above MaxRecordLength):
	// they are counted with 0 bytes. 9-column CDX has no length at all.
	NoLength int64
}

// MaxRecordLength is the largest record length, in bytes, taken as valid
// (1 TiB): a larger "length" is a corrupt index field, counted as unknown
// (Stats.NoLength), and the bound keeps the s_ sums far from int64 overflow.
const MaxRecordLength = 1 << 40

// periodCounters is one period of one key.
type periodCounters struct {
	p Period
	c Counters
}

// entry is one key: its periods in first-seen order.
type entry struct {
	key     string
	periods []periodCounters
	last    int // index of the period last added to
}

func (e *entry) counters(p Period) *Counters {
	if e.last < len(e.periods) && e.periods[e.last].p == p {
		return &e.periods[e.last].c
	}
	for i := range e.periods {
		if e.periods[i].p == p {
			e.last = i
			return &e.periods[i].c
		}
	}
	e.periods = append(e.periods, periodCounters{p: p})
	e.last = len(e.periods) - 1
	return &e.periods[e.last].c
}

// Summarizer accumulates captures into per-key, per-period counters.
//
// Memory: one map entry per distinct key, each holding 26 int64 counters
// (208 bytes) per period seen, plus the key string, and a cache of at most
// 16384 recent hosts; with Options.Grouped only the current key is held. Add
// does not allocate except when a new host, key or period appears. A Summarizer is not safe for concurrent use.
type Summarizer struct {
	opts    Options
	min     int
	max     int
	entries map[string]*entry
	// cache of the last host part (SURT prefix or pseudo scheme) and its
	// entry, and of the recent host parts (at most maxHostCache)
	lastRaw   []byte
	lastEntry *entry
	hosts     map[string]*entry
	scratch   []byte
	stats     Stats
	warned    [3]bool
	err       error // first write error in Grouped mode
	line      []byte
}

// New returns a Summarizer with the given options (nil means defaults).
func New(opts *Options) *Summarizer {
	s := &Summarizer{entries: make(map[string]*entry), hosts: make(map[string]*entry)}
	if opts != nil {
		s.opts = *opts
	}
	s.min, s.max = s.opts.MinYear, s.opts.MaxYear
	if s.min == 0 {
		s.min = 1991
	}
	if s.max == 0 {
		s.max = time.Now().Year() + 1
	}
	return s
}

// maxHostCache bounds the cache of host parts to entries (it is emptied
// when full): 16384 hosts, about 1 MiB.
const maxHostCache = 1 << 14

// ErrNoOut is returned by Add and Flush when Options.Grouped is set without Options.Out.
var ErrNoOut = errors.New("summary: Grouped needs Options.Out")

// Add counts one capture. Only captures with a 2xx status are counted
// (cdx-summarize: "Only entries with a HTTP status code of 2XX are counted");
// an unknown status (revisits and request records in CDXJ often have none)
// is not 2xx, whatever the index format. The error is only ever a write
// error of Grouped mode.
func (s *Summarizer) Add(c *Capture) error { return s.add(c) }

func (s *Summarizer) add(c *Capture) error {
	if c.Status < 200 || c.Status > 299 {
		s.stats.NotOK++
		s.warn(0, "capture not counted: status not 2xx or unknown", c)
		return nil
	}
	p, ok := s.period(c.Timestamp)
	if !ok {
		s.stats.BadTimestamp++
		s.warn(1, "capture not counted: timestamp outside the year range", c)
		return nil
	}
	sch, pseudo := schemeOf(c.URL)
	e, err := s.entryFor(c, pseudo)
	if err != nil {
		return err
	}
	size := c.Length
	if size < 0 || size > MaxRecordLength {
		size = 0
		s.stats.NoLength++
		s.warn(2, "capture counted without a size: length missing, \"-\" or invalid", c)
	}
	e.counters(p).Add(CategorizeMIME(c.MIME), sch, size)
	s.stats.Counted++
	return nil
}

func (s *Summarizer) warn(kind int, msg string, c *Capture) {
	if s.opts.Logger == nil || s.warned[kind] {
		return
	}
	s.warned[kind] = true
	s.opts.Logger.Warn("summary: "+msg+" (first occurrence; the others are counted, not logged)",
		"key", c.IndexKey, "timestamp", c.Timestamp, "status", c.Status)
}

// period returns the bucket of a timestamp, or false when its year is
// malformed or out of range.
func (s *Summarizer) period(ts string) (Period, bool) {
	n := 4
	if s.opts.Monthly {
		n = 6
	}
	if len(ts) < n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		d := ts[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		v = v*10 + int(d-'0')
	}
	y := v
	if s.opts.Monthly {
		y = v / 100
		if m := v % 100; m < 1 || m > 12 {
			return 0, false
		}
	}
	if y < s.min || y > s.max {
		return 0, false
	}
	return Period(v), true
}

// entryFor finds or creates the entry of a capture's key, using the cache of
// the last host part for runs of one host.
func (s *Summarizer) entryFor(c *Capture, pseudo string) (*entry, error) {
	raw := pseudo
	if raw == "" {
		if part, ok := surtHostPart(c.IndexKey); ok && part != "" && !onlyDigitsAndCommas(part) {
			raw = part
		}
	}
	if raw != "" && s.lastEntry != nil && string(s.lastRaw) == raw {
		return s.lastEntry, nil
	}
	if raw != "" {
		if e := s.hosts[raw]; e != nil {
			s.lastRaw = append(s.lastRaw[:0], raw...)
			s.lastEntry = e
			return e, nil
		}
	}
	var key string
	if pseudo != "" {
		key = pseudo
	} else {
		key, s.scratch = hostKey(s.scratch, c.IndexKey, c.URL, s.opts.Keys)
	}
	e := s.entries[key]
	if e == nil {
		if s.opts.Grouped {
			if err := s.Flush(); err != nil {
				return nil, err
			}
		}
		e = &entry{key: strings.Clone(key)}
		s.entries[e.key] = e
		s.stats.Keys++
	}
	if raw != "" {
		s.lastRaw = append(s.lastRaw[:0], raw...)
		s.lastEntry = e
		if len(s.hosts) >= maxHostCache {
			clear(s.hosts)
		}
		s.hosts[strings.Clone(raw)] = e
	} else {
		s.lastEntry = nil
	}
	return e, nil
}

// Stats returns the counts so far.
func (s *Summarizer) Stats() Stats { return s.stats }

// Flush writes and forgets every key held (Grouped mode; in order of the
// keys' first appearance, which is the only one held in a grouped input).
// Without Grouped it does nothing: use WriteTo. With Grouped it returns
// ErrNoOut when Options.Out is nil, and stops at Out's first write error,
// which is sticky: the keys written before it are forgotten, the rest are
// kept, and later Flush calls return that error.
func (s *Summarizer) Flush() error {
	if !s.opts.Grouped {
		return nil
	}
	if s.opts.Out == nil {
		return ErrNoOut
	}
	if s.err != nil {
		return s.err
	}
	keys := sortedKeys(s.entries)
	for _, k := range keys {
		e := s.entries[k]
		s.line = appendLine(s.line[:0], e, s.opts.Compact, true)
		if _, err := s.opts.Out.Write(s.line); err != nil {
			s.err = err
			return err
		}
		delete(s.entries, k)
	}
	s.lastEntry = nil
	clear(s.hosts)
	return nil
}

// WriteTo writes the summary, one line per key in byte-wise key order:
//
//	key {"2019": {"n_html": 1, ..., "s_total": 42}, "2020": {...}}
//
// The periods of a line are in ascending order and the 26 counters in the
// order of CounterNames; with Options.Compact counters equal to zero are left
// out. With Grouped it is Flush. It implements io.WriterTo.
//
// When index lines were skipped as malformed (Stats.BadLines), the summary
// says so in a note line, first (last with Grouped, whose lines are
// written as they complete):
//
//	!meta {"skipped_lines": 3, "skipped_examples": ["idx.cdxj: line 7: invalid timestamp: ..."]}
//
// SummaryReader and every reader of this package pass over lines starting
// with '!'. A summary of an index read without loss has no such line and
// is in the original tool's format exactly.
func (s *Summarizer) WriteTo(w io.Writer) (int64, error) {
	if s.opts.Grouped {
		if err := s.Flush(); err != nil {
			return 0, err
		}
		if s.stats.BadLines == 0 {
			return 0, nil
		}
		n, err := s.opts.Out.Write(s.appendNote(nil))
		return int64(n), err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var n int64
	if s.stats.BadLines > 0 {
		m, err := bw.Write(s.appendNote(nil))
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	for _, k := range sortedKeys(s.entries) {
		s.line = appendLine(s.line[:0], s.entries[k], s.opts.Compact, true)
		m, err := bw.Write(s.line)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// appendNote appends the note line that records the index lines skipped.
func (s *Summarizer) appendNote(b []byte) []byte {
	return appendSkippedNote(b, s.stats.BadLines, s.stats.BadExamples)
}

// appendSkippedNote appends the note line "!meta {...}" that records n
// index lines skipped, with examples (at most 5, "SOURCE: line N: cause").
func appendSkippedNote(b []byte, n int64, examples []string) []byte {
	j, _ := json.Marshal(struct {
		Skipped  int64    `json:"skipped_lines"`
		Examples []string `json:"skipped_examples,omitempty"`
	}{n, examples})
	b = append(b, "!meta "...)
	b = append(b, j...)
	return append(b, '\n')
}

func sortedKeys(m map[string]*entry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendLine appends one summary line (with its newline). With sortPeriods
// the periods are written in ascending order, otherwise in first-seen order
// (the original tool's dict order).
func appendLine(b []byte, e *entry, compact, sortPeriods bool) []byte {
	b = append(b, e.key...)
	b = append(b, ' ')
	ps := e.periods
	if sortPeriods && !slices.IsSortedFunc(ps, cmpPeriod) {
		ps = slices.Clone(ps)
		slices.SortFunc(ps, cmpPeriod)
	}
	b = append(b, '{')
	for i := range ps {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '"')
		b = append(b, ps[i].p.String()...)
		b = append(b, "\": "...)
		b = ps[i].c.appendJSON(b, compact)
	}
	return append(b, "}\n"...)
}

func cmpPeriod(a, b periodCounters) int { return int(a.p) - int(b.p) }

// Line is one parsed summary line: a key and its counters per period, in the
// order the line lists them.
type Line struct {
	Key     string
	Periods []PeriodCounters
}

// PeriodCounters is one period of a Line.
type PeriodCounters struct {
	Period   Period
	Counters Counters
}

// AppendLine appends l in the summary line format (see Summarizer.WriteTo),
// periods in the order given, with its newline.
func AppendLine(b []byte, l *Line, compact bool) []byte {
	e := entry{key: l.Key, periods: make([]periodCounters, len(l.Periods))}
	for i, p := range l.Periods {
		e.periods[i] = periodCounters{p: p.Period, c: p.Counters}
	}
	return appendLine(b, &e, compact, false)
}

// Lines returns the summary held (not Grouped), keys in byte-wise order and
// periods ascending. It copies the counters.
func (s *Summarizer) Lines() []Line {
	var out []Line
	for _, k := range sortedKeys(s.entries) {
		e := s.entries[k]
		l := Line{Key: k, Periods: make([]PeriodCounters, len(e.periods))}
		for i, p := range e.periods {
			l.Periods[i] = PeriodCounters{Period: p.p, Counters: p.c}
		}
		slices.SortFunc(l.Periods, func(a, b PeriodCounters) int { return int(a.Period) - int(b.Period) })
		out = append(out, l)
	}
	return out
}

var _ io.WriterTo = (*Summarizer)(nil)

// ParseError is a problem with one line of an input: an index file, a
// summary or a mapping file.
type ParseError struct {
	Name string // file name, or "" for an unnamed stream
	Line int64  // 1-based line number
	Err  error
}

// Error returns "NAME:LINE: CAUSE", or "line LINE: CAUSE" for an unnamed
// stream; a cause that is a *cdxj.ParseError of the same source and line
// names them itself, and is returned alone.
func (e *ParseError) Error() string {
	if pe := (*cdxj.ParseError)(nil); errors.As(e.Err, &pe) && pe.Source == e.Name && pe.Line == e.Line {
		return e.Err.Error()
	}
	if e.Name != "" {
		return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }
