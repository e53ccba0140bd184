package mementomap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/extsort"
	"github.com/mementokit/mementokit/surt"
)

// BuildOptions sets up [Build] and [LoadTruth]; a nil *BuildOptions is the
// zero value, which counts every capture of an HTTP(S) URI-R, revisits
// included.
type BuildOptions struct {
	// ArchiveID names the archive in the !id header ({"uri": ArchiveID}),
	// Name goes into !meta. Both may be empty.
	ArchiveID string
	Name      string

	// StatusClasses keeps only captures whose HTTP status is in one of
	// these classes (2 for 2xx, 3 for 3xx, ...); records with an unknown
	// status (revisits usually) are then left out. Empty keeps all.
	StatusClasses []int
	// MIMETypes keeps only captures whose media type (before any ';',
	// case-insensitive) is listed; "text/*" matches a whole type. Empty
	// keeps all. The paper's baseline is StatusClasses {2} with
	// MIMETypes {"text/html"}.
	MIMETypes []string
	// ExcludeRevisits leaves out revisit records (MIME warc/revisit).
	ExcludeRevisits bool
	// ExcludeRobots leaves out /robots.txt and /sitemap.xml at a host root.
	ExcludeRobots bool

	// Rekey canonicalizes every record's original URL with surt's default
	// profile instead of using the index key as it is. Without it every
	// record that has both a SURT key and an original URL is still
	// checked: a key that differs from the URL's canonical SURT (one made
	// by another canonicalizer, such as ipwb's "…)/path/") is replaced by
	// it, so that a lookup of the URL finds it, and counted in
	// BuildStats.Mismatched and in !meta "rekeyed_lines". Rekey is then
	// only needed for keys that are SURTs of another form entirely. Build
	// sorts the remade keys; BuildPart (and the beam pipeline) needs the
	// input in their byte-wise order (cdxj.KeyOrder).
	Rekey bool

	// SkipBad passes over bad lines, counting them in BuildStats.Bad and
	// recording the count in the map's !meta header ("skipped_lines"),
	// instead of stopping at the first with an error naming its source and
	// line. A bad line is one the index reader cannot parse, a CDXJ line
	// whose JSON block is malformed, or a record whose URL does not
	// canonicalize to a SURT.
	SkipBad bool

	// MemoryLimit bounds the in-memory sort chunk in bytes; past it sorted
	// runs are spilled to TempDir and merged. 0 means DefaultSortMemory.
	// The process's peak resident memory is about 3 to 4 times this (the
	// chunk while it grows, the garbage collector's headroom, buffers).
	MemoryLimit int64
	TempDir     string // "" means os.TempDir()

	// Workers bounds the parts of the inputs built at once, each on its
	// own goroutine (see Build); 0 means runtime.GOMAXPROCS(0), 1 reads
	// the inputs one after the other in the calling goroutine. The map is
	// the same whatever the number.
	Workers int

	// Datetime, when not 0, writes a map with a datetime key column
	// (internal/spec/MEMENTOMAP.md, "Time keys"; ORS draft ukvs.md, "The
	// datetime Field"): !fields {"keys": ["surt", "datetime"], "values":
	// ["frequency"]}, and one line "HXPX DATETIME M/R" per HxPx key and
	// capture datetime, DATETIME the first Datetime digits of the
	// captures' timestamps (4 a year, 6 a month, 8 a day, 10, 12, or 14 a
	// second; a timestamp with fewer digits is kept whole), M the captures
	// of the key in that period and R their distinct URI-Rs. Map.LookupAt
	// answers such a map by URI and datetime. Such a map is built in the
	// calling goroutine (Workers does not apply), and BuildPart refuses
	// it. 0 writes one line per HxPx key, with no datetime.
	Datetime int

	Now    func() time.Time // for !meta updated_at; nil means time.Now
	Logger *slog.Logger     // optional
}

// DefaultSortMemory is the default BuildOptions.MemoryLimit: 96 MiB, which
// keeps a build's peak resident memory under 512 MiB for any input size.
const DefaultSortMemory = 96 << 20

// BuildStats counts what [Build] did.
type BuildStats struct {
	Records  int64 // index records read
	Used     int64 // records counted in the map (URI-M total)
	Filtered int64 // left out by the status, MIME, revisit or robots filters
	NonHTTP  int64 // left out as non-HTTP(S) pseudo-URIs (dns:, warcinfo, ...)
	Bad      int64 // bad lines skipped under SkipBad: unparseable, a malformed JSON block, or a URL that does not canonicalize
	// BadExamples holds up to 5 of those, each "SOURCE: line N: cause".
	BadExamples []string
	// Blank counts the blank (empty) index lines passed over: they hold
	// no record and are no error, so they never stop a build, SkipBad or
	// not, and are not counted in Bad (cdxj.Query.Blank; a line of spaces
	// is a bad line). The map's !meta records them ("blank_lines").
	Blank      int64
	Keys       int64 // data lines written (distinct HxPx keys, or HxPx keys and periods under BuildOptions.Datetime)
	URIRs      int64 // distinct URI-Rs (full SURTs, query included); under BuildOptions.Datetime, distinct URI-Rs and periods (a URI-R captured in 3 periods counts 3)
	Runs       int   // sorted runs spilled to disk
	Checked    int64 // records whose SURT key was compared with the canonical SURT of their original URL (or of the URL the key stands for, when there is none)
	Mismatched int64 // of those, keys that differ, replaced by the canonical SURT
	// MismatchExamples holds up to 5 "key <> canonical (url)" examples.
	MismatchExamples []string
}

// MismatchRate returns Mismatched/Checked, or 0 when nothing was checked.
func (s BuildStats) MismatchRate() float64 {
	if s.Checked == 0 {
		return 0
	}
	return float64(s.Mismatched) / float64(s.Checked)
}

// Build reads CDX/CDXJ indexes (any number, sorted or not, each walked
// whole with Records(cdxj.Query{}): files, ZipNum clusters, streams, CDX
// servers, whatever cdxj.Open opens) and writes a baseline MementoMap to
// dst (internal/spec/MEMENTOMAP.md; the paper's Section 4): UKVS headers
// (!context, !id, !fields, !meta with name, type "MementoMap", updated_at
// and, when bad lines were skipped under o.SkipBad, "skipped_lines", when
// blank index lines were passed over, "blank_lines"), then
// one line "HXPX M/R" per HxPx key in byte-wise order, where M is the
// number of index records (duplicates of a capture included, see the
// package doc) and R the number of distinct URI-Rs (full SURTs,
// query included) under that key.
//
// SURT keys of the index are used as they are (query cut); keys that are
// not SURTs (wget's URL-keyed CDX) and every key under Rekey are
// canonicalized from the original URL with surt.Canonicalize. Non-HTTP(S)
// pseudo-URIs are always left out. Every other SURT key is checked against
// the canonicalization a lookup will use (see Rekey): a key that differs is
// replaced by the canonical SURT of the record's URL, logged and counted,
// so that the map never misses a URL the index holds.
//
// Memory is bounded by o.MemoryLimit whatever the input size: an external
// sort spills sorted runs (unlinked temporary files in o.TempDir) and
// merges them; on several workers each part's map lines are written to
// such a file as the part is read (as soon as it is read, for a part whose
// keys do not come in order), and the map is then those files copied one
// after the other. The keys of an index sorted byte-wise by key are written to
// one such run as they are read, not held in memory (at most 4 MiB of
// them are, while the queries of an HxPx key may follow). A bad line stops the build with an error naming its source
// and line (a *cdxj.ParseError), unless o.SkipBad; any other error of an
// input (an unreadable file, a corrupt gzip member) stops it always. No
// line that parses is left out but by the filters o asks for. ctx cancels
// the build. opts may be nil (the defaults of [BuildOptions]).
func Build(ctx context.Context, dst io.Writer, inputs []cdxj.Searcher, opts *BuildOptions) (BuildStats, error) {
	o := buildOptions(opts)
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultSortMemory
	}
	if err := o.CheckDatetime(); err != nil {
		return BuildStats{}, err
	}
	var st BuildStats
	var err error
	if w := o.workers(); w > 1 && o.Datetime == 0 {
		st, err = buildParallel(ctx, dst, inputs, o, w)
		if !errors.Is(err, errSequential) {
			return st, err
		}
	}
	b := newBuilder(o)
	finish := b.sortInto(extsort.New(o.MemoryLimit, o.TempDir))
	if o.Datetime > 0 {
		// Sort keys by HxPx key and datetime: not the index's order.
		b.sink = func(k []byte, _ int) error { return b.s.Add(k, 1) }
	}
	for _, in := range inputs {
		if err := b.read(ctx, in.Records(cdxj.Query{Blank: &b.st.Blank})); err != nil {
			b.s.Close()
			return b.st, err
		}
	}
	if err := finish(); err != nil {
		b.s.Close()
		return b.st, err
	}
	b.st.Runs = b.s.Runs()
	bw := bufio.NewWriterSize(dst, 1<<20)
	if err := writeBuildHeaders(bw, o, &b.st, nil, nil); err != nil {
		b.s.Close()
		return b.st, err
	}
	if err := writeMapLines(ctx, bw, &b.st, []*extsort.Sorter{b.s}, o.Datetime > 0); err != nil {
		return b.st, err
	}
	b.logDone()
	return b.st, nil
}

func (b *builder) logDone() {
	if b.o.Logger != nil {
		b.o.Logger.Info("built MementoMap", "records", b.st.Records, "used", b.st.Used,
			"keys", b.st.Keys, "urirs", b.st.URIRs, "runs", b.st.Runs,
			"checked", b.st.Checked, "mismatched", b.st.Mismatched)
	}
}

// writeMapLines writes the data lines of the sort keys of ss (see eachOf)
// to bw and flushes it, counting Keys and URIRs in st. Without datetime
// the sort keys are "HXPX\x00QUERY" and each HxPx key is one line
// "HXPX M/R"; with datetime (BuildOptions.Datetime) they are
// "HXPX\x00DATETIME\x00QUERY" and each HxPx key and datetime is one line
// "HXPX DATETIME M/R", a URI-R counted once per period it was captured in.
func writeMapLines(ctx context.Context, bw *bufio.Writer, st *BuildStats, ss []*extsort.Sorter, datetime bool) error {
	var cur []byte // "HXPX", or "HXPX\x00DATETIME" with datetime
	var m, r uint64
	var line []byte
	emit := func() error {
		var err error
		if line, err = appendMapLine(line[:0], cur, m, r); err != nil {
			return err
		}
		st.Keys++
		_, err = bw.Write(line)
		return err
	}
	n := 0
	err := extsort.EachOf(ss, func(key []byte, count uint64) error {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		h := key
		if i := bytes.IndexByte(key, 0); i >= 0 {
			if !datetime {
				h = key[:i]
			} else if j := bytes.IndexByte(key[i+1:], 0); j >= 0 {
				h = key[:i+1+j]
			}
		}
		st.URIRs++
		if len(cur) > 0 && bytes.Equal(h, cur) {
			m += count
			r++
			return nil
		}
		if len(cur) > 0 {
			if err := emit(); err != nil {
				return err
			}
		}
		cur = append(cur[:0], h...)
		m, r = count, 1
		return nil
	})
	if err == nil && len(cur) > 0 {
		err = emit()
	}
	if err == nil {
		err = bw.Flush()
	}
	return err
}

// appendMapLine appends to line the map line of the group cur ("HXPX",
// or "HXPX\x00DATETIME" with datetime) with m captures of r URI-Rs:
// "HXPX M/R\n" or "HXPX DATETIME M/R\n". A line longer than
// MaxLineLength (without its newline) is an error wrapping
// ErrLineTooLong.
func appendMapLine(line, cur []byte, m, r uint64) ([]byte, error) {
	hx, dt, timed := bytes.Cut(cur, []byte{0})
	start := len(line)
	line = append(line, hx...)
	if timed {
		line = append(line, ' ')
		line = append(line, dt...)
	}
	line = append(line, ' ')
	line = strconv.AppendUint(line, m, 10)
	line = append(line, '/')
	line = strconv.AppendUint(line, r, 10)
	if n := len(line) - start; n > MaxLineLength {
		return line, fmt.Errorf("mementomap: %w: the map line of key %.60q... would have %d bytes, more than %d", ErrLineTooLong, hx, n, MaxLineLength)
	}
	return append(line, '\n'), nil
}

// ErrDatetimeDigits is returned by [Build] and [BuildPart] for a
// BuildOptions.Datetime that is not 0, 4, 6, 8, 10, 12 or 14, and by
// BuildPart for any but 0.
var ErrDatetimeDigits = errors.New("mementomap: BuildOptions.Datetime must be 0 (no datetime column) or 4, 6, 8, 10, 12 or 14 digits")

// CheckDatetime returns an error wrapping [ErrDatetimeDigits] when
// o.Datetime is not 0, 4, 6, 8, 10, 12 or 14, else nil.
func (o BuildOptions) CheckDatetime() error {
	switch o.Datetime {
	case 0, 4, 6, 8, 10, 12, 14:
		return nil
	}
	return fmt.Errorf("%w: %d", ErrDatetimeDigits, o.Datetime)
}

// UKVSContext is the JSON-LD context a MementoMap's !context header names.
const UKVSContext = "https://oduwsdl.github.io/contexts/ukvs"

// buildOptions returns *opts, or the zero BuildOptions for nil.
func buildOptions(opts *BuildOptions) BuildOptions {
	if opts == nil {
		return BuildOptions{}
	}
	return *opts
}

// writeBuildHeaders writes the header lines of a built map of what st
// counts: !meta holds "skipped_lines" (bad lines skipped under SkipBad),
// "blank_lines" (blank index lines passed over) and "rekeyed_lines"
// (records whose index key was replaced by the canonical SURT of their
// URL) when not 0, and "part" (and the partEdges) for a partial map.
func writeBuildHeaders(w io.Writer, o BuildOptions, st *BuildStats, part *cdxj.Part, edges *partEdges) error {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	id, _ := json.Marshal(map[string]string{"uri": o.ArchiveID})
	var first, last, firstKey, lastKey *string
	if edges != nil {
		firstKey, lastKey = &edges.FirstKey, &edges.LastKey
		if edges.First != "" {
			first, last = &edges.First, &edges.Last
		}
	}
	meta, _ := json.Marshal(struct {
		Name      string     `json:"name"`
		Type      string     `json:"type"`
		UpdatedAt string     `json:"updated_at"`
		Skipped   int64      `json:"skipped_lines,omitempty"`
		Blank     int64      `json:"blank_lines,omitempty"`
		Rekeyed   int64      `json:"rekeyed_lines,omitempty"`
		Part      *cdxj.Part `json:"part,omitempty"`
		First     *string    `json:"first_urir,omitempty"`
		Last      *string    `json:"last_urir,omitempty"`
		FirstKey  *string    `json:"first_key,omitempty"`
		LastKey   *string    `json:"last_key,omitempty"`
	}{o.Name, "MementoMap", now().UTC().Format(time.RFC3339), st.Bad, st.Blank, st.Mismatched, part, first, last, firstKey, lastKey})
	keys := `["surt"]`
	if o.Datetime > 0 {
		keys = `["surt", "datetime"]`
	}
	_, err := fmt.Fprintf(w, "!context [%q]\n!id %s\n!fields {\"keys\": %s, \"values\": [\"frequency\"]}\n!meta %s\n",
		UKVSContext, id, keys, meta)
	return err
}

func newBuilder(o BuildOptions) *builder {
	b := &builder{o: o}
	for _, mt := range o.MIMETypes {
		b.mimes = append(b.mimes, strings.ToLower(strings.TrimSpace(mt)))
	}
	return b
}

type builder struct {
	sink func(sortKey []byte, hx int) error // hx: the length of its HxPx key (the NUL's index, or len(sortKey))
	o    BuildOptions
	s    *extsort.Sorter
	ss   *sortedSink // the sink of sortInto, when it was called
	// records counts the records (and bad lines) read so far, the one
	// being handled included.
	records int64
	st      BuildStats
	mimes   []string
	key     []byte
	canon   []byte // the canonical SURT of the record's URL, when checked
	url     []byte // the URL a key stands for, for records without one
	// okKey and okURL are the index key and the URL of the last record
	// whose key was found canonical (okURL is nil when there is none):
	// the captures of one URI-R are neighbours in a sorted index, and the
	// same bytes canonicalize the same way, so the next record with both
	// equal is canonical too.
	okKey, okURL []byte
	// hostURL and hostKey are the scheme and host of the last URL whose
	// host simpleHostLen took, and the SURT form of that host with its
	// ')' (see simpleMatch).
	hostURL, hostKey []byte
	// rkURL and rkKey are the last URL canonicalized for its key (Rekey
	// or a key that is not a SURT) and its SURT; rkURL is nil when there
	// is none.
	rkURL, rkKey []byte
	// sorted makes a key that sorts before the one of the record before it
	// an error wrapping cdxj.ErrUnsorted (BuildPart); prev is that key.
	sorted bool
	prev   []byte
	first  []byte // the first key checked so (nil before it)
	dkey   []byte // the sort key under Datetime
	// replaced says that the record last handed to the sink had its
	// index key replaced by the canonical SURT of its URL (check), so
	// that its sort key need not follow the index's order.
	replaced bool
	// kf is what record found of the last index key it looked at: the
	// captures of one URI-R are neighbours in a sorted index, and one key
	// read with one layout gives the same answers.
	kf keyFacts
}

// keyFacts are the answers of surtKeyOf and of record's searches for a
// NUL byte and the first '?' for the index key key read with layout
// (valid once set).
type keyFacts struct {
	key    []byte
	layout *cdxj.Layout
	valid  bool
	surt   bool
	nul    bool
	q      int // the index of the first '?', or -1
}

// facts returns the keyFacts of rec's index key, from b.kf when it is the
// key of the record before with the same layout.
func (b *builder) facts(rec *cdxj.Record) *keyFacts {
	key := rec.Key()
	f := &b.kf
	if f.valid && rec.Layout() == f.layout && bytes.Equal(key, f.key) {
		return f
	}
	f.key = append(f.key[:0], key...)
	f.layout, f.valid = rec.Layout(), true
	f.surt = surtKeyOf(rec)
	f.nul = bytes.IndexByte(key, 0) >= 0
	f.q = bytes.IndexByte(key, '?')
	return f
}

func (b *builder) read(ctx context.Context, recs iter.Seq2[*cdxj.Record, error]) error {
	for rec, err := range recs {
		if b.records++; b.records&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err == nil {
			b.st.Records++
			err = b.record(rec)
		}
		if err != nil {
			if err := b.bad(err); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// bad counts and reports a bad line under SkipBad; any other error, and
// every error without SkipBad, is returned.
func (b *builder) bad(err error) error {
	var pe *cdxj.ParseError
	if !errors.As(err, &pe) || !b.o.SkipBad {
		return fmt.Errorf("mementomap: %w", err)
	}
	b.st.Bad++
	if len(b.st.BadExamples) < 5 {
		b.st.BadExamples = append(b.st.BadExamples, strings.TrimPrefix(err.Error(), "cdxj: "))
	}
	if b.o.Logger != nil && b.st.Bad <= 10 {
		b.o.Logger.Warn("skipped a bad index line", "source", pe.Source, "line", pe.Line, "err", pe.Err)
	}
	return nil
}

func hasHTTPScheme(u []byte) bool {
	if len(u) >= 7 && string(u[:7]) == "http://" || len(u) >= 8 && string(u[:8]) == "https://" {
		return true // the usual spelling, told without folding case
	}
	if len(u) >= 7 && strings.EqualFold(string(u[:7]), "http://") {
		return true
	}
	return len(u) >= 8 && strings.EqualFold(string(u[:8]), "https://")
}

// record turns one index record into its sort key (the full SURT with its
// first '?' made a NUL byte, so that keys group by HxPx key), applying the
// filters, and hands it to the sink. A CDXJ record whose JSON block is
// malformed (cdxj.Record.CheckJSON) and a URL that does not canonicalize
// are *cdxj.ParseErrors placed at the record's line.
func (b *builder) record(rec *cdxj.Record) error {
	b.replaced = false
	if err := rec.CheckJSON(); err != nil {
		return err // a malformed JSON block: its values cannot be trusted
	}
	u := rec.URL()
	key := rec.Key()
	kf := b.facts(rec)
	surtKey := kf.surt
	switch {
	case u != nil:
		if !hasHTTPScheme(u) {
			b.st.NonHTTP++
			return nil
		}
	case !surtKey:
		if !hasHTTPScheme(key) {
			b.st.NonHTTP++
			return nil
		}
		u = key
	}
	if !b.keep(rec) {
		b.st.Filtered++
		return nil
	}
	if b.o.Rekey || !surtKey {
		if b.rkURL != nil && bytes.Equal(u, b.rkURL) {
			b.key = append(b.key[:0], b.rkKey...)
		} else {
			k, err := surt.Default.AppendCanonical(b.key[:0], string(u))
			if err == nil && bytes.IndexByte(k, ')') < 0 {
				err = fmt.Errorf("its SURT %q has no host", k)
			}
			if err != nil {
				return rec.ParseError(fmt.Errorf("URL %q does not canonicalize: %w", u, err))
			}
			b.key = k
			b.rkURL = append(b.rkURL[:0], u...)
			b.rkKey = append(b.rkKey[:0], k...)
		}
	} else {
		b.key = append(b.key[:0], key...)
		// A record without an original URL is checked against the URL
		// its key stands for, as a lookup of that URL computes its key.
		cu := u
		if cu == nil {
			b.url = appendURLFromSURT(b.url[:0], key)
			cu = b.url
		}
		b.st.Checked++
		if b.okURL == nil || !bytes.Equal(key, b.okKey) || !bytes.Equal(cu, b.okURL) {
			if b.simpleMatch(key, cu) || b.check(key, cu) {
				b.okKey = append(b.okKey[:0], key...)
				b.okURL = append(b.okURL[:0], cu...)
			}
		}
	}
	k := b.key
	// k is the index key, whose facts are known, unless it was remade
	// (Rekey, a key that is not a SURT) or replaced (check).
	asIndexed := surtKey && !b.o.Rekey && !b.replaced
	if asIndexed && kf.nul || !asIndexed && bytes.IndexByte(k, 0) >= 0 {
		return rec.ParseError(fmt.Errorf("key %q holds a NUL byte", k))
	}
	if b.sorted {
		// The order is the index's, of its keys as indexed (or remade
		// under Rekey); a key replaced by check is sorted by the part's
		// sorter.
		ok := k
		if !b.o.Rekey && surtKey {
			ok = key
		}
		if !cdxj.KeyOrder(b.prev, ok) {
			return fmt.Errorf("%s: line %d: %w: key %q sorts before the key %q of an earlier line (the input is not sorted byte-wise by key and timestamp, cdxj.SortKey)",
				rec.Source(), rec.LineNumber(), cdxj.ErrUnsorted, clipKey(string(ok)), clipKey(string(b.prev)))
		}
		b.prev = append(b.prev[:0], ok...)
		if b.first == nil {
			b.first = append([]byte{}, ok...)
		}
	}
	hx, q := len(k), kf.q
	if !asIndexed {
		q = bytes.IndexByte(k, '?')
	}
	if q >= 0 {
		k[q] = 0
		hx = q
	}
	// The map line "KEY M/R" must stay within the line limit of every
	// map reader (emit checks the line with its real counts).
	if hx+len(" 1/1") > MaxLineLength {
		return rec.ParseError(fmt.Errorf("%w: its key of %d bytes (%.60q...) would make a map line longer than %d bytes", ErrLineTooLong, hx, k[:hx], MaxLineLength))
	}
	if b.o.ExcludeRobots {
		h := k
		if i := bytes.IndexByte(h, 0); i >= 0 {
			h = h[:i]
		}
		if bytes.HasSuffix(h, []byte(")/robots.txt")) || bytes.HasSuffix(h, []byte(")/sitemap.xml")) {
			b.st.Filtered++
			return nil
		}
	}
	b.st.Used++
	if b.o.Datetime > 0 {
		// "HXPX\x00DATETIME\x00QUERY": by key, then datetime, then URI-R.
		ts := rec.Timestamp()
		ts = ts[:min(len(ts), b.o.Datetime)]
		if hx+len(ts)+len("  1/1") > MaxLineLength {
			return rec.ParseError(fmt.Errorf("%w: its key of %d bytes (%.60q...) would make a map line longer than %d bytes", ErrLineTooLong, hx, k[:hx], MaxLineLength))
		}
		d := append(b.dkey[:0], k[:hx]...)
		d = append(d, 0)
		d = append(d, ts...)
		d = append(d, 0)
		if hx < len(k) {
			d = append(d, k[hx+1:]...)
		}
		b.dkey = d
		return b.sink(d, hx)
	}
	return b.sink(k, hx)
}

// surtKeyOf reports whether the index key of rec is a SURT: KeyIsSURT of
// a key without "://", a key with a ')' after its first byte, read from a
// layout whose key is not the URL.
func surtKeyOf(rec *cdxj.Record) bool {
	key := rec.Key()
	return rec.KeyIsSURT() && (bytes.IndexByte(key, ':') < 0 || !bytes.Contains(key, []byte("://")))
}

// simpleMatch is simpleSURTMatches(key, u) without its host half when u
// and key begin with the host of the last URL whose host it took (and that
// host's SURT form): the records of one host are neighbours in a sorted
// index, and the same bytes give the same answer.
func (b *builder) simpleMatch(key, u []byte) bool {
	if n, m := len(b.hostURL), len(b.hostKey); n > 0 && len(u) >= n && len(key) >= m &&
		string(u[:n]) == string(b.hostURL) && (len(u) == n || u[n] == '/') && string(key[:m]) == string(b.hostKey) {
		return simplePathMatches(key[m:], u[n:])
	}
	uh, kh := simpleHostLen(key, u)
	if uh == 0 {
		return false
	}
	b.hostURL = append(b.hostURL[:0], u[:uh]...)
	b.hostKey = append(b.hostKey[:0], key[:kh]...)
	return simplePathMatches(key[kh:], u[uh:])
}

// check compares a record's SURT key with the canonical SURT of its URL
// u and, when they differ, makes b.key the canonical one, counting it. A
// URL that does not canonicalize keeps the index key (counted too). It
// reports whether key is canonical.
func (b *builder) check(key, u []byte) bool {
	c, err := surt.Default.AppendCanonical(b.canon[:0], string(u))
	b.canon = c
	if err == nil && bytes.Equal(c, key) {
		return true
	}
	b.st.Mismatched++
	if err == nil && bytes.IndexByte(c, ')') > 0 {
		b.key = append(b.key[:0], c...)
		b.replaced = true
	} else {
		c = append(c[:0], "(no SURT)"...)
	}
	if len(b.st.MismatchExamples) < 5 {
		b.st.MismatchExamples = append(b.st.MismatchExamples, fmt.Sprintf("%s <> %s (%s)", key, c, u))
	}
	if b.o.Logger != nil && b.st.Mismatched <= 5 {
		b.o.Logger.Warn("index key differs from the canonical SURT of its URL: using the canonical one", "key", string(key), "canonical", string(c), "url", string(u))
	}
	return false
}

func (b *builder) keep(rec *cdxj.Record) bool {
	if b.o.ExcludeRevisits && rec.IsRevisit() {
		return false
	}
	if len(b.o.StatusClasses) > 0 {
		st := rec.Status()
		ok := false
		for _, c := range b.o.StatusClasses {
			if st/100 == c {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(b.mimes) > 0 {
		mt := rec.MIME()
		if i := bytes.IndexByte(mt, ';'); i >= 0 {
			mt = mt[:i]
		}
		t := strings.ToLower(strings.TrimSpace(string(mt)))
		ok := false
		for _, want := range b.mimes {
			if t == want || (strings.HasSuffix(want, "/*") && strings.HasPrefix(t, want[:len(want)-1])) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
