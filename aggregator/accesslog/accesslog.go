// Package accesslog reads the logs of Memento aggregators and of the web
// servers in front of them, for the routing analysis of the MementoMap
// paper (Alam et al., JCDL 2019: its 3.3 M lookups came from aggregator
// logs; internal/spec/MEMENTOMAP.md, "Evaluation"): the URI-Rs asked for,
// with the datetime where the request names one ([Lookup]: lookup lists for "mementomap eval" and
// "mementomap lookup"), what each archive answered (Table 3:
// [ArchiveCounts]), and how often each URI-R was asked against how many
// mementos an index holds of it (Figure 4: [Overlap]).
//
// Formats ([Format]): the NCSA Common Log Format and Apache's Combined
// format, MemGator's log (its "INFO:"/"ERROR:"/"BENCHMARK:" lines, written
// by oduwsdl/MemGator main.go), and the JSON records of this module's
// aggregator (aggregator/server's "access" records, or the aggregator's
// own "request" records when the access log is off). Request targets are
// read as the aggregator's endpoints (/timemap, /timegate, /memento,
// /api, /list) and as Wayback replay paths (/web/{datetime}/{URI-R}).
//
// The package lives beside the aggregator, not in mementomap: the logs are
// an aggregator's, their per-archive outcomes are the aggregator's
// statuses, and URI-Rs are read with its request rules
// (aggregator.NormalizeURIR, aggregator.ParsePathDatetime); mementomap
// takes plain lookup lists and stays free of log formats.
//
// No line is lost silently: a line that is not of the file's format is
// counted as bad and named (file and line) in [Stats.BadLines]; a lookup
// request whose URI-R or datetime does not parse is counted as refused and
// named there too; records that are no lookups (static files, /metrics,
// MemGator's start-up lines) are counted as other.
package accesslog

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/memento"
)

// Format is the layout of a log file.
type Format string

// The formats.
const (
	// Auto detects the format of each file from its first non-empty line.
	Auto Format = ""
	// Common is the NCSA Common Log Format:
	// host ident user [02/Jan/2006:15:04:05 -0700] "GET /target HTTP/1.1" status bytes.
	Common Format = "common"
	// Combined is Common with "referer" "user-agent" after the bytes.
	Combined Format = "combined"
	// MemGator is MemGator's log: "INFO: 2006/01/02 15:04:05.000000 Aggregating
	// Mementos for URI-R", "INFO: ... ID => Success: N mementos", "ERROR: ...
	// main.go:292: ID => Network error: ...", "BENCHMARK: ...".
	MemGator Format = "memgator"
	// Aggregator is this module's aggregator log, one JSON object a line
	// (log format json): "access" records with urir, target, accept_datetime,
	// from_cache and archives (aggregator.Result.OutcomeLog), "request"
	// records of the aggregator, and "archive dormant" records.
	Aggregator Format = "aggregator"
)

// ParseFormat reads a format name: auto (or ""), common, combined,
// memgator or aggregator. Any other name is an error naming it and those.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case "auto":
		return Auto, nil
	case Auto, Common, Combined, MemGator, Aggregator:
		return f, nil
	}
	return Auto, fmt.Errorf("accesslog: format %q: want auto, common, combined, memgator or aggregator", s)
}

// Lookup is one URI-R requested.
type Lookup struct {
	// URIR is the URI-R as the aggregator reads it (aggregator.NormalizeURIR).
	URIR string
	// Datetime is the datetime the request asked for (a TimeGate's
	// Accept-Datetime, the {datetime} of /memento, /api, /list and /web
	// paths), UTC; zero when it named none.
	Datetime time.Time
	File     string // the log file's name
	Line     int64  // its line, from 1
}

// ArchiveCounts is one archive's row of the paper's Table 3: what it
// answered to the searches of the logs read. Requests = Hits + Misses +
// Errors + Skipped + Dormant.
type ArchiveCounts struct {
	Archive  string `json:"archive"`
	Requests int64  `json:"requests"` // searches that considered the archive
	Hits     int64  `json:"hits"`     // answered with mementos
	Misses   int64  `json:"misses"`   // answered none (404, 410, or an empty TimeMap)
	Errors   int64  `json:"errors"`   // asked, the request failed
	Skipped  int64  `json:"skipped"`  // not asked: its MementoMap says it holds nothing
	Dormant  int64  `json:"dormant"`  // not asked: sleeping after consecutive failures
	// Slept is how often it was put to sleep (MemGator's "Dormant after"
	// lines, the aggregator's "archive dormant" records).
	Slept int64 `json:"slept"`
}

// BadLine names one line that was not read as a lookup.
type BadLine struct {
	File   string `json:"file"`
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
}

// String is "FILE:LINE: REASON".
func (b BadLine) String() string { return fmt.Sprintf("%s:%d: %s", b.File, b.Line, b.Reason) }

// Stats counts what a [Reader] read.
type Stats struct {
	Files   int   `json:"files"`
	Lines   int64 `json:"lines"`   // lines read, blank ones included
	Lookups int64 `json:"lookups"` // lookups handed on
	// WithDatetime counts the lookups that name a datetime.
	WithDatetime int64 `json:"with_datetime"`
	// Searched and FromCache split the lookups of aggregator logs: answered
	// by a search of the archives, or from the cache (no archive asked).
	Searched  int64 `json:"searched"`
	FromCache int64 `json:"from_cache"`
	Other     int64 `json:"other"`   // well-formed records that are no lookups
	Refused   int64 `json:"refused"` // lookup requests whose URI-R or datetime does not parse
	Bad       int64 `json:"bad"`     // lines not of the file's format
	Blank     int64 `json:"blank"`   // empty lines
	// BadLines are the first Options.MaxBadLines bad and refused lines.
	BadLines []BadLine `json:"bad_lines,omitempty"`
	// Formats is the format of each file read, in order.
	Formats []Format `json:"formats"`
	// Archives is Table 3, sorted by archive id.
	Archives []ArchiveCounts `json:"archives,omitempty"`
}

// Options sets up a [Reader]; nil means the defaults.
type Options struct {
	// Format of every file; Auto detects each file's.
	Format Format
	// Root is the path prefix the aggregator answers under (its -root,
	// such as "/mg"); it is removed from request targets before they are
	// read. "" means none.
	Root string
	// MaxBadLines bounds Stats.BadLines; 0 means 20, negative keeps none.
	MaxBadLines int
	// MaxLineLength is the longest line read; a longer one is bad. 0 means
	// 1 MiB.
	MaxLineLength int
}

// Reader reads log files one after the other and keeps the counts of all.
// It is not safe for concurrent use.
type Reader struct {
	o        Options
	st       Stats
	archives map[string]*ArchiveCounts
}

// NewReader returns a Reader with opts (nil: the defaults).
func NewReader(opts *Options) *Reader {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBadLines == 0 {
		o.MaxBadLines = 20
	}
	if o.MaxLineLength <= 0 {
		o.MaxLineLength = 1 << 20
	}
	o.Root = strings.TrimRight(o.Root, "/")
	return &Reader{o: o, archives: map[string]*ArchiveCounts{}}
}

// Stats returns the counts of every file read so far.
func (r *Reader) Stats() Stats {
	st := r.st
	st.BadLines = slices.Clone(st.BadLines)
	st.Formats = slices.Clone(st.Formats)
	st.Archives = make([]ArchiveCounts, 0, len(r.archives))
	for _, a := range r.archives {
		st.Archives = append(st.Archives, *a)
	}
	slices.SortFunc(st.Archives, func(a, b ArchiveCounts) int { return strings.Compare(a.Archive, b.Archive) })
	return st
}

// ReadFile reads the log at path (gzip-compressed or not) with [Reader.Read].
// Errors: a file that does not open and gzip data that does not start,
// each naming path, and Read's.
func (r *Reader) ReadFile(ctx context.Context, path string, fn func(Lookup) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rc, err := cdxj.NewDecompressor(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rc.Close()
	return r.Read(ctx, rc, path, fn)
}

// Read reads one log from src, named name in Lookup.File and BadLine.File,
// and calls fn for every lookup, in log order. Bad lines are counted and
// named, never an error; an error of src, of fn, or ctx ending stops it.
func (r *Reader) Read(ctx context.Context, src io.Reader, name string, fn func(Lookup) error) error {
	r.st.Files++
	f := r.o.Format
	br := bufio.NewReaderSize(src, 64<<10)
	var n int64
	var long []byte
	detected := f != Auto
	if detected {
		r.st.Formats = append(r.st.Formats, f)
	}
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull && len(long) <= r.o.MaxLineLength {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			for err == bufio.ErrBufferFull { // too long: skip its rest
				_, err = br.ReadSlice('\n')
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: line %d: %w", name, n+1, err)
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		n++
		r.st.Lines++
		if n&0xfff == 0 {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
		}
		s := strings.TrimRight(string(line), "\r\n")
		switch {
		case len(s) > r.o.MaxLineLength:
			r.bad(name, n, fmt.Sprintf("line longer than %d bytes", r.o.MaxLineLength))
		case strings.TrimSpace(s) == "":
			r.st.Blank++
		default:
			if !detected {
				f, detected = Detect(s), true
				r.st.Formats = append(r.st.Formats, f)
			}
			if ferr := r.line(f, name, n, s, fn); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			break
		}
	}
	return ctx.Err()
}

// Detect names the format of a log from one of its lines: Aggregator for
// a JSON object, MemGator for a line starting with one of its logger
// prefixes, Combined for a Common line followed by two quoted fields,
// else Common.
func Detect(line string) Format {
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "{"):
		return Aggregator
	case strings.HasPrefix(line, "INFO: "), strings.HasPrefix(line, "ERROR: "),
		strings.HasPrefix(line, "BENCHMARK: "), strings.HasPrefix(line, "FATAL: "):
		return MemGator
	}
	if rec, err := parseCLF(line); err == nil && rec.combined {
		return Combined
	}
	return Common
}

func (r *Reader) bad(file string, line int64, reason string) {
	r.st.Bad++
	r.note(file, line, reason)
}

func (r *Reader) refused(file string, line int64, reason string) {
	r.st.Refused++
	r.note(file, line, reason)
}

func (r *Reader) note(file string, line int64, reason string) {
	if len(r.st.BadLines) < r.o.MaxBadLines {
		r.st.BadLines = append(r.st.BadLines, BadLine{File: file, Line: line, Reason: reason})
	}
}

func (r *Reader) archive(id string) *ArchiveCounts {
	a := r.archives[id]
	if a == nil {
		a = &ArchiveCounts{Archive: id}
		r.archives[id] = a
	}
	return a
}

func (r *Reader) line(f Format, file string, n int64, s string, fn func(Lookup) error) error {
	switch f {
	case Common, Combined:
		rec, err := parseCLF(s)
		if err == nil && f == Combined && !rec.combined {
			err = errors.New("no quoted referer and user agent after the bytes")
		}
		if err != nil {
			r.bad(file, n, string(f)+" log: "+err.Error())
			return nil
		}
		return r.target(file, n, rec.method, rec.target, "", fn)
	case MemGator:
		return r.memgator(file, n, s, fn)
	case Aggregator:
		return r.aggregator(file, n, s, fn)
	}
	r.bad(file, n, fmt.Sprintf("unknown format %q", f))
	return nil
}

// target reads a request target as a lookup (or as another request).
// acceptDatetime is the request's Accept-Datetime header, when known.
func (r *Reader) target(file string, n int64, method, target, acceptDatetime string, fn func(Lookup) error) error {
	if method != "" && method != http.MethodGet && method != http.MethodHead {
		r.st.Other++
		return nil
	}
	raw, dt, ok := ParseTarget(target, r.o.Root)
	if !ok {
		r.st.Other++
		return nil
	}
	return r.lookup(file, n, raw, dt, acceptDatetime, fn)
}

// lookup hands on the lookup of a raw URI-R with the datetime of its path
// (dt) or of its Accept-Datetime header.
func (r *Reader) lookup(file string, n int64, raw, dt, acceptDatetime string, fn func(Lookup) error) error {
	urir, err := aggregator.NormalizeURIR(raw)
	if err != nil {
		r.refused(file, n, err.Error())
		return nil
	}
	l := Lookup{URIR: urir, File: file, Line: n}
	switch {
	case dt != "":
		if l.Datetime, err = aggregator.ParsePathDatetime(dt); err != nil {
			r.refused(file, n, fmt.Sprintf("datetime %q: %v", dt, err))
			return nil
		}
	case acceptDatetime != "":
		if l.Datetime, err = memento.ParseHTTPDateLenient(acceptDatetime); err != nil {
			r.refused(file, n, fmt.Sprintf("Accept-Datetime %q: %v", acceptDatetime, err))
			return nil
		}
	}
	r.st.Lookups++
	if !l.Datetime.IsZero() {
		r.st.WithDatetime++
	}
	return fn(l)
}

// ParseTarget reads a request target (path and query, as logged) as a
// lookup: the raw URI-R and the raw {datetime} of the path ("" when it
// has none), and false for a target that names no URI-R. root, the path
// prefix of the service ("" for none), is removed first. The endpoints:
//
//	/timemap/{link|json|cdxj}[/{N}]/{URI-R}, /timemap/index/{URI-R}
//	/timegate/{URI-R}
//	/memento[/{link|json|cdxj|proxy}]/{datetime}/{URI-R}
//	/api[/{json|link|cdxj}]/{datetime}/{URI-R}
//	/list/{datetime}/{URI-R}
//	/web/{datetime}[modifier]/{URI-R}  (Wayback replay; /web/*/{URI-R}: no datetime)
func ParseTarget(target, root string) (urir, datetime string, ok bool) {
	root = strings.TrimRight(root, "/")
	if root != "" {
		rest, found := strings.CutPrefix(target, root)
		if !found || rest != "" && rest[0] != '/' {
			return "", "", false
		}
		target = rest
	}
	seg := func(s string) (string, string, bool) {
		a, b, found := strings.Cut(s, "/")
		return a, b, found && a != "" && b != ""
	}
	isFormat := func(s string, proxy bool) bool {
		return s == "link" || s == "json" || s == "cdxj" || proxy && s == "proxy"
	}
	ep, rest, found := strings.Cut(strings.TrimPrefix(target, "/"), "/")
	if !found || rest == "" || !strings.HasPrefix(target, "/") {
		return "", "", false
	}
	switch ep {
	case "timemap":
		f, tail, ok := seg(rest)
		if !ok {
			return "", "", false
		}
		if f == "index" {
			return tail, "", true
		}
		if !isFormat(f, false) {
			return "", "", false
		}
		if p, t2, ok := seg(tail); ok && allDigits(p) {
			tail = t2 // a page number
		}
		return tail, "", true
	case "timegate":
		return rest, "", true
	case "memento", "api":
		a, tail, ok := seg(rest)
		if !ok {
			return "", "", false
		}
		if isFormat(a, ep == "memento") {
			if a, tail, ok = seg(tail); !ok {
				return "", "", false
			}
		}
		return tail, a, true
	case "list":
		a, tail, ok := seg(rest)
		if !ok {
			return "", "", false
		}
		return tail, a, true
	case "web":
		a, tail, ok := seg(rest)
		if !ok {
			return "", "", false
		}
		if a == "*" || strings.HasPrefix(a, "*") {
			return tail, "", true
		}
		i := 0
		for i < len(a) && a[i] >= '0' && a[i] <= '9' {
			i++
		}
		if i == 0 {
			return "", "", false // a collection name, a static path
		}
		return tail, a[:i], true
	}
	return "", "", false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// clfRecord is one line of the Common or Combined format.
type clfRecord struct {
	method, target string
	status         int
	combined       bool
}

// parseCLF reads host ident user [time] "request" status bytes
// ["referer" "user-agent"]; fields past them are ignored.
func parseCLF(s string) (clfRecord, error) {
	var rec clfRecord
	for i := 0; i < 3; i++ { // host, ident, user
		j := strings.IndexByte(s, ' ')
		if j <= 0 {
			return rec, errors.New("want host ident user [time] \"request\" status bytes")
		}
		s = s[j+1:]
	}
	if !strings.HasPrefix(s, "[") {
		return rec, errors.New("no [time] after host ident user")
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return rec, errors.New("[time] not closed")
	}
	if _, err := time.Parse("02/Jan/2006:15:04:05 -0700", s[1:end]); err != nil {
		return rec, fmt.Errorf("time %q: want 02/Jan/2006:15:04:05 -0700", s[1:end])
	}
	s = strings.TrimPrefix(s[end+1:], " ")
	req, s, err := quoted(s)
	if err != nil {
		return rec, fmt.Errorf("request: %v", err)
	}
	fs := strings.Fields(s)
	if len(fs) < 2 {
		return rec, errors.New("no status and bytes after the request")
	}
	if fs[0] != "-" {
		if rec.status, err = strconv.Atoi(fs[0]); err != nil || rec.status < 100 || rec.status > 999 {
			return rec, fmt.Errorf("status %q", fs[0])
		}
	}
	if _, err := strconv.ParseInt(fs[1], 10, 64); err != nil && fs[1] != "-" {
		return rec, fmt.Errorf("bytes %q", fs[1])
	}
	rest := strings.TrimLeft(s, " ")
	rest = strings.TrimLeft(rest[len(fs[0]):], " ")
	rest = strings.TrimLeft(rest[len(fs[1]):], " ")
	if rest != "" {
		if _, r2, err := quoted(rest); err == nil {
			if _, _, err := quoted(strings.TrimLeft(r2, " ")); err == nil {
				rec.combined = true
			}
		}
	}
	// A request line that is not "METHOD TARGET PROTO" (garbage sent to
	// the port, logged as it came) is a well-formed record, not a lookup.
	if parts := strings.Split(req, " "); len(parts) == 3 || len(parts) == 2 {
		rec.method, rec.target = parts[0], parts[1]
	}
	return rec, nil
}

// quoted reads a "..." field with Apache's escapes (\" and \\) at the
// start of s, and returns it unescaped and the rest of s.
func quoted(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, errors.New("want a quoted field")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(c)
		}
	}
	return "", s, errors.New("quoted field not closed")
}

// memgator reads one line of MemGator's log.
func (r *Reader) memgator(file string, n int64, s string, fn func(Lookup) error) error {
	var msg string
	switch {
	case strings.HasPrefix(s, "FATAL: "):
		r.st.Other++
		return nil
	case strings.HasPrefix(s, "INFO: "):
		msg = s[len("INFO: "):]
	case strings.HasPrefix(s, "ERROR: "):
		msg = s[len("ERROR: "):]
	case strings.HasPrefix(s, "BENCHMARK: "):
		msg = s[len("BENCHMARK: "):]
	default:
		r.bad(file, n, "memgator log: want INFO:, ERROR:, BENCHMARK: or FATAL: at the start")
		return nil
	}
	// log.Ldate|log.Lmicroseconds: "2006/01/02 15:04:05.000000 "
	const stamp = "2006/01/02 15:04:05.000000"
	if len(msg) < len(stamp)+1 || msg[len(stamp)] != ' ' {
		r.bad(file, n, "memgator log: want a date and time (2006/01/02 15:04:05.000000) after the level")
		return nil
	}
	if _, err := time.Parse(stamp, msg[:len(stamp)]); err != nil {
		r.bad(file, n, fmt.Sprintf("memgator log: time %q", msg[:len(stamp)]))
		return nil
	}
	msg = msg[len(stamp)+1:]
	if strings.HasPrefix(s, "ERROR: ") {
		// log.Lshortfile: "main.go:292: "
		if i := strings.Index(msg, ": "); i > 0 && strings.Contains(msg[:i], ".go:") {
			msg = msg[i+2:]
		}
	}
	if u, ok := strings.CutPrefix(msg, "Aggregating Mementos for "); ok {
		return r.lookup(file, n, strings.TrimSpace(u), "", "", fn)
	}
	id, what, ok := strings.Cut(msg, " => ")
	if !ok || id == "" || strings.Contains(id, " ") {
		r.st.Other++
		return nil
	}
	switch {
	case strings.HasPrefix(what, "Success: "):
		k, _, _ := strings.Cut(strings.TrimPrefix(what, "Success: "), " ")
		m, err := strconv.Atoi(k)
		if err != nil || m < 0 {
			r.bad(file, n, fmt.Sprintf("memgator log: memento count %q", k))
			return nil
		}
		a := r.archive(id)
		a.Requests++
		if m > 0 {
			a.Hits++
		} else {
			a.Misses++
		}
	case strings.HasPrefix(what, "Response error: "):
		code, _, _ := strings.Cut(strings.TrimPrefix(what, "Response error: "), " ")
		a := r.archive(id)
		a.Requests++
		if code == "404" || code == "410" {
			a.Misses++
		} else {
			a.Errors++
		}
	case strings.HasPrefix(what, "Request error: "), strings.HasPrefix(what, "Network error: "),
		strings.HasPrefix(what, "Response read error: "):
		a := r.archive(id)
		a.Requests++
		a.Errors++
	case strings.HasPrefix(what, "Dormant after "):
		r.archive(id).Slept++
	default:
		r.st.Other++ // "Awake after ..."
	}
	return nil
}

// aggRecord is the part of an aggregator log record that is read.
type aggRecord struct {
	Msg            string
	URIR           *string
	Method         string
	Target         string
	Path           string
	Scenario       string
	FromCache      bool
	AcceptDatetime string
	// Archives is the outcome log of access and request records (a
	// string); other records use the key for other things.
	Archives json.RawMessage
	Archive  string
}

// aggregator reads one JSON record of the aggregator's log. Only the
// members the record's message uses are decoded, each to its type (a
// member of another type makes the line bad, named); members it does not
// use may hold anything, so that a log with more or other fields reads.
func (r *Reader) aggregator(file string, n int64, s string, fn func(Lookup) error) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		r.bad(file, n, "aggregator log: not a JSON record: "+err.Error())
		return nil
	}
	// get decodes member name into dst (left as it is when absent or
	// null) and reports whether it could.
	get := func(name string, dst any) bool {
		v, ok := raw[name]
		if !ok || string(v) == "null" {
			return true
		}
		if err := json.Unmarshal(v, dst); err != nil {
			r.bad(file, n, fmt.Sprintf("aggregator log: member %q: %v", name, err))
			return false
		}
		return true
	}
	var rec aggRecord
	if !get("msg", &rec.Msg) {
		return nil
	}
	switch rec.Msg {
	case "access", "request":
	case "archive dormant":
		if !get("archive", &rec.Archive) {
			return nil
		}
		if rec.Archive == "" {
			r.bad(file, n, `aggregator log: "archive dormant" record without "archive"`)
			return nil
		}
		r.archive(rec.Archive).Slept++
		return nil
	default:
		r.st.Other++
		return nil
	}
	if !get("urir", &rec.URIR) || !get("method", &rec.Method) || !get("target", &rec.Target) || !get("path", &rec.Path) ||
		!get("scenario", &rec.Scenario) || !get("from_cache", &rec.FromCache) || !get("accept_datetime", &rec.AcceptDatetime) {
		return nil
	}
	rec.Archives = raw["archives"]
	if string(rec.Archives) == "null" {
		rec.Archives = nil
	}
	target := rec.Target
	if target == "" {
		target = rec.Path
	}
	if rec.URIR == nil {
		// No lookup was made: a page, /metrics, or a lookup request
		// refused before it (a URI-R or datetime that does not parse),
		// which its target tells.
		return r.target(file, n, rec.Method, target, rec.AcceptDatetime, fn)
	}
	if rec.Scenario == "bad-uri-r" {
		r.refused(file, n, fmt.Sprintf("the aggregator refused the URI-R %q (bad-uri-r)", *rec.URIR))
		return nil
	}
	_, dt, _ := ParseTarget(target, r.o.Root)
	var outcomes []outcome
	if len(rec.Archives) > 0 {
		var log string
		err := json.Unmarshal(rec.Archives, &log)
		if err == nil && log != "" {
			outcomes, err = parseOutcomeLog(log)
		}
		if err != nil {
			r.bad(file, n, "aggregator log: archives: "+err.Error())
			return nil
		}
	}
	before := r.st.Lookups
	if err := r.lookup(file, n, *rec.URIR, dt, rec.AcceptDatetime, fn); err != nil || r.st.Lookups == before {
		return err
	}
	switch {
	case rec.FromCache:
		r.st.FromCache++
	case len(outcomes) > 0:
		r.st.Searched++
	}
	for _, o := range outcomes {
		a := r.archive(o.archive)
		a.Requests++
		switch o.status {
		case aggregator.StatusFound:
			a.Hits++
		case aggregator.StatusNone:
			a.Misses++
		case aggregator.StatusFailed:
			a.Errors++
		case aggregator.StatusSkippedByMap:
			a.Skipped++
		case aggregator.StatusDormant:
			a.Dormant++
		}
	}
	return nil
}

type outcome struct {
	archive string
	status  aggregator.Status
}

// parseOutcomeLog reads aggregator.Result.OutcomeLog's form:
// "id=found:3, id=none, id=failed:timeout, id=skipped-by-map, id=dormant".
func parseOutcomeLog(s string) ([]outcome, error) {
	var out []outcome
	for _, p := range strings.Split(s, ", ") {
		i := strings.IndexByte(p, '=')
		if i <= 0 {
			return nil, fmt.Errorf("%q: want id=status", p)
		}
		st, detail, _ := strings.Cut(p[i+1:], ":")
		o := outcome{archive: p[:i]}
		switch st {
		case "found":
			if m, err := strconv.Atoi(detail); err != nil || m < 0 {
				return nil, fmt.Errorf("%q: want found:MEMENTOS", p)
			}
			o.status = aggregator.StatusFound
		case "none":
			o.status = aggregator.StatusNone
		case "failed":
			o.status = aggregator.StatusFailed
		case "skipped-by-map":
			o.status = aggregator.StatusSkippedByMap
		case "dormant":
			o.status = aggregator.StatusDormant
		default:
			return nil, fmt.Errorf("%q: unknown status %q", p, st)
		}
		out = append(out, o)
	}
	return out, nil
}
