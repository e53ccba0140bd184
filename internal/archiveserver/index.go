package archiveserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/timestamp"
)

// LoadOptions sets up LoadIndex. The zero value stops at the first bad line.
type LoadOptions struct {
	// SkipBad passes over lines the index reader cannot parse, and records
	// whose URL cannot be canonicalized, counting them in LoadStats.Bad,
	// instead of stopping with an error naming the input and line.
	SkipBad bool
	// Rekey canonicalizes every record's original URL with surt's default
	// profile instead of using the index key as it is (as
	// mementomap.BuildOptions.Rekey does). Use it for indexes whose keys
	// another canonicalizer made.
	Rekey bool
	// Logger receives a Warn record per skipped line; nil logs nothing.
	Logger *slog.Logger
	// Map sets up the archive's baseline MementoMap, which LoadIndex builds
	// with mementomap.Build in the same pass over the inputs (each record
	// read once, for both): ArchiveID and Name (its !id and !meta name),
	// Now (its updated_at), the filters, MemoryLimit and TempDir. Its
	// Rekey, SkipBad and Logger are replaced by those above and Workers by
	// 1, so that the map is byte for byte what mementomap.Build (and
	// "mementomap build") writes for the same inputs and options. nil
	// means the zero BuildOptions.
	Map *mementomap.BuildOptions
}

// LoadStats counts what LoadIndex read.
type LoadStats struct {
	Records    int64 // index records read (header lines excluded)
	Captures   int64 // captures kept: distinct (SURT, timestamp, URL) triples
	URIRs      int64 // distinct SURT keys (URI-Rs) kept
	NonHTTP    int64 // left out as non-HTTP(S) pseudo-URIs (warcinfo "-", dns:, ...)
	Bad        int64 // lines or URLs skipped under SkipBad
	Duplicates int64 // records repeating a capture already kept
	// Map is what the build of the baseline MementoMap counted (see
	// LoadOptions.Map). Its frequencies count index records, duplicates
	// included (Map.Used), where Captures counts distinct mementos.
	Map mementomap.BuildStats
}

// Capture is one memento an archive holds: its Memento-Datetime (UTC, whole
// seconds) and the original URL the index recorded for it.
type Capture struct {
	Time time.Time
	URL  string
}

// URIR is one URI-R an Index holds.
type URIR struct {
	// Key is its SURT (surt.Canonicalize of the URL, query included).
	Key string
	// URL is an http(s) URL whose SURT is Key: the original URL of one of
	// its captures when one canonicalizes to Key, else a URL rebuilt from
	// the key; empty when neither does (the key was made by another
	// canonicalizer, and no request can reach it).
	URL string
	// Captures is the number of its mementos.
	Captures int
}

// capture is a Capture in compact form: Unix seconds and an index into the
// group's URL list.
type capture struct {
	sec int64
	url int32
}

type group struct {
	urls  []string // distinct original URLs, in first-seen order
	caps  []capture
	byURL map[string]int32 // index of urls once it is long; LoadIndex only
}

// urlScanMax is the number of distinct URLs of one key searched linearly
// while loading; past it a map finds them (a key whose captures each have
// their own URL, such as session ids the SURT drops, would make the load
// quadratic).
const urlScanMax = 16

// Index is an archive's holdings in memory: SURT keys in byte-wise order,
// each with its captures sorted by time. Lookups are a binary search over
// the keys. An Index is immutable after LoadIndex and safe for concurrent use.
//
// Memory: about 24 bytes per capture, plus each distinct key and original
// URL once (roughly 150 bytes per URI-R for typical URLs); 1,000,000
// captures of 400,000 URI-Rs take about 90 MB.
type Index struct {
	keys     []string
	groups   []group
	captures int64
	baseline []byte // the baseline MementoMap (UKVS text), see LoadOptions.Map
}

// LoadIndex reads CDX or CDXJ indexes (sorted or not, any number, in the
// layouts cdxj.Reader knows) into an Index. Each record's key is its index
// key when that is a SURT, else (or under Rekey) surt.Canonicalize of its
// original URL, as mementomap.Build chooses, so that the archive's
// MementoMap and its lookups agree. A record with no original URL (ipwb
// indexes) is served under the SURT of the URL rebuilt from its key, since
// that is what a lookup computes. Non-HTTP(S) pseudo-URIs are left out;
// identical (key, second, URL) captures are kept once, so a TimeMap lists
// each URI-M once.
//
// In the same pass LoadIndex builds the archive's baseline MementoMap with
// mementomap.Build (options o.Map): the map New compacts and serves. Its
// frequencies follow the one rule of mementomap.Build, the reference
// tool's and the paper's: M counts the index records of a key, duplicates
// included, not the distinct mementos a TimeMap lists; records repeating a
// capture are counted in LoadStats.Duplicates. A bad line the build
// refuses (without SkipBad) stops the load as well.
//
// Each input is walked whole (Records(cdxj.Query{})): a file, a ZipNum
// cluster, a stream, whatever cdxj.Open opens. A bad line (one that does
// not parse, a URL that does not canonicalize, an invalid timestamp) stops
// the load with a *cdxj.ParseError naming its source and line, unless
// o.SkipBad counts it in LoadStats.Bad; any other error of an input stops
// it always. ctx cancels the load between records. A nil o means the
// zero LoadOptions (stop at the first bad line, no log).
func LoadIndex(ctx context.Context, inputs []cdxj.Searcher, o *LoadOptions) (*Index, LoadStats, error) {
	if o == nil {
		o = &LoadOptions{}
	}
	var st LoadStats
	byKey := make(map[string]*group)
	// bad counts a bad line under SkipBad; it returns the error to stop
	// with otherwise, or for an error that is not about one line.
	bad := func(err error) error {
		var pe *cdxj.ParseError
		if !errors.As(err, &pe) || !o.SkipBad {
			return fmt.Errorf("archiveserver: %w", err)
		}
		st.Bad++
		if o.Logger != nil {
			o.Logger.Warn("record skipped", "source", pe.Source, "line", pe.Line, "err", pe.Err)
		}
		return nil
	}
	// add takes one record (or error) of an input into the Index; a
	// non-nil result stops the load.
	add := func(rec *cdxj.Record, err error) error {
		if st.Records%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err != nil {
			return bad(err)
		}
		st.Records++
		key, u, ok, err := recordKey(rec, o.Rekey)
		if err != nil {
			return bad(rec.ParseError(err))
		}
		if !ok {
			st.NonHTTP++
			return nil
		}
		ts := rec.Time()
		if ts.IsZero() {
			return bad(rec.ParseError(fmt.Errorf("invalid timestamp %q", rec.Timestamp())))
		}
		g := byKey[key]
		if g == nil {
			g = &group{}
			byKey[strings.Clone(key)] = g
		}
		ui := -1
		if g.byURL != nil {
			if i, ok := g.byURL[u]; ok {
				ui = int(i)
			}
		} else {
			for i, s := range g.urls {
				if s == u {
					ui = i
					break
				}
			}
		}
		if ui < 0 {
			ui = len(g.urls)
			g.urls = append(g.urls, strings.Clone(u))
			if g.byURL != nil {
				g.byURL[g.urls[ui]] = int32(ui)
			} else if len(g.urls) > urlScanMax {
				g.byURL = make(map[string]int32, 2*len(g.urls))
				for i, s := range g.urls {
					g.byURL[s] = int32(i)
				}
			}
		}
		g.caps = append(g.caps, capture{sec: ts.Unix(), url: int32(ui)})
		return nil
	}
	bo := mementomap.BuildOptions{}
	if o.Map != nil {
		bo = *o.Map
	}
	bo.Rekey, bo.SkipBad, bo.Logger, bo.Workers = o.Rekey, o.SkipBad, o.Logger, 1
	var stop error
	tees := make([]cdxj.Searcher, len(inputs))
	for i, in := range inputs {
		tees[i] = &teeSearcher{Searcher: in, add: add, stop: &stop}
	}
	var baseline bytes.Buffer
	mst, err := mementomap.Build(ctx, &baseline, tees, &bo)
	st.Map = mst
	if stop != nil {
		return nil, st, stop
	}
	if err != nil {
		return nil, st, fmt.Errorf("archiveserver: building the MementoMap: %w", err)
	}
	x := &Index{keys: make([]string, 0, len(byKey)), baseline: baseline.Bytes()}
	for k := range byKey {
		x.keys = append(x.keys, k)
	}
	sort.Strings(x.keys)
	x.groups = make([]group, len(x.keys))
	for i, k := range x.keys {
		g := byKey[k]
		sort.Slice(g.caps, func(a, b int) bool {
			if g.caps[a].sec != g.caps[b].sec {
				return g.caps[a].sec < g.caps[b].sec
			}
			return g.caps[a].url < g.caps[b].url
		})
		out := g.caps[:0]
		for j, c := range g.caps {
			if j > 0 && c == g.caps[j-1] {
				st.Duplicates++
				continue
			}
			out = append(out, c)
		}
		g.caps = out
		g.byURL = nil
		x.groups[i] = *g
		x.captures += int64(len(out))
	}
	st.Captures = x.captures
	st.URIRs = int64(len(x.keys))
	return x, st, nil
}

// teeSearcher is an input of LoadIndex as mementomap.Build reads it: each
// record goes to add (the Index) before Build takes it; the first error add
// returns ends the input and is kept in *stop.
type teeSearcher struct {
	cdxj.Searcher
	add  func(*cdxj.Record, error) error
	stop *error
}

func (t *teeSearcher) Records(q cdxj.Query) iter.Seq2[*cdxj.Record, error] {
	return func(yield func(*cdxj.Record, error) bool) {
		if *t.stop != nil {
			return
		}
		for rec, err := range t.Searcher.Records(q) {
			if e := t.add(rec, err); e != nil {
				*t.stop = e
				return
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}

var errNoURL = errors.New("record has neither a SURT key nor an original URL")

// recordKey returns the SURT a record is served under and its original URL,
// ok false for a non-HTTP(S) record.
func recordKey(rec *cdxj.Record, rekey bool) (key, u string, ok bool, err error) {
	k := rec.Key()
	ub := rec.URL()
	surtKey := rec.KeyIsSURT() && bytes.IndexByte(k, ')') > 0 && !bytes.Contains(k, []byte("://"))
	switch {
	case ub != nil:
		if !hasHTTPScheme(ub) {
			return "", "", false, nil
		}
	case !surtKey:
		if !hasHTTPScheme(k) {
			return "", "", false, nil
		}
		ub = k
	}
	if rekey || !surtKey {
		c, err := surt.Canonicalize(string(ub))
		if err != nil {
			return "", "", false, err
		}
		if strings.IndexByte(c, ')') < 0 {
			return "", "", false, fmt.Errorf("URL %q has no host", ub)
		}
		key = c
	} else {
		key = string(k)
	}
	if ub == nil {
		// Only the key tells the URL: rebuild it, and serve it under the
		// key a lookup of that URL computes (ipwb writes "…)/path/" where
		// surt writes "…)/path").
		u = urlFromSURT(key)
		if u == "" {
			return "", "", false, errNoURL
		}
		c, err := surt.Canonicalize(u)
		if err != nil {
			return "", "", false, err
		}
		return c, u, true, nil
	}
	return key, string(ub), true, nil
}

func hasHTTPScheme(u []byte) bool {
	if len(u) >= 7 && strings.EqualFold(string(u[:7]), "http://") {
		return true
	}
	return len(u) >= 8 && strings.EqualFold(string(u[:8]), "https://")
}

// urlFromSURT rebuilds an http URL from a SURT key without scheme:
// "com,example,www)/a?b" gives "http://www.example.com/a?b". It returns ""
// for a key without a host part.
func urlFromSURT(key string) string {
	i := strings.IndexByte(key, ')')
	if i <= 0 {
		return ""
	}
	host, rest := key[:i], key[i+1:]
	port := ""
	if j := strings.IndexByte(host, ':'); j >= 0 {
		host, port = host[:j], host[j:]
	}
	labels := strings.Split(strings.TrimSuffix(host, ","), ",")
	for a, b := 0, len(labels)-1; a < b; a, b = a+1, b-1 {
		labels[a], labels[b] = labels[b], labels[a]
	}
	if !strings.HasPrefix(rest, "/") {
		rest = "/" + rest
	}
	return "http://" + strings.Join(labels, ".") + port + rest
}

// Len returns the number of URI-Rs (distinct SURT keys).
func (x *Index) Len() int { return len(x.keys) }

// MementoMap returns the baseline MementoMap (UKVS text) LoadIndex built
// over the inputs (LoadOptions.Map), uncompacted. The slice must not be
// modified.
func (x *Index) MementoMap() []byte { return x.baseline }

// Captures returns the number of mementos held.
func (x *Index) Captures() int64 { return x.captures }

// find returns the position of key, or -1.
func (x *Index) find(key string) int {
	i := sort.SearchStrings(x.keys, key)
	if i < len(x.keys) && x.keys[i] == key {
		return i
	}
	return -1
}

// Lookup returns the captures of the URI-R uriR, sorted by time (then by
// URL), or nil when the archive holds none. uriR is canonicalized with
// surt.Canonicalize; it may also be a SURT key (it holds ')' and no "://").
// The cost is one canonicalization and a binary search over the keys.
func (x *Index) Lookup(uriR string) ([]Capture, error) {
	key, err := canonical(uriR)
	if err != nil {
		return nil, err
	}
	i := x.find(key)
	if i < 0 {
		return nil, nil
	}
	g := &x.groups[i]
	out := make([]Capture, len(g.caps))
	for j, c := range g.caps {
		out[j] = Capture{Time: time.Unix(c.sec, 0).UTC(), URL: g.urls[c.url]}
	}
	return out, nil
}

func canonical(uriR string) (string, error) {
	if strings.IndexByte(uriR, ')') > 0 && !strings.Contains(uriR, "://") {
		return uriR, nil
	}
	return surt.Canonicalize(uriR)
}

// All yields every URI-R held, in byte-wise order of Key.
func (x *Index) All() iter.Seq[URIR] {
	return func(yield func(URIR) bool) {
		for i, k := range x.keys {
			g := &x.groups[i]
			u := ""
			for _, cand := range g.urls {
				if c, err := surt.Canonicalize(cand); err == nil && c == k {
					u = cand
					break
				}
			}
			if u == "" {
				if cand := urlFromSURT(k); cand != "" {
					if c, err := surt.Canonicalize(cand); err == nil && c == k {
						u = cand
					}
				}
			}
			if !yield(URIR{Key: k, URL: u, Captures: len(g.caps)}) {
				return
			}
		}
	}
}

// WriteCDXJ writes the Index as sorted CDXJ ("SURT 14-digit-timestamp
// {"url": ...}"), one line per capture, the input mementomap.Build takes.
// Its errors are json.Marshal's for a URL and w's (writing stops at the
// first).
func (x *Index) WriteCDXJ(w io.Writer) error {
	var buf []byte
	for i, k := range x.keys {
		g := &x.groups[i]
		for _, c := range g.caps {
			buf = append(buf[:0], k...)
			buf = append(buf, ' ')
			buf = timestamp.Append(buf, time.Unix(c.sec, 0))
			buf = append(buf, ` {"url": `...)
			q, err := json.Marshal(g.urls[c.url])
			if err != nil {
				return err
			}
			buf = append(buf, q...)
			buf = append(buf, "}\n"...)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}
