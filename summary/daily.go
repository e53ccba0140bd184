package summary

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/timestamp"
)

// RecordID returns the stable identifier of an index record: the RFC 4648
// base-32 encoding (upper case, with padding) of the SHA-1 of the original
// URI, the 14-digit timestamp and the WARC filename concatenated. Daily
// counts two index lines with the same identifier once.
func RecordID(url, timestamp14, filename string) string {
	h, _ := recordHash(nil, url, timestamp14, filename)
	return base32.StdEncoding.EncodeToString(h[:])
}

// AppendRecordID appends RecordID(url, timestamp14, filename), 32
// characters, to dst; it allocates only when dst lacks the room for the
// three strings.
func AppendRecordID(dst []byte, url, timestamp14, filename string) []byte {
	n := len(dst)
	dst = slices.Grow(dst, max(len(url)+len(timestamp14)+len(filename), 32))
	h, _ := recordHash(dst[n:], url, timestamp14, filename)
	return base32.StdEncoding.AppendEncode(dst[:n], h[:])
}

// recordHash returns the SHA-1 of RecordID, using and returning buf as scratch.
func recordHash(buf []byte, url, ts, filename string) ([sha1.Size]byte, []byte) {
	buf = append(buf[:0], url...)
	buf = append(buf, ts...)
	buf = append(buf, filename...)
	return sha1.Sum(buf), buf
}

// OrgFunc maps a WARC filename (possibly with a directory part) to the
// collecting organization it is counted for.
type OrgFunc func(filename string) string

// UnknownOrg is the organization of records without a filename.
const UnknownOrg = "-"

// OrgByPrefix is the default OrgFunc: the base name's leading token up to the
// first '-' ("LOC-ENDOFTERM-01-20090119.arc.gz" → "LOC"); a name without '-'
// gives its text before the first '.' ("example.warc.gz" → "example").
func OrgByPrefix(filename string) string {
	base := filename[strings.LastIndexByte(filename, '/')+1:]
	if i := strings.IndexByte(base, '-'); i > 0 {
		return base[:i]
	}
	if i := strings.IndexByte(base, '.'); i > 0 {
		return base[:i]
	}
	if base == "" {
		return UnknownOrg
	}
	return base
}

// UnmatchedOrg is the organization OrgByRegexp gives to a filename its
// regular expression does not match.
const UnmatchedOrg = "unmatched"

// OrgByRegexp returns an OrgFunc that matches re against the base name and
// uses the first capture group (or the whole match when re has none). A
// name re does not match, or matches with an empty result, is counted for
// UnmatchedOrg, so that the expression alone decides the organizations
// (OrgByPrefix would give every unmatched prefix its own).
func OrgByRegexp(re *regexp.Regexp) OrgFunc {
	return func(filename string) string {
		base := filename[strings.LastIndexByte(filename, '/')+1:]
		m := re.FindStringSubmatch(base)
		switch {
		case m == nil:
			return UnmatchedOrg
		case len(m) > 1:
			if m[1] != "" {
				return m[1]
			}
			return UnmatchedOrg
		case m[0] != "":
			return m[0]
		}
		return UnmatchedOrg
	}
}

// ReadOrgMapping reads a mapping file, one "PREFIX ORGANIZATION" pair per
// line (blank lines and lines starting with '#' ignored), and returns an
// OrgFunc that gives the organization of the longest prefix of the base
// name, falling back to OrgByPrefix. A line without two fields, or a
// prefix mapped to two different organizations, is a *ParseError naming
// the line (a pair repeated identically is accepted); so is a read error.
func ReadOrgMapping(r io.Reader, name string) (OrgFunc, error) {
	type pair struct {
		prefix, org string
		line        int64
	}
	var pairs []pair
	byPrefix := map[string]pair{}
	sc := bufio.NewScanner(r)
	n := int64(0)
	for sc.Scan() {
		n++
		l := sc.Text()
		if n == 1 {
			l = strings.TrimPrefix(l, "\ufeff") // a UTF-8 byte order mark
		}
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		if len(f) != 2 {
			return nil, &ParseError{Name: name, Line: n, Err: fmt.Errorf("want \"PREFIX ORGANIZATION\", got %d fields", len(f))}
		}
		p := pair{f[0], f[1], n}
		if q, dup := byPrefix[p.prefix]; dup {
			if q.org != p.org {
				return nil, &ParseError{Name: name, Line: n, Err: fmt.Errorf("prefix %q maps to %q here and to %q on line %d", p.prefix, p.org, q.org, q.line)}
			}
			continue // the same pair again
		}
		byPrefix[p.prefix] = p
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Name: name, Line: n + 1, Err: err}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.prefix) - len(a.prefix) })
	return func(filename string) string {
		base := filename[strings.LastIndexByte(filename, '/')+1:]
		for _, p := range pairs {
			if strings.HasPrefix(base, p.prefix) {
				return p.org
			}
		}
		return OrgByPrefix(filename)
	}, nil
}

// DailyOptions configures a Daily series.
type DailyOptions struct {
	// Org maps filenames to organizations; nil means OrgByPrefix.
	Org OrgFunc
	// AdjacentDuplicates remembers record identifiers only within a run of
	// lines with the same index key and timestamp, which is where duplicates
	// sit in a sorted index: memory then no longer grows with the input.
	// Without it every identifier is remembered (about 100 bytes a record).
	AdjacentDuplicates bool
	// Logger, when not nil, receives a warning for the first skipped line.
	Logger *slog.Logger
}

// DayOrg holds one organization's counts for one day: all captures and
// 2xx captures, with their record lengths in bytes.
type DayOrg struct {
	Count, Size, OKCount, OKSize int64
}

// DailyStats counts what Daily saw.
type DailyStats struct {
	Records    int64 // records counted in the series
	Revisits   int64 // revisit records, counted apart (not in the series)
	Duplicates int64 // records whose identifier was already counted
	BadLines   int64 // lines skipped: malformed, or a timestamp without a day
	// BadExamples holds up to 5 of those, each "SOURCE: line N: cause".
	BadExamples []string
	// BlankLines counts the blank (empty) index lines passed over, as
	// Stats.BlankLines does: no record, no error, no note line.
	BlankLines int64
	// NoLength counts the Records whose length was missing, "-" or invalid
	// (not an integer, above MaxRecordLength): their size counts as 0.
	NoLength int64
}

// Daily builds the daily per-organization series of crawl activity: for
// every day (the timestamp's YYYYMMDD) and organization, the number of
// captures and their bytes, all and 2xx only.
//
// Memory: one DayOrg per day and organization, plus the identifiers of
// counted records (see DailyOptions.AdjacentDuplicates). Not safe for
// concurrent use.
type Daily struct {
	opts    DailyOptions
	days    map[string]map[string]*DayOrg
	seen    map[[sha1.Size]byte]struct{}
	runKey  []byte
	runTS   []byte
	stats   DailyStats
	buf     []byte
	lastOrg struct {
		file, org string
	}
}

// NewDaily returns an empty series (nil options mean defaults).
func NewDaily(opts *DailyOptions) *Daily {
	d := &Daily{days: make(map[string]map[string]*DayOrg), seen: make(map[[sha1.Size]byte]struct{})}
	if opts != nil {
		d.opts = *opts
	}
	if d.opts.Org == nil {
		d.opts.Org = OrgByPrefix
	}
	return d
}

// errNoDay is the cause for a record whose timestamp has no full day.
var errNoDay = errors.New("timestamp has no YYYYMMDD day")

// AddRecord counts one index record. Revisits (media type warc/revisit)
// are counted apart; a record identical by RecordID to one already counted
// is counted once. A timestamp shorter than 8 digits is an error, and so is
// a CDXJ record whose JSON block is malformed (the *cdxj.ParseError of
// cdxj.Record.CheckJSON, naming line and column).
func (d *Daily) AddRecord(r *cdxj.Record) error {
	ts := r.Timestamp()
	if len(ts) < 8 {
		return errNoDay
	}
	if err := r.CheckJSON(); err != nil {
		return err // a malformed JSON block: its values cannot be trusted
	}
	if r.IsRevisit() {
		d.stats.Revisits++
		return nil
	}
	ts14 := ts
	if len(ts14) > 14 {
		ts14 = ts14[:14]
	}
	url, file := r.URL(), r.Filename()
	if d.opts.AdjacentDuplicates {
		if string(r.Key()) != string(d.runKey) || string(ts) != string(d.runTS) {
			clear(d.seen)
			d.runKey = append(d.runKey[:0], r.Key()...)
			d.runTS = append(d.runTS[:0], ts...)
		}
	}
	var id [sha1.Size]byte
	id, d.buf = recordHash(d.buf, b2s(url), b2s(ts14), b2s(file))
	if _, dup := d.seen[id]; dup {
		d.stats.Duplicates++
		return nil
	}
	d.seen[id] = struct{}{}
	org := UnknownOrg
	if len(file) > 0 {
		if d.lastOrg.file == b2s(file) {
			org = d.lastOrg.org
		} else {
			org = d.opts.Org(string(file))
			d.lastOrg.file, d.lastOrg.org = string(file), org
		}
	}
	day := d.days[b2s(ts[:8])]
	if day == nil {
		day = make(map[string]*DayOrg)
		d.days[string(ts[:8])] = day
	}
	c := day[org]
	if c == nil {
		c = &DayOrg{}
		day[org] = c
	}
	n, ok := r.Length()
	if !ok || n > MaxRecordLength {
		n = 0
		d.stats.NoLength++
	}
	c.Count++
	c.Size += n
	st := RecordStatus(r)
	if st >= 200 && st <= 299 {
		c.OKCount++
		c.OKSize += n
	}
	d.stats.Records++
	return nil
}

// ReadIndex walks a whole index (Records(cdxj.Query{}): a file, a ZipNum
// cluster, a stream, whatever cdxj.Open opens) and counts its records, as
// Summarizer.ReadIndex does: a bad line (malformed, or a timestamp without
// a day) is an error naming its source and line, or with skipBad is counted
// in Stats().BadLines (the first five in BadExamples); blank (empty) lines
// are counted in Stats().BlankLines; any other error of the input ends it
// and is returned. ctx cancels the walk between records.
func (d *Daily) ReadIndex(ctx context.Context, src cdxj.Searcher, skipBad bool) error {
	n := 0
	for rec, err := range src.Records(cdxj.Query{Blank: &d.stats.BlankLines}) {
		if n++; n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err == nil {
			if err = d.AddRecord(rec); errors.Is(err, errNoDay) {
				err = rec.ParseError(err)
			}
		}
		if err != nil {
			if err := badLine(err, skipBad, &d.stats.BadLines, &d.stats.BadExamples); err != nil {
				return err
			}
			if d.opts.Logger != nil && d.stats.BadLines == 1 {
				d.opts.Logger.Warn("summary: daily: skipped a bad line (first occurrence)", "err", err)
			}
		}
	}
	return ctx.Err()
}

// Stats returns the counts so far.
func (d *Daily) Stats() DailyStats { return d.stats }

// Day is one line of the series.
type Day struct {
	Day  string            // YYYYMMDD
	Orgs map[string]DayOrg // by organization
}

// Totals returns the day's sums over its organizations.
func (d Day) Totals() DayOrg {
	var t DayOrg
	for _, o := range d.Orgs {
		t.Count += o.Count
		t.Size += o.Size
		t.OKCount += o.OKCount
		t.OKSize += o.OKSize
	}
	return t
}

// Days returns the series, days ascending.
func (d *Daily) Days() []Day {
	keys := make([]string, 0, len(d.days))
	for k := range d.days {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]Day, len(keys))
	for i, k := range keys {
		out[i] = Day{Day: k, Orgs: make(map[string]DayOrg, len(d.days[k]))}
		for o, c := range d.days[k] {
			out[i].Orgs[o] = *c
		}
	}
	return out
}

// WriteTo writes the series, one line per day, days ascending:
//
//	20090119 {"CDL": {"count": 3, "size": 300, "okcount": 2, "oksize": 200}, "IA": {...}, "toturis": 5, "totsize": 500, "totokcount": 4, "totoksize": 400}
//
// Organizations are in byte-wise order, followed by the day's totals. When
// index lines were skipped (Stats().BadLines), the series says so in a
// note line, first, as a summary does (see Summarizer.WriteTo):
//
//	!meta {"skipped_lines": 3, "skipped_examples": ["idx.cdxj: line 7: timestamp has no YYYYMMDD day"]}
//
// ReadDays passes over such lines. It implements io.WriterTo.
func (d *Daily) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	var b []byte
	if d.stats.BadLines > 0 {
		b = appendSkippedNote(b, d.stats.BadLines, d.stats.BadExamples)
		m, err := bw.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	for _, day := range d.Days() {
		b = AppendDayLine(b[:0], day)
		m, err := bw.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// dayTotalNames are the member names of a day's totals.
var dayTotalNames = map[string]struct{}{"toturis": {}, "totsize": {}, "totokcount": {}, "totoksize": {}}

// AppendDayLine appends the line of one day (see WriteTo), with its newline.
// An organization named like a totals member ("toturis", "totsize",
// "totokcount", "totoksize", or one of these followed by underscores) is
// written with one more '_', so that the object never repeats a member name.
func AppendDayLine(b []byte, day Day) []byte {
	orgs := make([]string, 0, len(day.Orgs))
	for o := range day.Orgs {
		orgs = append(orgs, o)
	}
	slices.Sort(orgs)
	b = append(b, day.Day...)
	b = append(b, " {"...)
	for _, o := range orgs {
		c := day.Orgs[o]
		name := o
		if _, clash := dayTotalNames[strings.TrimRight(o, "_")]; clash {
			name += "_" // "toturis" would repeat the totals' member name
		}
		q, _ := json.Marshal(name) // a string always marshals
		b = append(b, q...)
		b = append(b, `: {"count": `...)
		b = strconv.AppendInt(b, c.Count, 10)
		b = append(b, `, "size": `...)
		b = strconv.AppendInt(b, c.Size, 10)
		b = append(b, `, "okcount": `...)
		b = strconv.AppendInt(b, c.OKCount, 10)
		b = append(b, `, "oksize": `...)
		b = strconv.AppendInt(b, c.OKSize, 10)
		b = append(b, "}, "...)
	}
	t := day.Totals()
	b = append(b, `"toturis": `...)
	b = strconv.AppendInt(b, t.Count, 10)
	b = append(b, `, "totsize": `...)
	b = strconv.AppendInt(b, t.Size, 10)
	b = append(b, `, "totokcount": `...)
	b = strconv.AppendInt(b, t.OKCount, 10)
	b = append(b, `, "totoksize": `...)
	b = strconv.AppendInt(b, t.OKSize, 10)
	return append(b, "}\n"...)
}

// MaxDayLine is the longest daily-series line ReadDays accepts, in bytes
// (a day of 10,000 organizations is about 1 MiB).
const MaxDayLine = 16 << 20

// ReadDays reads a daily series as WriteTo writes it, one day per line:
// YYYYMMDD, a blank, and the JSON object of organizations and totals. An
// organization written with a trailing '_' to keep it apart from a totals
// member ("toturis_") is read back without it. A line that is not of that
// form — an invalid day, JSON that is not an object of organizations with
// non-negative "count", "size", "okcount" and "oksize", a day given twice,
// days out of order, or totals that differ from the sums of the
// organizations — is a *ParseError naming the line. Blank lines and note
// lines (starting with '!', such as the "!meta" line that records skipped
// index lines) are passed over.
func ReadDays(r io.Reader, name string) ([]Day, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxDayLine)
	var out []Day
	n := int64(0)
	for sc.Scan() {
		n++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(b)) == 0 || b[0] == '!' {
			continue
		}
		d, err := ParseDayLine(b)
		if err == nil && len(out) > 0 && d.Day <= out[len(out)-1].Day {
			err = fmt.Errorf("day %s after %s: days must ascend, once each", d.Day, out[len(out)-1].Day)
		}
		if err != nil {
			return out, &ParseError{Name: name, Line: n, Err: err}
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = ErrLineTooLong
		}
		return out, &ParseError{Name: name, Line: n + 1, Err: err}
	}
	return out, nil
}

// ParseDayLine parses one line of a daily series (see ReadDays), without
// its line end: "YYYYMMDD {...}". Errors say what is wrong, naming the
// day once it is read: no "YYYYMMDD " start, a day that is not a date
// (wrapping timestamp.ErrInvalid), a JSON object that does not parse or
// names a member twice, an organization without non-negative count, size,
// okcount and oksize, an organization twice, sums of the organizations
// that overflow int64 (wrapping ErrOverflow), and totals that differ from
// those sums. The error names no file or line: ReadDays wraps it in a
// *ParseError that does.
func ParseDayLine(b []byte) (Day, error) {
	day, obj, ok := bytes.Cut(b, []byte(" "))
	if !ok || len(day) != 8 {
		return Day{}, errors.New(`want "YYYYMMDD {...}"`)
	}
	if _, err := timestamp.Parse(day); err != nil {
		return Day{}, fmt.Errorf("day %q: not a YYYYMMDD date: %w", day, err)
	}
	members, err := jsonMembers(obj)
	if err != nil {
		return Day{}, fmt.Errorf("day %s: %v", day, err)
	}
	d := Day{Day: string(day), Orgs: make(map[string]DayOrg, len(members))}
	totals := map[string]int64{}
	for k, v := range members {
		if _, isTotal := dayTotalNames[k]; isTotal {
			var t int64
			if err := json.Unmarshal(v, &t); err != nil || t < 0 {
				return Day{}, fmt.Errorf("day %s: %q is not a non-negative integer", day, k)
			}
			totals[k] = t
			continue
		}
		var c struct {
			Count   *int64 `json:"count"`
			Size    *int64 `json:"size"`
			OKCount *int64 `json:"okcount"`
			OKSize  *int64 `json:"oksize"`
		}
		if err := json.Unmarshal(v, &c); err != nil {
			return Day{}, fmt.Errorf("day %s organization %q: %v", day, k, err)
		}
		if c.Count == nil || c.Size == nil || c.OKCount == nil || c.OKSize == nil ||
			*c.Count < 0 || *c.Size < 0 || *c.OKCount < 0 || *c.OKSize < 0 {
			return Day{}, fmt.Errorf("day %s organization %q: want non-negative count, size, okcount and oksize", day, k)
		}
		org := k
		if base := strings.TrimRight(k, "_"); base != k {
			if _, clash := dayTotalNames[base]; clash {
				org = k[:len(k)-1] // written with one more '_'
			}
		}
		if _, dup := d.Orgs[org]; dup {
			return Day{}, fmt.Errorf("day %s: organization %q twice", day, org)
		}
		d.Orgs[org] = DayOrg{Count: *c.Count, Size: *c.Size, OKCount: *c.OKCount, OKSize: *c.OKSize}
	}
	var sum DayOrg
	for _, c := range d.Orgs {
		var ok1, ok2, ok3, ok4 bool
		sum.Count, ok1 = addCount(sum.Count, c.Count)
		sum.Size, ok2 = addCount(sum.Size, c.Size)
		sum.OKCount, ok3 = addCount(sum.OKCount, c.OKCount)
		sum.OKSize, ok4 = addCount(sum.OKSize, c.OKSize)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return Day{}, fmt.Errorf("day %s: %w", day, ErrOverflow)
		}
	}
	for k, want := range map[string]int64{"toturis": sum.Count, "totsize": sum.Size, "totokcount": sum.OKCount, "totoksize": sum.OKSize} {
		if got, ok := totals[k]; ok && got != want {
			return Day{}, fmt.Errorf("day %s: %q is %d, the organizations add up to %d", day, k, got, want)
		}
	}
	return d, nil
}

// jsonMembers returns the members of one JSON object, in order; a member
// name given twice, or text after the object, is an error (a map would
// keep the last value silently).
func jsonMembers(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, errors.New("want a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := t.(string)
		if !ok {
			return nil, errors.New("want a member name")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("member %q twice", k)
		}
		out[k] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object")
	}
	return out, nil
}
