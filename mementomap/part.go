package mementomap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/mementokit/mementokit/cdxj"
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
// most w parts of at least minPartBytes, a cluster into at most w runs of
// blocks, anything else whole.
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
		parts, err := cdxj.Plan(ctx, []cdxj.Index{ix}, n)
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

// records returns the records of the item.
func (it buildItem) records() func(func(*cdxj.Record, error) bool) {
	if it.part.Kind == cdxj.PartWhole {
		return it.src.Records(cdxj.Query{})
	}
	return cdxj.PartRecords(it.src.(cdxj.Index), it.part)
}

// buildParallel is Build on w workers: the inputs cut into parts
// (planBuild), each part read into a sorter of its own by one of at most
// w goroutines, the sorters then read together in key order (eachOf):
// one after the other for the parts of a sorted input, merged otherwise.
// The first error in part order is returned, as a sequential build would
// meet it (a part after a failed one is stopped, one before it runs on).
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
	for i := range items {
		b := newBuilder(o)
		finish[i] = b.sortInto(extsort.New(limit, o.TempDir))
		bs[i] = b
		ctxs[i], cancels[i] = context.WithCancel(ctx)
	}
	closeAll := func() {
		for _, b := range bs {
			b.s.Close()
		}
	}
	var mu sync.Mutex
	failed := len(items) // the first part that failed
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
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			b := bs[i]
			err := b.read(ctxs[i], it.records())
			if err == nil {
				err = finish[i]()
			}
			if err == nil && len(items) > w && b.s.Buffered() > 1<<12 {
				// More parts than workers: a finished part keeps no chunk.
				err = b.s.Spill()
			}
			if err != nil {
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
		if errors.Is(errs[failed], cdxj.ErrPartLayout) {
			return st, errSequential
		}
		return st, errs[failed]
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	if err := writeBuildHeaders(bw, o, st.Bad, st.Mismatched, nil, nil); err != nil {
		closeAll()
		return st, err
	}
	ss := make([]*extsort.Sorter, len(bs))
	for i, b := range bs {
		ss[i] = b.s
	}
	if err := writeMapLines(ctx, bw, &st, ss, false); err != nil {
		return st, err
	}
	(&builder{o: o, st: st}).logDone()
	return st, nil
}

// Add adds the read counts of another build, such as one part's
// (BuildPart), to s: records, used, filtered, non-HTTP, bad, sorted runs,
// checked and mismatched; at most 5 bad and 5 mismatch examples are kept.
// Keys and URIRs are not added: they are counted where the map is written
// (Concat), since parts of one key range would count a key twice.
func (s *BuildStats) Add(p BuildStats) {
	s.Records += p.Records
	s.Used += p.Used
	s.Filtered += p.Filtered
	s.NonHTTP += p.NonHTTP
	s.Bad += p.Bad
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
// JSON), "skipped_lines" (the part's bad lines skipped under o.SkipBad)
// and, when the part has a data line, "first_urir" and "last_urir" (the
// least and the greatest URI-R of the part, full SURTs with their '?',
// which [Concat] needs to join two parts that share an HxPx key), then
// one "HXPX M/R" line per HxPx key of the part's records.
// [Concat] joins the partial maps of a plan into the map Build writes.
// Errors are Build's: a bad line (a *cdxj.ParseError naming the source and
// the line or its byte offset) stops it unless o.SkipBad. Unlike Build,
// which sorts whatever it reads, BuildPart requires the part's records in
// byte-wise order of their keys (the SURTs as indexed, or as remade under
// o.Rekey), since Concat only joins parts: a key that sorts before the key
// of an earlier record stops it, SkipBad or not, with an error wrapping
// cdxj.ErrUnsorted that names the source and the line. Stats count this
// part alone. Memory: o.MemoryLimit, as Build.
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
	// The least and the greatest sort key handed to the sorter: the
	// first and the last URI-R of the map (a key replaced by the
	// canonical SURT of its URL may sort anywhere in the part).
	var lo, hi []byte
	have := false
	sink := b.sink
	b.sink = func(k []byte, hx int) error {
		if !have || bytes.Compare(k, lo) < 0 {
			lo = append(lo[:0], k...)
		}
		if !have || bytes.Compare(k, hi) > 0 {
			hi = append(hi[:0], k...)
		}
		have = true
		return sink(k, hx)
	}
	if err := b.read(ctx, cdxj.PartRecords(ix, p)); err != nil {
		b.s.Close()
		return b.st, err
	}
	if err := finish(); err != nil {
		b.s.Close()
		return b.st, err
	}
	b.st.Runs = b.s.Runs()
	var edges *partEdges
	if have {
		edges = &partEdges{First: uriR(lo), Last: uriR(hi)}
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	if err := writeBuildHeaders(bw, o, b.st.Bad, b.st.Mismatched, &p, edges); err != nil {
		b.s.Close()
		return b.st, err
	}
	err := writeMapLines(ctx, bw, &b.st, []*extsort.Sorter{b.s}, false)
	return b.st, err
}

// partEdges are the least and the greatest URI-R of a partial map (full
// SURTs, their first '?' as it is): within one HxPx key they sort as the
// map's sort keys do.
type partEdges struct {
	First, Last string
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
// whose keys do not follow one another: a key of a part sorts before a
// key of the part before it, or the parts share an HxPx key whose URI-Rs
// do not follow one another (ErrPartsSplitKey).
var ErrPartsOverlap = errors.New("mementomap: the partial maps' keys overlap")

// ErrPartsSplitKey is wrapped, beside [ErrPartsOverlap], by the error of
// [Concat] when a part begins with the HxPx key the part before it ends
// with and the two cannot be joined exactly: the first URI-R of the later
// part sorts before the last URI-R of the earlier one (inputs that are
// not sorted one after the other by full SURT), or a part has no
// "first_urir" and "last_urir" to compare.
var ErrPartsSplitKey = errors.New("the inputs share an HxPx key whose URI-Rs do not follow one another")

// ErrParts is wrapped by the errors of [Concat] for partial maps that are
// not the parts of one plan: a part missing, repeated or out of order, or
// a map that is not a partial map.
var ErrParts = errors.New("mementomap: not the partial maps of one plan")

// partMeta is the part of a partial map's !meta that Concat reads.
type partMeta struct {
	Type    string     `json:"type"`
	Skipped int64      `json:"skipped_lines"`
	Rekeyed int64      `json:"rekeyed_lines"`
	Part    *cdxj.Part `json:"part"`
	First   *string    `json:"first_urir"`
	Last    *string    `json:"last_urir"`
}

// Concat writes to dst the map of a whole plan from its partial maps (see
// [BuildPart]), given in plan order: parts[i] must be the partial map of
// the part whose Seq is i, and there must be Of of them. It writes the
// header lines Build writes under o (o.Now and o.Name and o.ArchiveID as
// given to Concat; skipped_lines summed over the parts), then the data
// lines of the parts one after the other, checking that every key of a
// part sorts after every key of the part before it, or, for the first
// key of a part, is the last key of the part before it: sorted inputs
// cut between two captures of one HxPx key (a sorted index split into
// files mid-key, or two URLs that differ only past the key). Such a key
// is written once, its captures summed and its URI-Rs counted once each:
// the parts' "first_urir" and "last_urir" say whether the URI-R that
// ends the earlier part begins the later one (counted once) or sorts
// before it (the two sets are disjoint). When that holds, the output is
// byte-identical to Build over the whole inputs with the same o, its URI-R
// counts exact. When it does not (two inputs sharing keys, an unsorted
// input, keys made from the URLs under Rekey) Concat stops with an error
// wrapping [ErrPartsOverlap] (and [ErrPartsSplitKey] when the HxPx keys
// are equal but their URI-Rs do not follow one another) that names the
// two keys, and what it wrote must be discarded (the tools write through
// a temporary file): merge such maps with [Merge], whose URI-R counts are
// then upper bounds. Stats count the parts' bad lines (Bad), the data
// lines (Keys) and the sums of their frequencies (Used, URIRs). Memory:
// one line of each part.
func Concat(ctx context.Context, dst io.Writer, parts []io.Reader, opts *BuildOptions) (BuildStats, error) {
	o := buildOptions(opts)
	var st BuildStats
	rs := make([]*mapReader, len(parts))
	metas := make([]partMeta, len(parts))
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
		st.Bad += pm.Skipped
		st.Mismatched += pm.Rekeyed
		rs[i] = r
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	if err := writeBuildHeaders(bw, o, st.Bad, st.Mismatched, nil, nil); err != nil {
		return st, err
	}
	// Each line is held back (pend) until the next one is read: the last
	// line of a part waits for the next part to say whether it begins
	// with the same HxPx key.
	var pend struct {
		have   bool
		key    []byte
		body   []byte // the line as read
		joined bool   // two parts' lines of key, written from m and r
		m, r   uint64
		part   int
	}
	flush := func() error {
		if !pend.have {
			return nil
		}
		pend.have = false
		st.Keys++
		st.Used += int64(pend.m)
		st.URIRs += int64(pend.r)
		line := pend.body
		if pend.joined {
			line = append(append(line[:0], pend.key...), ' ')
			line = strconv.AppendUint(line, pend.m, 10)
			line = append(line, '/')
			line = strconv.AppendUint(line, pend.r, 10)
			if len(line) > MaxLineLength {
				return fmt.Errorf("mementomap: %w: the map line of key %.60q... would have %d bytes, more than %d", ErrLineTooLong, pend.key, len(line), MaxLineLength)
			}
		}
		bw.Write(line)
		if err := bw.WriteByte('\n'); err != nil {
			return fmt.Errorf("mementomap: writing: %w", err)
		}
		return nil
	}
	for i, r := range rs {
		for n := 0; !r.done; n++ {
			if n&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					return st, err
				}
			}
			var f ukvs.Frequency
			if err := f.UnmarshalText(r.value); err != nil {
				return st, r.errorf(r.key, fmt.Errorf("%w: %v", ErrBadFrequency, err))
			}
			m, rr := uint64(f.URIM.N), uint64(f.URIR.N)
			joined := false
			if n == 0 && pend.have {
				switch c := bytes.Compare(r.key, pend.key); {
				case c < 0:
					return st, fmt.Errorf("%w: %s begins with key %q, which does not sort after %q, the last key of %s", ErrPartsOverlap, r.name, r.key, pend.key, rs[pend.part].name)
				case c == 0:
					// One HxPx key on both sides of the cut.
					a, b := metas[pend.part].Last, metas[i].First
					if a == nil || b == nil {
						return st, fmt.Errorf("%w: %w: %s begins with key %q, the last key of %s, and one of them does not give its first and last URI-R", ErrPartsOverlap, ErrPartsSplitKey, r.name, r.key, rs[pend.part].name)
					}
					switch c := strings.Compare(*b, *a); {
					case c < 0:
						return st, fmt.Errorf("%w: %w: %s begins with key %q, the last key of %s, at URI-R %q, which sorts before %q, the last URI-R there (the inputs are not sorted one after the other by full SURT)", ErrPartsOverlap, ErrPartsSplitKey, r.name, r.key, rs[pend.part].name, *b, *a)
					case c == 0:
						rr-- // the captures of one URI-R on both sides
					}
					m += pend.m
					rr += pend.r
					joined = true
				}
			}
			if !joined {
				if err := flush(); err != nil {
					return st, err
				}
			}
			pend.have, pend.part, pend.m, pend.r = true, i, m, rr
			pend.key = append(pend.key[:0], r.key...)
			pend.joined = joined
			if !joined {
				pend.body = append(pend.body[:0], r.body...)
			}
			if err := r.next(); err != nil {
				return st, err
			}
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("mementomap: writing: %w", err)
	}
	return st, nil
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
