package cdxj

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/bits"
	"runtime"
	"sort"
	"strconv"
)

// PartKind says what a [Part]'s Start and End count.
type PartKind string

// The kinds of [Part].
const (
	// PartBytes is a stretch of a plain (uncompressed) CDX or CDXJ file:
	// Start and End are byte offsets, each at a line start (End the file
	// size for the last part).
	PartBytes PartKind = "bytes"
	// PartBlocks is a run of lines of a ZipNum cluster: Start and End are
	// numbers of entries of its secondary index (its data lines, from 0),
	// that is of blocks, and StartLine and EndLine place the part's ends
	// inside those blocks. The part begins after the first StartLine lines
	// of block Start and ends after the first EndLine lines of block End
	// (EndLine 0: where block End begins; End may then be the number of
	// blocks). Lines are counted as they are stored in the decompressed
	// block, blank lines too.
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
	End    int64    `json:"end"`   // last byte or block, exclusive (a block with EndLine > 0 is in part); 0 for PartWhole
	// StartLine and EndLine are, for PartBlocks, the lines of block Start
	// before the part and of block End in it; 0 for other kinds.
	StartLine int64 `json:"start_line,omitempty"`
	EndLine   int64 `json:"end_line,omitempty"`
	// Legend is, for a PartBytes part with HasLegend, the " CDX" legend
	// line in force where the part starts: the last one before Start that
	// parses ("" for none), as [File.SetLegends] finds it. A part without
	// HasLegend is read with the file's leading legend, and ends with an
	// error wrapping [ErrPartLayout] when a legend line inside it changes
	// the layout for the parts after it.
	Legend    string `json:"legend,omitempty"`
	HasLegend bool   `json:"has_legend,omitempty"`
}

// String returns "SOURCE bytes START-END", "SOURCE blocks START-END" or
// "SOURCE (whole)", for messages; a blocks part whose ends lie inside
// blocks gives them as "blocks 3 line 121-7 line 46" (1-based: the first
// line of the part, and the line after its last).
func (p Part) String() string {
	switch {
	case p.Kind == PartWhole:
		return fmt.Sprintf("%s (whole)", p.Source)
	case p.Kind == PartBlocks && (p.StartLine > 0 || p.EndLine > 0):
		s, e := strconv.FormatInt(p.Start, 10), strconv.FormatInt(p.End, 10)
		if p.StartLine > 0 {
			s += fmt.Sprintf(" line %d", p.StartLine+1)
		}
		if p.EndLine > 0 {
			e += fmt.Sprintf(" line %d", p.EndLine+1)
		}
		return fmt.Sprintf("%s blocks %s-%s", p.Source, s, e)
	}
	return fmt.Sprintf("%s %s %d-%d", p.Source, p.Kind, p.Start, p.End)
}

// ErrPart is wrapped by the errors of a [Part] that does not fit the index
// it is read from (another kind of index, offsets out of range).
var ErrPart = errors.New("cdxj: part does not fit its index")

// ErrPartLayout is wrapped by the error that ends a part of a file in which
// a " CDX" legend line changes the column layout for lines after the part:
// the parts after it would be read with the wrong layout. Read such a file
// as one part, or give its parts their legends ([File.SetLegends]).
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
// blocks*i/n (inside a block, at the same fraction of its lines), in both
// cases only between two data lines whose Authorities differ, both ending
// in ')' (see [Authority]): at the first such place after the target's
// line, which in a sorted index is the end of the run of that line's
// Authority; a run that spans targets makes fewer parts. A gzip file, a
// [*Stream], a CDX server and any other [Index] is one PartWhole part.
// Plan reads the lines around each cut (a few lines found by binary
// search in a file; in a cluster, the whole secondary index and two or
// three blocks per cut), never the whole input, and its work grows with
// the parts it makes, not with n (an input that is not sorted around a
// target is read on line by line up to the next target). The parts of an
// input hold every one of its lines once, sorted or not; on a sorted SURT
// index no HxPx key has lines in two parts. Errors name the input; a
// cluster whose blocks do not tile its parts (a missing .idx line, see
// [Cluster]) is an error wrapping [ErrZipNum] naming the .idx file and
// line.
func Plan(ctx context.Context, inputs []Index, n int) ([]Part, error) {
	return plan(ctx, inputs, n, false)
}

// PlanKeyCuts is [Plan] for a reader that needs no more of a cut than
// that every key before it, its first '?' taken as the least byte, sorts
// before every key after it (the sort keys of a MementoMap build): a plain
// [*File] whose Authority run goes on past a target (one large host) is
// then also cut inside that run, at the first line after the target's
// line (among the next maxKeyCutLines) whose key K differs from the key
// before it, where, H being K's HxPx key (K up to its first '?'), no
// later line's key is "A?…" for a prefix A of H after its ')' that H
// continues with a byte below '?' ("com,x)/a" of "com,x)/a/b"), and, when
// K is a query of H, no earlier line's key continues H with a byte below
// '?' (binary searches, the file taken as sorted). The queries of one
// HxPx key may then lie on both sides of a cut, each key on one side
// only, and the parts come nearer Size*i/n. Where no such line is found
// the cut is Plan's. Other inputs are cut as Plan cuts them.
func PlanKeyCuts(ctx context.Context, inputs []Index, n int) ([]Part, error) {
	return plan(ctx, inputs, n, true)
}

// maxKeyCutLines is the most lines PlanKeyCuts looks at after a target
// for a cut inside an Authority's run.
const maxKeyCutLines = 256

// plan is Plan, or PlanKeyCuts with keyCuts.
func plan(ctx context.Context, inputs []Index, n int, keyCuts bool) ([]Part, error) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var parts []Part
	for i, ix := range inputs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := SourceName(ix)
		switch x := ix.(type) {
		case *File:
			if x.gz || n <= 1 {
				break
			}
			cuts, err := x.planCuts(ctx, n, keyCuts)
			if err != nil {
				return nil, err
			}
			start := int64(0)
			for _, c := range append(cuts, x.size) {
				parts = append(parts, Part{Input: i, Source: src, Kind: PartBytes, Start: start, End: c})
				start = c
			}
			continue
		case *Cluster:
			if n <= 1 {
				break
			}
			cuts, total, err := x.planCuts(ctx, n)
			if err != nil {
				return nil, err
			}
			start := blockPoint{}
			for _, c := range append(cuts, blockPoint{total, 0}) {
				parts = append(parts, Part{Input: i, Source: src, Kind: PartBlocks,
					Start: start.Block, StartLine: start.Line, End: c.Block, EndLine: c.Line})
				start = c
			}
			continue
		}
		parts = append(parts, Part{Input: i, Source: src, Kind: PartWhole})
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

// runEnd returns the probe that sorts after every line that begins with
// the Authority a (which ends in ')'): a with its ')' made '*', the next
// byte. In a sorted index the lines of a run of one Authority are the
// lines from the run's first up to the first line >= runEnd(a).
func runEnd(a []byte) []byte {
	p := append([]byte(nil), a...)
	p[len(p)-1] = ')' + 1
	return p
}

// mulDiv returns a*b/c and the remainder, for 0 <= a, 0 <= b <= c, c > 0,
// without overflow (a file of a terabyte cut into 4 KiB parts).
func mulDiv(a, b, c int64) (q, r int64) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	uq, ur := bits.Div64(hi, lo, uint64(c))
	return int64(uq), int64(ur)
}

// at returns total*i/n.
func at(total int64, i, n int) int64 {
	q, _ := mulDiv(total, int64(i), int64(n))
	return q
}

// nextTarget returns the least i in (from, n) whose target total*i/n
// lies after pos (the units of both: bytes or blocks), or n when none.
func nextTarget(pos, total int64, from, n int) int {
	if total <= 0 {
		return n
	}
	if pos >= total {
		return n
	}
	// The least i with total*i/n > pos is about (pos+1)*n/total.
	q, _ := mulDiv(pos+1, int64(n), total)
	i := int(q)
	for i > from+1 && at(total, i-1, n) > pos {
		i--
	}
	for i < n && (i <= from || at(total, i, n) <= pos) {
		i++
	}
	return i
}

// planCuts returns the byte offsets (line starts, ascending, none 0 or
// the size) at which to cut a plain file into at most n parts.
//
// For each target (a multiple of size/n after the last cut) the cut is
// the first line after the target's line whose Authority differs from the
// one before it. In a sorted file that is the end of the run of the
// target line's Authority, found by binary search (a few reads, however
// long the run), and checked; a file where the check fails (not sorted,
// or an Authority not ending in ')') is scanned on from the target up to
// the next target instead. The next target is the first one after the
// cut, so the work is about the number of parts (times log size), not n.
func (f *File) planCuts(ctx context.Context, n int, keyCuts bool) ([]int64, error) {
	lf := newLineFile(f.f, f.size, f.opt.maxLine())
	var cuts []int64
	last := int64(0)
	for i := 1; i < n; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		target, limit := at(f.size, i, n), at(f.size, i+1, n)
		cut, reach, err := f.cutAfter(lf, target, limit)
		if err == nil && keyCuts && (cut == toEnd || cut > target) {
			// A cut between two keys of the run, nearer the target.
			end := limit
			if cut != toEnd {
				end = min(cut, limit)
			}
			var kc int64
			if kc, err = f.keyCutIn(max(target, last+1), end); err == nil && kc >= 0 {
				cut, reach = kc, kc
			}
		}
		if err != nil {
			return nil, fmt.Errorf("cdxj: %s: %w", f.path, err)
		}
		if cut == toEnd {
			break
		}
		if cut > last && cut < f.size {
			cuts = append(cuts, cut)
			last = cut
		}
		i = nextTarget(max(last, reach-1), f.size, i, n)
	}
	return cuts, nil
}

// keyCutIn returns the start of the first data line in [from, end),
// among the first maxKeyCutLines, before which PlanKeyCuts may cut a
// sorted file inside the run of one Authority, or -1 when there is none.
// from need not be a line start (the line after it is the first looked
// at); the line before the first one looked at is read for its key.
func (f *File) keyCutIn(from, end int64) (int64, error) {
	lf := newLineFile(f.f, f.size, f.opt.maxLine())
	sf := newLineFile(f.f, f.size, f.opt.maxLine()) // for the searches
	off, err := lf.lineStartAfter(from)
	if err != nil || off >= end {
		return -1, err
	}
	var prev []byte // the key of the data line before the one looked at
	if p, err := lf.prevDataLine(off); err != nil {
		return -1, err
	} else if p >= 0 {
		l, _, err := lf.lineAt(p)
		if err != nil {
			return -1, err
		}
		prev = append(prev, lineKey(l)...)
	}
	var probe []byte
	// fits reports whether a cut may come before the line of key k at at.
	fits := func(k []byte, at int64) (bool, error) {
		hx := k // the HxPx key
		if q := bytes.IndexByte(k, '?'); q >= 0 {
			hx = k[:q]
		}
		h := bytes.IndexByte(hx, ')')
		if h < 0 {
			return false, nil
		}
		// No later line is a query of a prefix of hx that hx extends
		// with a byte below '?'.
		for j := h + 1; j < len(hx); j++ {
			if hx[j] >= '?' {
				continue
			}
			probe = append(append(probe[:0], hx[:j]...), '?')
			q, err := searchFrom(sf, at, probe)
			if err != nil || q >= f.size {
				if err != nil {
					return false, err
				}
				continue
			}
			l, _, err := sf.lineAt(q)
			if err != nil || bytes.HasPrefix(l, probe) {
				return false, err
			}
		}
		if len(hx) == len(k) {
			return true, nil
		}
		// k is a query of hx: no earlier line is a longer neighbour of
		// hx with a byte below '?' ("com,x)/a/b" of "com,x)/a?q").
		probe = append(append(probe[:0], hx...), ' '+1)
		q, err := searchFrom(sf, 0, probe)
		if err != nil || q >= f.size {
			return err == nil, err
		}
		l, _, err := sf.lineAt(q)
		if err != nil {
			return false, err
		}
		n := lineKey(l)
		return !(bytes.HasPrefix(n, hx) && len(n) > len(hx) && n[len(hx)] < '?'), nil
	}
	cut, seen := int64(-1), 0
	var ferr error
	err = lf.scan(off, func(line []byte, at int64) bool {
		if at >= end || seen >= maxKeyCutLines {
			return false
		}
		if isBlankLine(line) || isHeaderLine(line) {
			return true
		}
		seen++
		k := lineKey(line)
		if prev != nil && bytes.Compare(prev, k) < 0 {
			// k is lent to fits, whose searches use another lineFile.
			ok, err := fits(k, at)
			if err != nil {
				ferr = err
				return false
			}
			if ok {
				cut = at
				return false
			}
		}
		prev = append(prev[:0], k...)
		return true
	})
	return cut, errors.Join(err, ferr)
}

// lineKey returns an index line's key: the line up to its first space.
func lineKey(line []byte) []byte {
	if i := bytes.IndexByte(line, ' '); i >= 0 {
		return line[:i]
	}
	return line
}

// toEnd is what File.cutAfter returns when the run of the target line's
// Authority goes on to the end of the file: no later target has a cut.
const toEnd = -2

// cutAfter returns the cut for target (see planCuts), -1 when the scan
// finds none before limit, or toEnd; reach is the cut, or the line start
// where the scan stopped (no cut before it).
func (f *File) cutAfter(lf *lineFile, target, limit int64) (cut, reach int64, err error) {
	off, err := lf.lineStartAfter(target)
	if err != nil {
		return 0, 0, err
	}
	start, line, ok, err := lf.dataLineFrom(off)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return toEnd, f.size, nil
	}
	if a := Authority(line); a[len(a)-1] == ')' {
		a = append([]byte(nil), a...)
		at, err := searchFrom(lf, start, runEnd(a))
		if err != nil {
			return 0, 0, err
		}
		if at >= f.size {
			// The run goes on to the end (or the file is not sorted:
			// the scan below finds out).
			if last, err := lf.prevDataLine(f.size); err != nil {
				return 0, 0, err
			} else if last >= 0 {
				if l, _, err := lf.lineAt(last); err != nil {
					return 0, 0, err
				} else if bytes.Equal(Authority(l), a) {
					return toEnd, f.size, nil
				}
			}
		} else if at > start {
			// Check it: the data line before at has Authority a, the one
			// at at another one ending in ')'.
			prev, err := lf.prevDataLine(at)
			if err != nil {
				return 0, 0, err
			}
			if prev >= start {
				pl, _, err := lf.lineAt(prev)
				if err != nil {
					return 0, 0, err
				}
				pa := append([]byte(nil), Authority(pl)...)
				l, _, err := lf.lineAt(at)
				if err != nil {
					return 0, 0, err
				}
				if bytes.Equal(pa, a) && cutBetween(pa, Authority(l)) {
					return at, at, nil
				}
			}
		}
	}
	// Not sorted around here, or no SURT host: look line by line.
	var prev []byte
	cut, reach = -1, f.size
	err = lf.scan(start, func(line []byte, at int64) bool {
		if at >= limit && prev != nil {
			reach = at
			return false
		}
		if isBlankLine(line) || isHeaderLine(line) {
			return true
		}
		a := Authority(line)
		if prev != nil && cutBetween(prev, a) {
			cut, reach = at, at
			return false
		}
		prev = append(prev[:0], a...)
		return true
	})
	return cut, reach, err
}

// searchFrom returns the offset of the first data line at or after the
// line start lo that sorts at or after probe, by binary search (the file
// taken as sorted), or the size when there is none.
func searchFrom(lf *lineFile, lo int64, probe []byte) (int64, error) {
	hi := lf.size
	for lo < hi {
		mid := lo + (hi-lo)/2
		start, line, ok, err := lf.probe(mid)
		if err != nil {
			return 0, err
		}
		if !ok || bytes.Compare(line, probe) >= 0 {
			hi = mid
		} else {
			lo = start + 1
		}
	}
	ls, err := lf.lineStartAfter(lo)
	if err != nil {
		return 0, err
	}
	start, _, _, err := lf.dataLineFrom(ls)
	return start, err
}

// blockPoint is a place between two lines of a cluster: before the line
// Line (0-based, counting every line of the block) of block Block; Line 0
// is the block's start.
type blockPoint struct {
	Block, Line int64
}

func (a blockPoint) before(b blockPoint) bool {
	return a.Block < b.Block || (a.Block == b.Block && a.Line < b.Line)
}

// clusterPlanner reads the blocks of a cluster for Plan, keeping the last
// one read.
type clusterPlanner struct {
	c     *Cluster
	ents  []IdxEntry
	cache map[int64][][]byte // a few blocks read last, by number
}

// block returns the lines of block j (every line, blank and header lines
// too, as the lines of a query count them).
func (p *clusterPlanner) block(j int64) ([][]byte, error) {
	if lines, ok := p.cache[j]; ok {
		return lines, nil
	}
	var lines [][]byte
	for line, err := range p.c.BlockLines(p.ents[j]) {
		if err != nil {
			return nil, err
		}
		lines = append(lines, append([]byte(nil), line...))
	}
	if len(p.cache) >= 4 {
		clear(p.cache)
	}
	p.cache[j] = lines
	return lines, nil
}

// dataAuthority returns the Authority of the first data line at or after
// pt (forward) or the last one before it (!forward), within the blocks
// from lo to hi-1, with its place (before it, for forward; after it,
// otherwise); nil when there is none.
func (p *clusterPlanner) dataAuthority(pt blockPoint, forward bool, lo, hi int64) ([]byte, blockPoint, error) {
	for j := pt.Block; j >= lo && j < hi; {
		lines, err := p.block(j)
		if err != nil {
			return nil, pt, err
		}
		if forward {
			for k := pt.Line; k < int64(len(lines)); k++ {
				if l := lines[k]; !isBlankLine(l) && !isHeaderLine(l) {
					return append([]byte(nil), Authority(l)...), blockPoint{j, k}, nil
				}
			}
			j++
			pt = blockPoint{j, 0}
		} else {
			for k := min(pt.Line, int64(len(lines))) - 1; k >= 0; k-- {
				if l := lines[k]; !isBlankLine(l) && !isHeaderLine(l) {
					return append([]byte(nil), Authority(l)...), blockPoint{j, k + 1}, nil
				}
			}
			j--
			if j >= lo {
				pt = blockPoint{j, 1 << 62}
			}
		}
	}
	return nil, pt, nil
}

// planCuts returns the places (ascending, none at the start or the end)
// at which to cut the cluster into at most n parts, and the number of
// entries.
//
// Target i is the place total*i/n blocks in: block total*i/n (whole
// blocks), at the same fraction of its lines. The cut is the first line
// after the target's line whose Authority differs from the one before it:
// in a sorted cluster the end of the run of that Authority, found by
// binary search of the entries (their keys are their blocks' first lines)
// and one block read, then checked; where the check fails the lines are
// read on from the target up to the next target. The next target is the
// first one after the cut.
func (c *Cluster) planCuts(ctx context.Context, n int) ([]blockPoint, int64, error) {
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
	p := &clusterPlanner{c: c, ents: ents, cache: map[int64][][]byte{}}
	var cuts []blockPoint
	last := blockPoint{}
	end := blockPoint{total, 0}
	// place returns target i.
	place := func(i int) (blockPoint, error) {
		j, r := mulDiv(total, int64(i), int64(n)) // j + r/n blocks in
		if r == 0 || j >= total {
			return blockPoint{j, 0}, nil
		}
		lines, err := p.block(j)
		if err != nil {
			return blockPoint{}, err
		}
		k, _ := mulDiv(r, int64(len(lines)), int64(n))
		return blockPoint{j, k}, nil
	}
	// firstAt returns the least i > from whose target is at pt or after
	// it (after it, when strict), or n: place(i) is at or after {B, K} when
	// total*i*L >= (B*L + K)*n, L the lines of block B.
	firstAt := func(pt blockPoint, strict bool, from int) (int, error) {
		if pt.Block >= total {
			return n, nil
		}
		lines, err := p.block(pt.Block)
		if err != nil {
			return 0, err
		}
		l := max(1, int64(len(lines)))
		k := min(pt.Line, l)
		if strict {
			k++
		}
		q, r := mulDiv(pt.Block*l+k, int64(n), total*l)
		if r > 0 {
			q++
		}
		i := max(from+1, int(min(q, int64(n))))
		for i < n {
			t, err := place(i)
			if err != nil {
				return 0, err
			}
			if !t.before(pt) && (!strict || pt.before(t)) {
				break
			}
			i++
		}
		return i, nil
	}
	for i := 1; i < n; {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		target, err := place(i)
		if err != nil {
			return nil, 0, err
		}
		limit := end
		if i+1 < n {
			if limit, err = place(i + 1); err != nil {
				return nil, 0, err
			}
		}
		cut, ok, reach, err := p.cutAfter(target, limit)
		if err != nil {
			return nil, 0, err
		}
		if ok && last.before(cut) && cut.before(end) {
			cuts = append(cuts, cut)
			last = cut
			i, err = firstAt(cut, false, i)
		} else {
			i, err = firstAt(reach, true, i)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return cuts, total, nil
}

// cutAfter returns the cut for target (see planCuts); ok is false when
// there is none: the run of the target line's Authority goes on to the
// end, or the lines read one by one have none up to limit. reach is the
// place of the last line known to have no cut before it (the end, when
// the run goes on to the end).
func (p *clusterPlanner) cutAfter(target, limit blockPoint) (cut blockPoint, ok bool, reach blockPoint, err error) {
	total := int64(len(p.ents))
	end := blockPoint{total, 0}
	a, from, err := p.dataAuthority(target, true, 0, total)
	if err != nil || a == nil {
		return cut, false, end, err
	}
	if a[len(a)-1] == ')' {
		probe := string(runEnd(a))
		// The last block whose first key sorts before probe holds the
		// run's end, or ends with it.
		m := int64(sort.Search(len(p.ents), func(k int) bool { return p.ents[k].Key >= probe })) - 1
		if m >= from.Block {
			lines, err := p.block(m)
			if err != nil {
				return cut, false, end, err
			}
			k := int64(sort.Search(len(lines), func(k int) bool { return string(lines[k]) >= probe }))
			if m == from.Block {
				k = max(k, from.Line)
			}
			cut = blockPoint{m, k}
			if k == int64(len(lines)) {
				cut = blockPoint{m + 1, 0}
			}
			// Check it: the data lines on either side.
			pa, _, err := p.dataAuthority(cut, false, from.Block, total)
			if err != nil {
				return cut, false, end, err
			}
			if cut.Block >= total {
				if bytes.Equal(pa, a) {
					return cut, false, end, nil // the run goes on to the end
				}
			} else {
				na, at, err := p.dataAuthority(cut, true, 0, total)
				if err != nil {
					return cut, false, end, err
				}
				if pa != nil && na != nil && bytes.Equal(pa, a) && cutBetween(pa, na) && from.before(at) {
					return cut, true, cut, nil
				}
			}
		}
	}
	// Read on line by line, up to limit.
	prev := a
	reach = from
	for j := from.Block; j < total; j++ {
		lines, err := p.block(j)
		if err != nil {
			return cut, false, end, err
		}
		k0 := int64(0)
		if j == from.Block {
			k0 = from.Line + 1
		}
		for k := k0; k < int64(len(lines)); k++ {
			pt := blockPoint{j, k}
			if limit.before(pt) {
				return cut, false, reach, nil
			}
			l := lines[k]
			if isBlankLine(l) || isHeaderLine(l) {
				continue
			}
			na := Authority(l)
			if cutBetween(prev, na) {
				return pt, true, pt, nil
			}
			prev = append(prev[:0:0], na...)
			reach = pt
		}
	}
	return cut, false, end, nil
}

// PartRecords returns the records of part p of ix, which must be the index
// p.Source names (as Plan was given it, or as Open opens p.Source on a
// worker): for PartWhole, ix.Records(cdxj.Query{}); for PartBytes and
// PartBlocks the records Records(cdxj.Query{}) yields for that stretch of
// the input, parsed the same way. Classic CDX lines of a part that starts
// inside a file are read with the layout of p.Legend when p.HasLegend, else
// with that of the file's leading " CDX" legend line, and then a legend
// line inside the part that changes the layout for the lines after the
// part ends the part with an error wrapping [ErrPartLayout]. A line that does not parse yields a *ParseError (and
// the iteration goes on if the loop continues) naming the source and the
// line as a whole walk does (in a cluster, the block and the line in it);
// in a part that starts inside a file, line numbers are counted only when
// an error or Record.LineNumber asks for one. A part that does not fit ix is an error wrapping
// [ErrPart].
func PartRecords(ix Index, p Part) iter.Seq2[*Record, error] {
	return PartRecordsBlank(ix, p, nil)
}

// PartRecordsBlank is PartRecords that, when blank is not nil, adds to
// *blank the blank lines of the part it passes over (see Query.Blank), so
// that the parts of an index count each of its blank lines once. Read it
// after the loop.
func PartRecordsBlank(ix Index, p Part, blank *int64) iter.Seq2[*Record, error] {
	fail := func(err error) iter.Seq2[*Record, error] {
		return func(yield func(*Record, error) bool) { yield(nil, err) }
	}
	switch p.Kind {
	case PartWhole:
		return ix.Records(Query{Blank: blank})
	case PartBytes:
		f, ok := ix.(*File)
		if !ok || f.gz {
			return fail(fmt.Errorf("%w: %s: a bytes part needs a plain file", ErrPart, p))
		}
		if p.Start < 0 || p.End < p.Start || p.End > f.size {
			return fail(fmt.Errorf("%w: %s: the file has %d bytes", ErrPart, p, f.size))
		}
		return f.partRecords(p, blank)
	case PartBlocks:
		c, ok := ix.(*Cluster)
		if !ok {
			return fail(fmt.Errorf("%w: %s: a blocks part needs a ZipNum cluster", ErrPart, p))
		}
		if p.Start < 0 || p.End < p.Start || p.StartLine < 0 || p.EndLine < 0 ||
			(p.Start == p.End && p.EndLine > 0 && p.EndLine < p.StartLine) {
			return fail(fmt.Errorf("%w: %s", ErrPart, p))
		}
		if p.Start == p.End && p.EndLine == 0 {
			return func(func(*Record, error) bool) {} // empty
		}
		count := p.End - p.Start
		if p.EndLine > 0 {
			count++
		}
		var at blockPos
		if blank != nil {
			at.blank = func() {
				if (at.n == 0 && int64(at.line) <= p.StartLine) || (p.EndLine > 0 && int64(at.n) == count-1 && int64(at.line) > p.EndLine) {
					return // another part's line
				}
				*blank++
			}
		}
		lines := c.lines(Query{}, int(p.Start), int(count), &at)
		if p.StartLine > 0 || p.EndLine > 0 {
			inner := lines
			lines = func(yield func([]byte, error) bool) {
				for line, err := range inner {
					if err == nil {
						if at.n == 0 && int64(at.line) <= p.StartLine {
							continue
						}
						if p.EndLine > 0 && int64(at.n) == count-1 && int64(at.line) > p.EndLine {
							return
						}
					}
					if !yield(line, err) {
						return
					}
				}
			}
		}
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

func (f *File) partRecords(p Part, blank *int64) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		legend := p.Legend
		if !p.HasLegend {
			var err error
			if legend, err = f.topLegend(); err != nil {
				yield(nil, fmt.Errorf("cdxj: %s: %w", f.path, err))
				return
			}
		}
		var hdr *Layout
		if p.Start > 0 && legend != "" {
			var err error
			if hdr, err = ParseLayout(legend); err != nil {
				if p.HasLegend {
					yield(nil, fmt.Errorf("%w: %s: its legend %q: %w", ErrPart, p, legend, err))
				} else {
					yield(nil, &ParseError{Source: f.path, Line: 1, Err: err})
				}
				return
			}
		}
		cr := &progressReader{r: io.NewSectionReader(f.f, p.Start, p.End-p.Start), opt: &f.opt}
		defer cr.flush()
		r := walkReader(cr, f.path, &f.opt)
		r.off, r.hdr = p.Start, hdr
		if blank != nil {
			defer func() { *blank += r.blank }()
		}
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
		if p.End < f.size && !p.HasLegend {
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

// SetLegends sets Legend and HasLegend of each PartBytes part among parts,
// which must be parts of f (as [Plan] made them): Legend becomes the last
// " CDX" legend line before the part's Start that parses as a layout
// ([ParseLayout]), "" when there is none, so that each part is read with
// the layout a walk of the whole file has where the part starts, whatever
// legend lines lie between the parts. It reads f from its start to the
// last part's Start (a search for "CDX" at line starts, at a few GB/s in
// memory); the legend lines found are checked as whole lines. Errors are
// f's read errors and ctx's.
func (f *File) SetLegends(ctx context.Context, parts []Part) error {
	var last int64
	for _, p := range parts {
		if p.Kind == PartBytes && p.Start > last {
			last = p.Start
		}
	}
	type found struct {
		off    int64
		legend string
	}
	var legends []found
	if last > 0 {
		if f.gz {
			return fmt.Errorf("%w: a gzip file has no bytes parts", ErrPart)
		}
		lf := newLineFile(f.f, f.size, f.opt.maxLine())
		const chunk = 1 << 20
		const overlap = 8 // "\n CDX" and a BOM reach back at most this far
		buf := make([]byte, chunk)
		seen := int64(-1) // the last line start examined
		for pos := int64(0); pos < last; pos += chunk - overlap {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := lf.readAt(buf[:min(chunk, last+overlap-pos)], pos)
			if err != nil {
				return err
			}
			b := buf[:n]
			for i := 0; ; {
				j := bytes.Index(b[i:], []byte("CDX"))
				if j < 0 {
					break
				}
				at := i + j
				i = at + 3
				s := int64(-1) // where the line holding "CDX" would start
				switch {
				case pos+int64(at) == 0 || (at > 0 && b[at-1] == '\n'):
					s = pos + int64(at)
				case at > 0 && b[at-1] == ' ' && (pos+int64(at) == 1 || (at > 1 && b[at-2] == '\n')):
					s = pos + int64(at) - 1
				case pos == 0 && (at == 3 || at == 4) && bytes.HasPrefix(b, queryBOM) && (at == 3 || b[3] == ' '):
					s = 0
				}
				if s < 0 || s <= seen || s >= last {
					continue
				}
				seen = s
				line, _, err := lf.lineAt(s)
				if err != nil {
					return err
				}
				if !isLegend(line) {
					continue
				}
				if _, err := ParseLayout(string(line)); err == nil {
					legends = append(legends, found{s, string(line)})
				}
			}
			if pos+int64(n) >= f.size {
				break
			}
		}
	}
	for i := range parts {
		p := &parts[i]
		if p.Kind != PartBytes {
			continue
		}
		k := sort.Search(len(legends), func(k int) bool { return legends[k].off >= p.Start })
		p.Legend, p.HasLegend = "", true
		if k > 0 {
			p.Legend = legends[k-1].legend
		}
	}
	return nil
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
