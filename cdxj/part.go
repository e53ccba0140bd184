package cdxj

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
)

// PartKind says what a [Part]'s Start and End count.
type PartKind string

// The kinds of [Part].
const (
	// PartBytes is a stretch of a plain (uncompressed) CDX or CDXJ file:
	// Start and End are byte offsets, each at a line start (End the file
	// size for the last part).
	PartBytes PartKind = "bytes"
	// PartBlocks is a run of blocks of a ZipNum cluster: Start and End are
	// numbers of entries of its secondary index (its data lines, from 0).
	PartBlocks PartKind = "blocks"
	// PartWhole is a whole index, read by Records(cdxj.Query{}): a gzip
	// file, a stream, a CDX server, or a file or cluster not cut.
	PartWhole PartKind = "whole"
)

// Part is one piece of one index that can be read on its own
// ([PartRecords]): a unit of distributed work, as [Plan] makes them. It is
// plain data (it encodes to JSON as it is) so that an engine can ship it
// to a worker, which opens Source with [Open] and reads the part.
type Part struct {
	Seq    int      `json:"seq"`    // position in the plan, 0 to Of-1
	Of     int      `json:"of"`     // number of parts in the plan
	Input  int      `json:"input"`  // index of the input in the slice given to Plan
	Source string   `json:"source"` // the input's name: what Open takes on a worker
	Kind   PartKind `json:"kind"`
	Start  int64    `json:"start"` // first byte or block, inclusive
	End    int64    `json:"end"`   // last byte or block, exclusive; 0 for PartWhole
}

// String returns "SOURCE bytes START-END" (or blocks, or whole), for
// messages.
func (p Part) String() string {
	if p.Kind == PartWhole {
		return fmt.Sprintf("%s (whole)", p.Source)
	}
	return fmt.Sprintf("%s %s %d-%d", p.Source, p.Kind, p.Start, p.End)
}

// ErrPart is wrapped by the errors of a [Part] that does not fit the index
// it is read from (another kind of index, offsets out of range).
var ErrPart = errors.New("cdxj: part does not fit its index")

// ErrPartLayout is wrapped by the error that ends a part of a file in which
// a " CDX" legend line changes the column layout for lines after the part:
// the parts after it would be read with the wrong layout. Read such a file
// as one part.
var ErrPartLayout = errors.New("cdxj: a legend line inside the part changes the layout of the parts after it")

// Authority returns the part of an index line that decides where Plan may
// cut: the line up to and including the first ')' (the end of a SURT's
// host), '?' or ' ' (the end of the key), whichever comes first; the whole
// line when it has none of them. Plan cuts only between two data lines
// whose Authorities differ and both end in ')'.
//
// Why no HxPx key then has lines on both sides, and every HxPx key before
// the cut sorts before every one after it (in a byte-wise sorted index of
// SURTs whose host part holds no '?'): let A and B be the Authorities
// before and after the cut. Neither is a prefix of the other (each holds
// one ')', at its end), so they first differ at some d within both, with
// A[d] < B[d]. Every line before the cut agrees with A or sorts below it
// in its first d+1 bytes, every line after it agrees with B or sorts
// above; an HxPx key (the key up to its first '?') keeps those d+1 bytes,
// since the '?' of a SURT comes after its ')'. (Within one Authority the
// lines of one HxPx key need not be contiguous: "com,x)/a", "com,x)/a/b",
// "com,x)/a?q" have the keys a, a/b, a.)
func Authority(line []byte) []byte {
	for i, c := range line {
		if c == ')' || c == '?' || c == ' ' {
			return line[:i+1]
		}
	}
	return line
}

// cutBetween reports whether Plan may cut between two data lines whose
// Authorities are a and b (see Authority).
func cutBetween(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && a[len(a)-1] == ')' && b[len(b)-1] == ')' && !bytes.Equal(a, b)
}

// Plan splits each of inputs into at most n parts (n <= 0 means
// runtime.GOMAXPROCS(0)), in input order and, within an input, in index
// order. A plain [*File] is cut near Size*i/n, a [*Cluster] near
// blocks*i/n, in both cases only between two data lines whose
// Authorities differ, both ending in ')' (see [Authority]; looking on from
// the target up to the next one); an
// input that offers no such cut there has fewer parts. A gzip file, a
// [*Stream], a CDX server and any other [Index] is one PartWhole part.
// Plan reads the lines around each cut (for a cluster, the two blocks
// around it, and the whole secondary index), never the whole input. The
// parts of an input hold every one of its lines once, sorted or not; on a
// sorted SURT index no HxPx key has lines in two parts. Errors name the
// input; a cluster whose blocks do not tile its parts (a missing .idx
// line, see [Cluster]) is an error wrapping [ErrZipNum] naming the .idx
// file and line.
func Plan(ctx context.Context, inputs []Index, n int) ([]Part, error) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var parts []Part
	for i, ix := range inputs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var cuts []int64
		var kind PartKind
		var end int64
		var err error
		switch x := ix.(type) {
		case *File:
			if !x.gz && n > 1 {
				kind, end = PartBytes, x.size
				cuts, err = x.planCuts(ctx, n)
			}
		case *Cluster:
			if n > 1 {
				kind = PartBlocks
				cuts, end, err = x.planCuts(ctx, n)
			}
		}
		if err != nil {
			return nil, err
		}
		src := SourceName(ix)
		if kind == "" || len(cuts) == 0 {
			if kind == "" {
				parts = append(parts, Part{Input: i, Source: src, Kind: PartWhole})
			} else {
				parts = append(parts, Part{Input: i, Source: src, Kind: kind, Start: 0, End: end})
			}
			continue
		}
		start := int64(0)
		for _, c := range append(cuts, end) {
			parts = append(parts, Part{Input: i, Source: src, Kind: kind, Start: start, End: c})
			start = c
		}
	}
	for i := range parts {
		parts[i].Seq, parts[i].Of = i, len(parts)
	}
	return parts, nil
}

// SourceName returns the name of an index as errors and parts give it:
// the path of a [*File], the secondary index of a [*Cluster], the name of
// a [*Stream], the URL of a [*Server]; "" for other Searchers.
func SourceName(s Searcher) string {
	switch x := s.(type) {
	case *File:
		return x.path
	case *Cluster:
		return x.idxPath
	case *Stream:
		return x.name
	case *Server:
		return x.endpoint
	case *Sorted:
		return x.name
	}
	return ""
}

// planCuts returns the byte offsets (line starts, ascending, none 0 or
// the size) at which to cut a plain file into at most n parts.
func (f *File) planCuts(ctx context.Context, n int) ([]int64, error) {
	lf := newLineFile(f.f, f.size, f.opt.maxLine())
	var cuts []int64
	last := int64(0)
	for i := 1; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		target := f.size * int64(i) / int64(n)
		limit := f.size * int64(i+1) / int64(n)
		if target <= last {
			continue
		}
		off, err := lf.lineStartAfter(target)
		if err != nil {
			return nil, fmt.Errorf("cdxj: %s: %w", f.path, err)
		}
		var prev []byte
		cut := int64(-1)
		err = lf.scan(off, func(line []byte, at int64) bool {
			if at >= limit {
				return false
			}
			if isBlankLine(line) || isHeaderLine(line) {
				return true
			}
			a := Authority(line)
			if prev != nil && cutBetween(prev, a) {
				cut = at
				return false
			}
			prev = append(prev[:0], a...)
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("cdxj: %s: %w", f.path, err)
		}
		if cut > last && cut < f.size {
			cuts = append(cuts, cut)
			last = cut
		}
	}
	return cuts, nil
}

// planCuts returns the entry numbers (ascending, none 0 or the count) at
// which to cut the cluster into at most n parts, and the number of
// entries.
func (c *Cluster) planCuts(ctx context.Context, n int) ([]int64, int64, error) {
	var ents []IdxEntry
	t := tiling{c: c, fromStart: true, sizes: true}
	for e, err := range c.Entries() {
		if err == nil {
			err = t.next(e)
		}
		if err != nil {
			return nil, 0, err
		}
		ents = append(ents, e)
	}
	if err := t.end(); err != nil {
		return nil, 0, err
	}
	total := int64(len(ents))
	// lastLine and firstLine read the Authority of a block's last and
	// first data line (nil for a block without data lines).
	edge := func(e IdxEntry, first bool) ([]byte, error) {
		var a []byte
		for line, err := range c.BlockLines(e) {
			if err != nil {
				return nil, err
			}
			if isBlankLine(line) || isHeaderLine(line) {
				continue
			}
			a = append(a[:0], Authority(line)...)
			if first {
				break
			}
		}
		return a, nil
	}
	var cuts []int64
	last := int64(0)
	for i := 1; i < n; i++ {
		target := total * int64(i) / int64(n)
		limit := total * int64(i+1) / int64(n)
		if target <= last {
			continue
		}
		prev, err := edge(ents[target-1], false)
		if err != nil {
			return nil, 0, err
		}
		for j := target; j < limit; j++ {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			next, err := edge(ents[j], true)
			if err != nil {
				return nil, 0, err
			}
			if prev != nil && next != nil && cutBetween(prev, next) {
				cuts = append(cuts, j)
				last = j
				break
			}
			if p, err := edge(ents[j], false); err != nil {
				return nil, 0, err
			} else if p != nil {
				prev = p
			}
		}
	}
	return cuts, total, nil
}

// PartRecords returns the records of part p of ix, which must be the index
// p.Source names (as Plan was given it, or as Open opens p.Source on a
// worker): for PartWhole, ix.Records(cdxj.Query{}); for PartBytes and
// PartBlocks the records Records(cdxj.Query{}) yields for that stretch of
// the input, parsed the same way. Classic CDX lines of a part that starts
// inside a file are read with the layout of the file's leading " CDX"
// legend line; a legend line inside a part that changes the layout for
// the lines after the part ends the part with an error wrapping
// [ErrPartLayout]. A line that does not parse yields a *ParseError (and
// the iteration goes on if the loop continues) naming the source and the
// line as a whole walk does (in a cluster, the block and the line in it);
// in a part that starts inside a file, line numbers are counted only when
// an error or Record.LineNumber asks for one. A part that does not fit ix is an error wrapping
// [ErrPart].
func PartRecords(ix Index, p Part) iter.Seq2[*Record, error] {
	fail := func(err error) iter.Seq2[*Record, error] {
		return func(yield func(*Record, error) bool) { yield(nil, err) }
	}
	switch p.Kind {
	case PartWhole:
		return ix.Records(Query{})
	case PartBytes:
		f, ok := ix.(*File)
		if !ok || f.gz {
			return fail(fmt.Errorf("%w: %s: a bytes part needs a plain file", ErrPart, p))
		}
		if p.Start < 0 || p.End < p.Start || p.End > f.size {
			return fail(fmt.Errorf("%w: %s: the file has %d bytes", ErrPart, p, f.size))
		}
		return f.partRecords(p)
	case PartBlocks:
		c, ok := ix.(*Cluster)
		if !ok {
			return fail(fmt.Errorf("%w: %s: a blocks part needs a ZipNum cluster", ErrPart, p))
		}
		if p.Start < 0 || p.End < p.Start {
			return fail(fmt.Errorf("%w: %s", ErrPart, p))
		}
		var at blockPos
		lines := c.lines(Query{}, int(p.Start), int(p.End-p.Start), &at)
		return records(lines, nil, c.opt.Layout, c.placeLine(&at))
	}
	return fail(fmt.Errorf("%w: %s: unknown kind %q", ErrPart, p, p.Kind))
}

// topLegend returns the " CDX" legend line among the file's leading
// header and blank lines, or "" when there is none.
func (f *File) topLegend() (string, error) {
	lf := newLineFile(f.f, f.size, f.opt.maxLine())
	for off := int64(0); off < f.size; {
		line, next, err := lf.lineAt(off)
		if err != nil {
			return "", err
		}
		if !(isBlankLine(line) || isHeaderLine(line)) {
			return "", nil
		}
		if isLegend(line) {
			return string(line), nil
		}
		off = next
	}
	return "", nil
}

func (f *File) partRecords(p Part) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		legend, err := f.topLegend()
		if err != nil {
			yield(nil, fmt.Errorf("cdxj: %s: %w", f.path, err))
			return
		}
		var hdr *Layout
		if p.Start > 0 {
			if l := legend; l != "" {
				if hdr, err = ParseLayout(l); err != nil {
					yield(nil, &ParseError{Source: f.path, Line: 1, Err: err})
					return
				}
			}
		}
		cr := &progressReader{r: io.NewSectionReader(f.f, p.Start, p.End-p.Start), opt: &f.opt}
		defer cr.flush()
		r := NewReader(cr)
		f.setup(r)
		r.off, r.hdr = p.Start, hdr
		if p.Start > 0 {
			r.lines = &lineCounter{r: f.f}
		}
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					yield(nil, fmt.Errorf("cdxj: %s: line at byte %d: %w", f.path, r.InputOffset(), err))
					return
				}
			}
			if !yield(rec, err) {
				return
			}
		}
		if p.End < f.size {
			for i := len(r.headers) - 1; i >= 0; i-- {
				if h := r.headers[i]; isLegend([]byte(h)) {
					if h != legend {
						yield(nil, fmt.Errorf("%w: %s: legend %q, the part began with %q", ErrPartLayout, p, h, legend))
					}
					break
				}
			}
		}
	}
}

// lineCounter finds line numbers of a file from byte offsets, counting
// '\n' bytes on from the last offset it was asked about (from the start
// when asked about an earlier one).
type lineCounter struct {
	r   io.ReaderAt
	off int64 // '\n' bytes in [0, off) are n
	n   int64
	buf []byte
}

// lineAt returns the 1-based number of the line that starts at off, or 0
// when the file cannot be read.
func (c *lineCounter) lineAt(off int64) int64 {
	if off < c.off {
		c.off, c.n = 0, 0
	}
	if c.buf == nil {
		c.buf = make([]byte, 1<<20)
	}
	for c.off < off {
		b := c.buf[:min(int64(len(c.buf)), off-c.off)]
		k, err := c.r.ReadAt(b, c.off)
		c.n += int64(bytes.Count(b[:k], []byte{'\n'}))
		c.off += int64(k)
		if err != nil && c.off < off {
			return 0
		}
	}
	return c.n + 1
}
