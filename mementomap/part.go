package mementomap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/count"
	"github.com/mementokit/mementokit/internal/extsort"
	"github.com/mementokit/mementokit/ukvs"
)

func (o BuildOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// minPartBytes is the least size of a part of a plain file that Build
// cuts off for a worker of its own (tests lower it).
var minPartBytes int64 = 4 << 20

// errSequential makes Build fall back to reading the inputs one after the
// other (a legend line inside a part, see cdxj.ErrPartLayout).
var errSequential = errors.New("mementomap: build the inputs one after the other")

// buildItem is one unit of a parallel build: a part of an input.
type buildItem struct {
	src  cdxj.Searcher
	part cdxj.Part
}

// planBuild cuts the inputs into parts for w workers: a plain file into at
// most w parts of at least minPartBytes (cdxj.PlanKeyCuts: inside the run
// of one host too, nearer equal sizes, since a build only needs each
// part's sort keys to sort before the next part's), a cluster into at most
// w runs of blocks, anything else whole.
func planBuild(ctx context.Context, inputs []cdxj.Searcher, w int) ([]buildItem, error) {
	var items []buildItem
	for i, in := range inputs {
		ix, ok := in.(cdxj.Index)
		if !ok {
			items = append(items, buildItem{src: in, part: cdxj.Part{Input: i, Source: cdxj.SourceName(in), Kind: cdxj.PartWhole}})
			continue
		}
		n := w
		if f, ok := ix.(*cdxj.File); ok {
			n = int(min(int64(w), max(1, f.Size()/minPartBytes)))
		}
		parts, err := cdxj.PlanKeyCuts(ctx, []cdxj.Index{ix}, n)
		if err != nil {
			return nil, fmt.Errorf("mementomap: %w", err)
		}
		for _, p := range parts {
			p.Input = i
			items = append(items, buildItem{src: in, part: p})
		}
	}
	return items, nil
}

// records returns the records of the item, counting its blank lines in
// *blank.
func (it buildItem) records(blank *int64) func(func(*cdxj.Record, error) bool) {
	if it.part.Kind == cdxj.PartWhole {
		return it.src.Records(cdxj.Query{Blank: blank})
	}
	return cdxj.PartRecordsBlank(it.src.(cdxj.Index), it.part, blank)
}

// buildParallel is Build on w workers: the inputs cut into parts
// (planBuild), each part read by one of at most w goroutines. The keys of
// a part of an index that come in order are made into its map lines as
// they are read (lineStream; a key out of order gives that up, and the
// part's keys go to a sorter of its own); a part read into its sorter has
// its map lines written from it (formatPart) while other parts are read.
// When the parts' keys follow one another (the parts of a sorted input)
// the map is those lines joined (joinParts); otherwise the sorters are
// merged in key order (writeMapLines), the streamed parts read again into
// theirs. The first error in part order is returned, as a sequential
// build would meet it (a part after a failed one is stopped, one before it
// runs on). With a worker for every part, the first part's lines, when
// they were not streamed, are written to dst as it formats them once all
// parts are read, not copied from a file.
func buildParallel(ctx context.Context, dst io.Writer, inputs []cdxj.Searcher, o BuildOptions, w int) (BuildStats, error) {
	items, err := planBuild(ctx, inputs, w)
	if err != nil {
		return BuildStats{}, err
	}
	if len(items) <= 1 {
		return BuildStats{}, errSequential
	}
	limit := max(o.MemoryLimit/int64(w), 1<<20)
	bs := make([]*builder, len(items))
	finish := make([]func() error, len(items))
	errs := make([]error, len(items))
	ctxs := make([]context.Context, len(items))
	cancels := make([]context.CancelFunc, len(items))
	streams := make([]*lineStream, len(items))
	for i, it := range items {
		ctxs[i], cancels[i] = context.WithCancel(ctx)
		b := newBuilder(o)
		finish[i] = b.sortInto(extsort.New(limit, o.TempDir))
		if it.part.Kind != cdxj.PartWhole {
			// A part of an index can be read again, should its keys come
			// out of order for the stream.
			streams[i] = newLineStream(o.TempDir, nil)
			b.streamLines(streams[i], func(n int64) error { return replayPart(ctxs[i], o, it, b.s, n) })
		}
		bs[i] = b
	}
	closeAll := func() {
		for _, b := range bs {
			b.s.Close()
		}
	}
	lines := make([]*partLines, len(items))
	streamed := make([]bool, len(items)) // lines[i] made as the part was read
	defer func() {
		for _, p := range lines {
			p.close()
		}
		for _, ls := range streams {
			if ls != nil {
				ls.close()
			}
		}
	}()
	var mu sync.Mutex
	failed := len(items) // the first part that failed
	fail := func(i int, err error) {
		errs[i] = err
		mu.Lock()
		if i < failed {
			failed = i
		}
		mu.Unlock()
		for j := i + 1; j < len(items); j++ {
			cancels[j]()
		}
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	// With a worker for every part, the first part's lines, when not
	// streamed, go straight to bw once every part is read (the header's
	// counts and the parts' key bounds are then known): only the later
	// parts' lines are copied after the last part is formatted. read
	// counts the parts not yet read.
	direct := len(items) <= w
	var read sync.WaitGroup
	read.Add(len(items))
	type keyBounds struct {
		lo, hi []byte
		ok     bool
	}
	bounds := make([]keyBounds, len(items))
	wrote := false // the header and the first part's lines are in bw
	sem := make(chan struct{}, w)
	var wg sync.WaitGroup
	for i, it := range items {
		sem <- struct{}{}
		mu.Lock()
		stop := i > failed
		mu.Unlock()
		if stop {
			<-sem
			cancels[i]()
			read.Done()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			b := bs[i]
			err := b.read(ctxs[i], it.records(&b.st.Blank))
			if err == nil {
				err = finish[i]()
			}
			if ls := b.streamed(); err == nil && ls != nil {
				// The part's lines, made as it was read.
				streams[i] = nil
				lines[i], err = ls.finish()
				streamed[i] = err == nil
				bounds[i].lo, bounds[i].hi, bounds[i].ok = ls.bounds()
			} else if err == nil {
				if len(items) > w && b.s.Buffered() > 1<<12 {
					// More parts than workers: a finished part keeps no chunk.
					err = b.s.Spill()
				}
				if err == nil {
					bounds[i].lo, bounds[i].hi, bounds[i].ok, err = b.s.Bounds()
				}
			}
			if err != nil {
				fail(i, err)
			}
			read.Done()
			if err != nil || streamed[i] {
				return
			}
			if i == 0 && direct {
				read.Wait()
				mu.Lock()
				ok := failed == len(items)
				mu.Unlock()
				if ok && boundsOrdered(bounds, func(k keyBounds) ([]byte, []byte, bool) { return k.lo, k.hi, k.ok }) {
					var st BuildStats
					for _, b := range bs {
						st.Add(b.st)
					}
					wrote = true
					if err = writeBuildHeaders(bw, o, &st, nil, nil); err == nil {
						lines[i], err = formatPart(ctxs[i], b.s, o.TempDir, bw)
					}
				}
			}
			if err == nil && lines[i] == nil {
				// The part's map lines, while the other parts are read.
				lines[i], err = formatPart(ctxs[i], b.s, o.TempDir, nil)
			}
			if err != nil {
				fail(i, err)
			}
		}()
	}
	wg.Wait()
	for _, c := range cancels {
		c()
	}
	var st BuildStats
	for _, b := range bs {
		b.st.Runs = b.s.Runs()
		st.Add(b.st)
	}
	if failed < len(items) {
		closeAll()
		if errors.Is(errs[failed], cdxj.ErrPartLayout) && !wrote {
			return st, errSequential
		}
		return st, errs[failed]
	}
	if !wrote {
		if err := writeBuildHeaders(bw, o, &st, nil, nil); err != nil {
			closeAll()
			return st, err
		}
	}
	ordered := boundsOrdered(bounds, func(k keyBounds) ([]byte, []byte, bool) { return k.lo, k.hi, k.ok })
	switch {
	case wrote && !ordered:
		closeAll()
		return st, errors.New("mementomap: the parts' keys were found in order once read, and out of order after")
	case ordered:
		// The parts' keys follow one another: their lines, as written.
		closeAll()
		err = joinParts(bw, &st, lines)
	default:
		// The parts' keys overlap: the streamed parts' keys are read
		// again into their sorters, and all are merged.
		for i, b := range bs {
			if streamed[i] {
				lines[i].close()
				lines[i] = nil
				if err = replayPart(ctx, o, items[i], b.s, b.records); err != nil {
					closeAll()
					return st, err
				}
			}
		}
		ss := make([]*extsort.Sorter, len(bs))
		for i, b := range bs {
			ss[i] = b.s
		}
		err = writeMapLines(ctx, bw, &st, ss, false)
	}
	if err != nil {
		return st, err
	}
	(&builder{o: o, st: st}).logDone()
	return st, nil
}

// onReplay, when not nil, is called by every replayPart (tests see that
// a line stream was given up).
var onReplay func(p cdxj.Part, records int64)

// replayPart gives s the sort keys of the first n records of the item
// (bad lines counted as records), made by a builder of its own under o:
// the keys that the builder that read them first handed its sorter's
// sink, so that a part whose line stream was given up has every key in s.
// The second read's stats and log lines are not kept. Its errors are an
// input's and the sorter's, and a part that holds fewer records than n.
func replayPart(ctx context.Context, o BuildOptions, it buildItem, s *extsort.Sorter, n int64) error {
	if onReplay != nil {
		onReplay(it.part, n)
	}
	o.Logger = nil // the first read logged what there was to log
	b := newBuilder(o)
	finish := b.sortInto(s)
	if n > 0 {
		for rec, err := range it.records(nil) { // its blank lines were counted by the first read
			if b.records++; b.records&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err == nil {
				err = b.record(rec)
			}
			if err != nil {
				if err := b.bad(err); err != nil {
					return err
				}
			}
			if b.records == n {
				break
			}
		}
	}
	if b.records < n {
		return fmt.Errorf("mementomap: %s: a second read of a part gave %d records, the first %d", it.part.Source, b.records, n)
	}
	return finish()
}

// boundsOrdered reports whether the key ranges of the parts ps that hold
// keys each end before the next one starts, as extsort.Ordered does.
func boundsOrdered[T any](ps []T, bounds func(T) (lo, hi []byte, ok bool)) bool {
	var prev []byte
	have := false
	for _, p := range ps {
		lo, hi, ok := bounds(p)
		if !ok {
			continue
		}
		if have && bytes.Compare(prev, lo) >= 0 {
			return false
		}
		prev, have = hi, true
	}
	return true
}

// Add adds the read counts of another build, such as one part's
// (BuildPart), to s: records, used, filtered, non-HTTP, bad, blank, sorted runs,
// checked and mismatched; at most 5 bad and 5 mismatch examples are kept.
// Keys and URIRs are not added: they are counted where the map is written
// (Concat), since parts of one key range would count a key twice.
func (s *BuildStats) Add(p BuildStats) {
	s.Records += p.Records
	s.Used += p.Used
	s.Filtered += p.Filtered
	s.NonHTTP += p.NonHTTP
	s.Bad += p.Bad
	s.Blank += p.Blank
	s.Runs += p.Runs
	s.Checked += p.Checked
	s.Mismatched += p.Mismatched
	for _, e := range p.BadExamples {
		if len(s.BadExamples) < 5 {
			s.BadExamples = append(s.BadExamples, e)
		}
	}
	for _, e := range p.MismatchExamples {
		if len(s.MismatchExamples) < 5 {
			s.MismatchExamples = append(s.MismatchExamples, e)
		}
	}
}

// BuildPart builds the records of one part of an index (a unit of
// distributed work, see cdxj.Plan; ix is the index p.Source names) into a
// partial map written to dst, with the record-to-key function and the
// filters of [Build] under the same o. A partial map is a valid sorted
// MementoMap: Build's header lines, whose !meta also holds "part" (p as
// JSON), "skipped_lines" (the part's bad lines skipped under o.SkipBad),
// "blank_lines" (its blank lines passed over) and, when the part has records, "first_key" and "last_key" (the index
// keys of its first and last record, as the input is sorted) and, when it
// counts one at its index key, "first_urir" and "last_urir" (the first
// and the last such URI-R, full SURTs with their '?'); then, when records'
// index keys were replaced by the canonical SURTs of their URLs (the
// check of Build, !meta "rekeyed_lines"), "!rekeyed_urirs" header lines,
// each a JSON array of the distinct URI-Rs so made, in byte-wise order;
// then one "HXPX M/R" line per HxPx key of the part's records. [Concat]
// needs these headers to merge the partial maps of a plan exactly into
// the map Build writes.
// Errors are Build's: a bad line (a *cdxj.ParseError naming the source and
// the line or its byte offset) stops it unless o.SkipBad. Unlike Build,
// which sorts whatever it reads, BuildPart requires a sorted index (the
// module's rule, cdxj.SortKey) in what a map depends on, the keys in
// byte-wise order (cdxj.KeyOrder), since Concat only merges parts: the
// SURTs as indexed, or, under o.Rekey and for an index keyed by URL, the
// SURTs remade from the URLs, by which the input must then be sorted. The
// captures of one key may come in any order of their timestamps. A key
// that sorts before the key of an earlier record stops it, SkipBad or not,
// with an error wrapping cdxj.ErrUnsorted that names the source and the
// line. Stats count this
// part alone. Memory: o.MemoryLimit, as Build, and the URI-Rs of the
// replaced keys.
func BuildPart(ctx context.Context, dst io.Writer, ix cdxj.Index, p cdxj.Part, opts *BuildOptions) (BuildStats, error) {
	o := buildOptions(opts)
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultSortMemory
	}
	if o.Datetime != 0 {
		return BuildStats{}, fmt.Errorf("%w: a partial map has no datetime column (build the map whole)", ErrDatetimeDigits)
	}
	b := newBuilder(o)
	finish := b.sortInto(extsort.New(o.MemoryLimit, o.TempDir))
	b.sorted = true
	// The first and the last sort key handed to the sorter at its index
	// key, in input order: the first and the last URI-R counted there. A
	// key replaced by the canonical SURT of its URL may sort anywhere: its
	// URI-R goes to rekeyed instead.
	var first, last []byte
	have := false
	rekeyed := map[string]struct{}{}
	sink := b.sink
	b.sink = func(k []byte, hx int) error {
		if b.replaced {
			rekeyed[uriR(k)] = struct{}{}
			return sink(k, hx)
		}
		if !have {
			first = append(first[:0], k...)
			have = true
		}
		last = append(last[:0], k...)
		return sink(k, hx)
	}
	if err := b.read(ctx, cdxj.PartRecordsBlank(ix, p, &b.st.Blank)); err != nil {
		b.s.Close()
		return b.st, err
	}
	if err := finish(); err != nil {
		b.s.Close()
		return b.st, err
	}
	b.st.Runs = b.s.Runs()
	var edges *partEdges
	if have || b.first != nil {
		edges = &partEdges{FirstKey: string(b.first), LastKey: string(b.prev)}
		if have {
			edges.First, edges.Last = uriR(first), uriR(last)
		}
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	if err := writeBuildHeaders(bw, o, &b.st, &p, edges); err != nil {
		b.s.Close()
		return b.st, err
	}
	if err := writeRekeyed(bw, slices.Sorted(maps.Keys(rekeyed))); err != nil {
		b.s.Close()
		return b.st, err
	}
	err := writeMapLines(ctx, bw, &b.st, []*extsort.Sorter{b.s}, false)
	return b.st, err
}

// rekeyedHeader is the name of the header lines of a partial map that
// list the URI-Rs of its records whose index keys were replaced.
const rekeyedHeader = "rekeyed_urirs"

// writeRekeyed writes urirs as "!rekeyed_urirs" header lines, JSON
// arrays of at most about 1 MiB each.
func writeRekeyed(w io.Writer, urirs []string) error {
	for len(urirs) > 0 {
		n, size := 0, 0
		for n < len(urirs) && (n == 0 || size+len(urirs[n]) < 1<<20) {
			size += len(urirs[n]) + 3
			n++
		}
		for _, u := range urirs[:n] {
			if !utf8.ValidString(u) {
				return fmt.Errorf("mementomap: the replaced key %q is not UTF-8", u)
			}
		}
		b, _ := json.Marshal(urirs[:n])
		if _, err := fmt.Fprintf(w, "!%s %s\n", rekeyedHeader, b); err != nil {
			return err
		}
		urirs = urirs[n:]
	}
	return nil
}

// partEdges are where a partial map's records begin and end, in input
// order: FirstKey and LastKey are the index keys of the part's first and
// last records as the input is sorted (the keys BuildPart checks the
// order of), First and Last the URI-Rs (full SURTs, their first '?' as it
// is) of the first and the last record counted in the map at its index
// key, "" when there is none. [Concat] needs them to merge the partial
// maps exactly.
type partEdges struct {
	First, Last       string
	FirstKey, LastKey string
}

// uriR returns the URI-R of a sort key: its NUL (the end of the HxPx key)
// made a '?' again.
func uriR(k []byte) string {
	if i := bytes.IndexByte(k, 0); i >= 0 {
		u := []byte(string(k))
		u[i] = '?'
		return string(u)
	}
	return string(k)
}

// ErrPartsOverlap is wrapped by the error of [Concat] for partial maps
// whose records do not follow one another: the first record of a part
// has an index key that sorts before the key of the last record of the
// part before it (inputs that are not each sorted and one after the
// other).
var ErrPartsOverlap = errors.New("mementomap: the partial maps' keys overlap")

// ErrPartsSplitKey is wrapped, beside [ErrPartsOverlap], by the error of
// [Concat] when the two keys that do not follow one another have one HxPx
// key: two inputs hold URI-Rs of one key of the map that are not sorted
// one after the other by full SURT.
var ErrPartsSplitKey = errors.New("the inputs share an HxPx key whose URI-Rs do not follow one another")

// ErrParts is wrapped by the errors of [Concat] for partial maps that are
// not the parts of one plan: a part missing, repeated or out of order, or
// a map that is not a partial map.
var ErrParts = errors.New("mementomap: not the partial maps of one plan")

// partMeta is the part of a partial map's !meta that Concat reads.
type partMeta struct {
	Type     string     `json:"type"`
	Skipped  int64      `json:"skipped_lines"`
	Blank    int64      `json:"blank_lines"`
	Rekeyed  int64      `json:"rekeyed_lines"`
	Part     *cdxj.Part `json:"part"`
	First    *string    `json:"first_urir"`
	Last     *string    `json:"last_urir"`
	FirstKey *string    `json:"first_key"`
	LastKey  *string    `json:"last_key"`
}

// hxpxOf returns the HxPx key of a SURT: the SURT up to its first '?'.
func hxpxOf(s string) string {
	if i := strings.IndexByte(s, '?'); i >= 0 {
		return s[:i]
	}
	return s
}

// Concat writes to dst the map of a whole plan from its partial maps (see
// [BuildPart]), given in plan order: parts[i] must be the partial map of
// the part whose Seq is i, and there must be Of of them; o must be the
// options the parts were built with. It writes the header lines Build
// writes under o (o.Now and o.Name and o.ArchiveID as given to Concat;
// skipped_lines, blank_lines and rekeyed_lines summed over the parts), then the data
// lines of the parts merged in key order: a key in several parts is
// written once, its captures summed and its URI-Rs counted once each.
//
// The parts of sorted inputs that follow one another (a sorted index cut
// into files anywhere: inside one SURT host, between two captures of one
// URI-R) share keys, and their key ranges interleave: a map key drops the
// query, so after "com,x)/a5/b" the line "com,x)/a?id=1" has the key
// "com,x)/a", which sorts first. Their URI-Rs counted at their index keys
// meet only where one part ends and the next begins: the URI-R of the last
// such record of a part (its !meta "last_urir") is counted once when it is
// the first of the next part that counts one ("first_urir"). Concat checks
// that the parts follow one another: the index key of each part's first
// record ("first_key") must not sort before that of the last record of the
// part before it ("last_key"), else it stops with an error wrapping
// [ErrPartsOverlap] (and [ErrPartsSplitKey] when the two have one HxPx
// key) that names the two keys and the two parts, and what it wrote must
// be discarded (the tools write through a temporary file).
//
// A record whose index key was replaced by the canonical SURT of its URL
// (!meta rekeyed_lines) may have a URI-R anywhere in the key order; each
// part lists such URI-Rs ("!rekeyed_urirs"). For a key that holds one of
// them that another part may hold too (a part that lists a URI-R of it,
// or whose key range reaches it), Concat counts the key's URI-Rs exactly:
// the listed ones, and those counted at their index keys in each part
// whose key range reaches the key, which it reads again from that part's
// input (opened with cdxj.Open by the name in the part's !meta "part", as
// the part was built; only those parts, and in them only the records
// under such keys go through the build's key function). A key that only
// its own part can hold (a record re-keyed to a key of its own part, the
// usual case) needs no second reading. An input that cannot be read again
// so stops Concat with an error naming the key and the parts.
//
// When the parts follow one another, the output is byte-identical to
// Build over the whole inputs with the same o, its URI-R counts exact.
// Merge maps of inputs that do not follow one another with [Merge], whose
// URI-R counts are upper bounds. Stats count the parts' bad lines (Bad),
// the data lines (Keys) and the sums of their frequencies (Used, URIRs).
// Memory: one line of each part, and the listed URI-Rs; time: the lines
// times the logarithm of the parts, and the parts read again.
func Concat(ctx context.Context, dst io.Writer, parts []io.Reader, opts *BuildOptions) (BuildStats, error) {
	o := buildOptions(opts)
	var st BuildStats
	rs := make([]*mapReader, len(parts))
	metas := make([]partMeta, len(parts))
	rekeyed := make([][]string, len(parts))
	for i, p := range parts {
		r := &mapReader{name: nameOf(p, fmt.Sprintf("partial map %d", i)), br: bufio.NewReaderSize(p, 1<<16)}
		if err := r.next(); err != nil {
			return st, err
		}
		pm := &metas[i]
		if m := headerValue(r.headers, "meta"); m == nil || json.Unmarshal(m, pm) != nil || pm.Part == nil {
			return st, fmt.Errorf("%w: %s has no !meta \"part\"", ErrParts, r.name)
		} else if pm.Part.Seq != i || pm.Part.Of != len(parts) {
			return st, fmt.Errorf("%w: %s is part %d of %d, given as part %d of %d", ErrParts, r.name, pm.Part.Seq, pm.Part.Of, i, len(parts))
		}
		if !r.done && (pm.FirstKey == nil || pm.LastKey == nil) {
			return st, fmt.Errorf("%w: %s has data lines but not the index keys of its first and last records (first_key, last_key: a partial map of another version?)", ErrParts, r.name)
		}
		for _, h := range r.headers {
			v, ok := bytes.CutPrefix(h, []byte("!"+rekeyedHeader+" "))
			if !ok {
				continue
			}
			var us []string
			if err := json.Unmarshal(v, &us); err != nil {
				return st, fmt.Errorf("%w: %s: a bad !%s header: %v", ErrParts, r.name, rekeyedHeader, err)
			}
			rekeyed[i] = append(rekeyed[i], us...)
		}
		st.Bad += pm.Skipped
		st.Blank += pm.Blank
		st.Mismatched += pm.Rekeyed
		rs[i] = r
	}
	// shared counts, by HxPx key, the URI-Rs that end a part and begin
	// the next part that counts one.
	shared := map[string]uint64{}
	lastKey, lastURIR := -1, -1 // the last part with a record read, with a record counted at its index key
	for i, pm := range metas {
		if pm.FirstKey != nil && pm.LastKey != nil {
			if lastKey >= 0 {
				a, b := *metas[lastKey].LastKey, *pm.FirstKey
				if b < a {
					err := fmt.Errorf("%w: %s begins with key %q, which sorts before %q, the last key of %s (the inputs are not each sorted and one after the other)", ErrPartsOverlap, rs[i].name, b, a, rs[lastKey].name)
					if hx := hxpxOf(a); hx == hxpxOf(b) {
						err = fmt.Errorf("%w: %w: %s begins with a URI-R of key %q, %q, which sorts before %q, the last URI-R of %s (the inputs are not sorted one after the other by full SURT)", ErrPartsOverlap, ErrPartsSplitKey, rs[i].name, hx, b, a, rs[lastKey].name)
					}
					return st, err
				}
			}
			lastKey = i
		}
		if pm.First != nil && pm.Last != nil {
			if lastURIR >= 0 && *metas[lastURIR].Last == *pm.First {
				shared[hxpxOf(*pm.First)]++
			}
			lastURIR = i
		}
	}
	exact, err := countRekeyed(ctx, metas, rekeyed, rs, o)
	if err != nil {
		return st, err
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	if err := writeBuildHeaders(bw, o, &st, nil, nil); err != nil {
		return st, err
	}
	h := make(partHeap, 0, len(rs))
	for i, r := range rs {
		if !r.done {
			h = append(h, heapPart{r, i})
		}
	}
	h.init()
	var line []byte
	var at []heapPart // the parts at the least key, each once (a part's keys ascend strictly)
	for n := 0; len(h) > 0; n++ {
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return st, err
			}
		}
		// Another part at the least key is a child of the top: every
		// part on its path up holds that key too.
		if top := h[0]; !(len(h) > 1 && bytes.Equal(h[1].key, top.key)) && !(len(h) > 2 && bytes.Equal(h[2].key, top.key)) {
			var f ukvs.Frequency
			if err := f.UnmarshalText(top.value); err != nil {
				return st, top.errorf(top.key, fmt.Errorf("%w: %v", ErrBadFrequency, err))
			}
			st.Keys++
			st.Used += int64(f.URIM.N)
			st.URIRs += int64(f.URIR.N)
			bw.Write(top.body) // the line as it is
			if err := bw.WriteByte('\n'); err != nil {
				return st, fmt.Errorf("mementomap: writing: %w", err)
			}
			if err := top.next(); err != nil {
				return st, err
			}
			if top.done {
				h.pop()
			} else {
				h.down(0)
			}
			continue
		}
		at = append(at[:0], h.pop())
		for len(h) > 0 && bytes.Equal(h[0].key, at[0].key) {
			at = append(at, h.pop())
		}
		var m, rr uint64
		for _, p := range at {
			var f ukvs.Frequency
			if err := f.UnmarshalText(p.value); err != nil {
				return st, p.errorf(p.key, fmt.Errorf("%w: %v", ErrBadFrequency, err))
			}
			m += uint64(f.URIM.N)
			rr += uint64(f.URIR.N)
		}
		key := at[0].key
		if n, ok := exact[string(key)]; ok {
			rr = n
		} else {
			rr -= shared[string(key)]
		}
		line = append(append(line[:0], key...), ' ')
		line = strconv.AppendUint(line, m, 10)
		line = append(line, '/')
		line = strconv.AppendUint(line, rr, 10)
		if len(line) > MaxLineLength {
			return st, fmt.Errorf("mementomap: %w: the map line of key %.60q... would have %d bytes, more than %d", ErrLineTooLong, key, len(line), MaxLineLength)
		}
		st.Keys++
		st.Used += int64(m)
		st.URIRs += int64(rr)
		bw.Write(line)
		if err := bw.WriteByte('\n'); err != nil {
			return st, fmt.Errorf("mementomap: writing: %w", err)
		}
		for _, p := range at {
			if err := p.next(); err != nil {
				return st, err
			}
			if !p.done {
				h.push(p)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("mementomap: writing: %w", err)
	}
	return st, nil
}

// countRekeyed returns, for each HxPx key that holds a URI-R made from a
// replaced index key (rekeyed[i], part i's), the number of distinct
// URI-Rs of that key in the whole plan: those of rekeyed, and those
// counted at their index keys in the parts whose key ranges reach the
// key (a non-replaced record's URI-R is its index key), read again from
// the parts' inputs (partURIRs).
func countRekeyed(ctx context.Context, metas []partMeta, rekeyed [][]string, rs []*mapReader, o BuildOptions) (map[string]uint64, error) {
	sets := map[string]map[string]struct{}{} // HxPx key → URI-Rs
	from := map[string]int{}                 // HxPx key → a part that lists one
	for i, us := range rekeyed {
		for _, u := range us {
			k := hxpxOf(u)
			if sets[k] == nil {
				sets[k] = map[string]struct{}{}
				from[k] = i
			}
			sets[k][u] = struct{}{}
		}
	}
	if len(sets) == 0 {
		return nil, nil
	}
	// A URI-R of key K counted at its index key has an index key from K
	// up to K+"?..." (before K+"@"): the parts whose key ranges reach
	// that interval are read again for K, unless K can be in one part
	// only (the one that lists it), whose line is then exact as it is.
	lists := make(map[string][]int, len(sets)) // HxPx key → the parts that list one of its URI-Rs
	for i, us := range rekeyed {
		for j, u := range us {
			if k := hxpxOf(u); j == 0 || k != hxpxOf(us[j-1]) {
				if l := lists[k]; len(l) == 0 || l[len(l)-1] != i {
					lists[k] = append(l, i)
				}
			}
		}
	}
	need := make([]map[string]bool, len(metas))
	for k := range sets {
		hi := k + "@"
		var reach []int
		for j, pm := range metas {
			if pm.FirstKey != nil && pm.LastKey != nil && *pm.LastKey >= k && *pm.FirstKey < hi {
				reach = append(reach, j)
			}
		}
		if ls := lists[k]; len(ls) == 1 && (len(reach) == 0 || len(reach) == 1 && reach[0] == ls[0]) {
			delete(sets, k)
			continue
		}
		for _, j := range reach {
			if need[j] == nil {
				need[j] = map[string]bool{}
			}
			need[j][k] = true
		}
	}
	for j, keys := range need {
		if keys == nil {
			continue
		}
		found, err := partURIRs(ctx, *metas[j].Part, keys, o)
		if err != nil {
			var one string
			for k := range keys {
				if one == "" || k < one {
					one = k
				}
			}
			what := fmt.Sprintf("key %q", one)
			if len(keys) > 1 {
				what += fmt.Sprintf(" (and %s)", count.Of(len(keys)-1, "other key", "other keys"))
			}
			return nil, fmt.Errorf("mementomap: counting the URI-Rs of %s, made from replaced index keys in %s and counted at their index keys in %s: reading that part again: %w", what, rs[from[one]].name, rs[j].name, err)
		}
		for _, u := range found {
			sets[hxpxOf(u)][u] = struct{}{}
		}
	}
	exact := make(map[string]uint64, len(sets))
	for k, s := range sets {
		exact[k] = uint64(len(s))
	}
	return exact, nil
}

// partURIRs reads part p of its input again (cdxj.Open of p.Source) and
// returns the URI-Rs (full SURTs with their '?') of keys that the build's
// key function under o counts at their index keys (not replaced): each
// record whose index key, up to its '?', is one of keys goes through it;
// the others are passed over.
func partURIRs(ctx context.Context, p cdxj.Part, keys map[string]bool, o BuildOptions) ([]string, error) {
	ix, err := cdxj.Open(ctx, p.Source, nil)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	o.Logger = nil // the first reading has logged what this one meets
	b := newBuilder(o)
	var found []string
	b.sink = func(k []byte, hx int) error {
		if !b.replaced && keys[string(k[:hx])] {
			found = append(found, uriR(k))
		}
		return nil
	}
	n := 0
	for rec, err := range cdxj.PartRecords(ix, p) {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err == nil {
			if !o.Rekey && surtKeyOf(rec) && !keys[hxpxOf(string(rec.Key()))] {
				continue // counted at its index key, or replaced: not one of keys'
			}
			err = b.record(rec)
		}
		if err != nil {
			if err := b.bad(err); err != nil {
				return nil, err
			}
		}
	}
	return found, ctx.Err()
}

// heapPart is a partial map being read by Concat, and its place in the
// plan.
type heapPart struct {
	*mapReader
	seq int
}

// partHeap is a min-heap of the partial maps that Concat has not read to
// their end, by their current key, then by plan order. Its methods are
// container/heap's, on heapPart values (no boxing into interfaces).
type partHeap []heapPart

func (h partHeap) less(i, j int) bool {
	if c := bytes.Compare(h[i].key, h[j].key); c != 0 {
		return c < 0
	}
	return h[i].seq < h[j].seq
}

// init orders h as a heap.
func (h partHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down moves h[i] down to its place.
func (h partHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// push adds p.
func (h *partHeap) push(p heapPart) {
	*h = append(*h, p)
	for i := len(*h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		(*h)[i], (*h)[parent] = (*h)[parent], (*h)[i]
		i = parent
	}
}

// pop removes and returns the least part.
func (h *partHeap) pop() heapPart {
	old := *h
	top := old[0]
	n := len(old) - 1
	old[0] = old[n]
	*h = old[:n]
	h.down(0)
	return top
}

// Keyer is the record-to-key function of [Build] with its filters, for an
// engine that groups records by key itself (inputs that cdxj.Plan cannot
// cut into parts of disjoint keys: several indexes of one archive, an
// unsorted index). A map line "HXPX M/R" has M, the number of records of
// that HxPx key, and R, the number of distinct URI-Rs among them. A Keyer
// is not safe for concurrent use; make one per worker.
type Keyer struct {
	b   *builder
	key []byte
	uri []byte
}

// NewKeyer returns the Keyer of Build under opts (nil: the defaults).
func NewKeyer(opts *BuildOptions) *Keyer {
	o := buildOptions(opts)
	k := &Keyer{b: newBuilder(o)}
	k.b.sink = func(sk []byte, _ int) error {
		k.key = sk
		return nil
	}
	return k
}

// Key returns the HxPx key (the SURT up to its first '?') and the URI-R
// (the full SURT) of rec, or nil and nil when the filters leave the record
// out (or it is not of an HTTP(S) URI-R). A bad record (a malformed JSON
// block, a URL that does not canonicalize, a key too long for a map line)
// is a *cdxj.ParseError
// naming its line; under SkipBad it is a bad line for Build. The slices
// are valid until the next call.
func (k *Keyer) Key(rec *cdxj.Record) (hxpx, urir []byte, err error) {
	k.key = nil
	k.b.st.Records++
	if err := k.b.record(rec); err != nil {
		return nil, nil, err
	}
	if k.key == nil {
		return nil, nil, nil
	}
	hx := k.key
	k.uri = append(k.uri[:0], k.key...)
	if i := bytes.IndexByte(hx, 0); i >= 0 {
		hx = hx[:i]
		k.uri[i] = '?'
	}
	return hx, k.uri, nil
}

// Stats returns what the Keyer has counted (Records, Used, Filtered,
// NonHTTP, Checked, Mismatched and their examples).
func (k *Keyer) Stats() BuildStats { return k.b.st }
