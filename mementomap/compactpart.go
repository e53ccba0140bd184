package mementomap

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"

	"github.com/mementokit/mementokit/surt"
)

// CompactCut reports whether a sorted map may be cut between two
// consecutive data lines whose keys are a and b (a before b) so that
// [Compact] of the lines before the cut (headers included) followed by
// Compact of the lines after it (data lines only) is byte-identical to
// Compact of the whole map under the same o.
//
// It holds when the hosts of a and b part at a host level below which
// nothing is shared that Compact could roll up: the host-layer nodes that
// a and b have in common (internal/spec/MEMENTOMAP.md, "Compaction") are
// all never rolled up — host level 0 (the TLD, "com") always, a public
// suffix ("uk,co") or a node above a wildcard rule of the list
// ("jp,kawasaki") under the guard Compact applies — and neither host is
// the other's ancestor. Every node open at a then closes before b, so the
// roll-ups written for the lines before the cut are those of a pass that
// ends at a, and b opens its nodes as in a fresh pass: a node in common
// counts children only toward a roll-up it never makes. Roll-up sums are
// differences of a running sum, so they do not depend on what came before.
// In practice the cuts are between TLDs and between registrable domains.
//
// Under o.Reference (public suffixes may be rolled up, keys normalized)
// it returns false: such a map is compacted in one piece. Keys without a host ("" or one
// starting with ')') are never cut around.
func CompactCut(a, b []byte, opts *CompactOptions) bool {
	o := compactOptions(opts)
	if o.Reference {
		return false
	}
	o = o.withDefaults()
	if o.HostDepth < 1 || o.HostDepth > MaxDepth {
		return false
	}
	var ea, eb [MaxDepth]int
	na := hostEnds(a, ea[:], o.HostDepth)
	nb := hostEnds(b, eb[:], o.HostDepth)
	if na == 0 || nb == 0 {
		return false
	}
	cp := commonPrefix(a, b)
	d := 0 // host levels in common, as firstDiff counts them
	for d < na && d < nb && ea[d] == eb[d] && ea[d] <= cp {
		d++
	}
	if d == na || d == nb {
		return false // one host is the other or sits below it: its nodes stay open
	}
	hcut, _ := o.Cutoffs()
	c := compactor{isPS: o.IsPublicSuffix}
	if c.isPS == nil {
		c.isPS = surt.IsPublicSuffix
	}
	for j := 1; j < d; j++ {
		rollable := j < o.HostDepth-1 && !math.IsInf(hcut[j], 1)
		if rollable && !c.guarded(a[:ea[j]]) {
			return false
		}
	}
	return true
}

// CompactCuts returns byte offsets at which the sorted map r (size bytes)
// may be cut into at most n pieces that [Compact] can process one by one,
// each on its own, with the outputs concatenated in order byte-identical
// to Compact of the whole map ([CompactCut] says why). The offsets are
// ascending line starts, none 0 or size; the first piece, [0, cuts[0]),
// holds the header lines, the others data lines only. Cut i is the first
// place at or after size·i/n (and before size·(i+1)/n) where CompactCut
// holds between the data lines on either side; where there is none the
// map has fewer pieces. It reads the lines it passes over from each
// target, never the whole map in one go (a registrable domain larger than
// size/n is passed over whole). Under o.Reference it returns no cuts.
// Errors are those of reading r, or a line longer than [MaxLineLength].
func CompactCuts(ctx context.Context, r io.ReaderAt, size int64, n int, opts *CompactOptions) ([]int64, error) {
	o := compactOptions(opts)
	if n <= 1 || o.Reference || size <= 0 {
		return nil, nil
	}
	var cuts []int64
	last := int64(0)
	var long []byte
	for i := 1; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		target := size * int64(i) / int64(n)
		limit := size * int64(i+1) / int64(n)
		if target <= last {
			continue
		}
		// Start at the line that holds the byte before target, so that the
		// first line read is whole.
		at := target - 1
		br := bufio.NewReaderSize(io.NewSectionReader(r, at, size-at), 1<<16)
		if at > 0 {
			var prevByte [1]byte
			if _, err := r.ReadAt(prevByte[:], at-1); err != nil {
				return nil, fmt.Errorf("mementomap: reading the map at byte %d: %w", at-1, err)
			}
			if prevByte[0] != '\n' {
				skipped, err := br.ReadSlice('\n')
				for err == bufio.ErrBufferFull {
					at += int64(len(skipped))
					skipped, err = br.ReadSlice('\n')
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, fmt.Errorf("mementomap: reading the map at byte %d: %w", at, err)
				}
				at += int64(len(skipped))
			}
		}
		var prev []byte
		havePrev := false
		cut := int64(-1)
		for at < limit {
			line, err := readLine(br, &long, MaxLineLength)
			if _, ok := err.(errLongLine); ok {
				return nil, fmt.Errorf("mementomap: the map line at byte %d: %w", at, ErrLineTooLong)
			}
			if len(line) == 0 && err == io.EOF {
				break
			}
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("mementomap: reading the map at byte %d: %w", at, err)
			}
			body := line[:bodyLen(line)]
			if isBlank(body) || body[0] == '!' {
				havePrev = false // never cut next to a header or a blank line
			} else {
				key, _, _ := splitLine(body)
				if havePrev && at > last && CompactCut(prev, key, opts) {
					cut = at
					break
				}
				prev = append(prev[:0], key...)
				havePrev = true
			}
			at += int64(len(line))
			if err == io.EOF {
				break
			}
		}
		if cut > last && cut < size {
			cuts = append(cuts, cut)
			last = cut
		}
	}
	return cuts, nil
}

// CompactPieces is [Compact] of the sorted map r (size bytes) cut at cuts
// (as [CompactCuts] returns them), each piece compacted on its own and
// the outputs written to dst one after the other: the output Compact of
// the whole map writes. It is the sequential form of what an engine runs
// on many machines, one piece each; stats are summed over the pieces
// (MaxPending is the largest). Errors are Compact's, a *LineError whose
// line number counts from the piece's start.
func CompactPieces(dst io.Writer, r io.ReaderAt, size int64, cuts []int64, opts *CompactOptions) (CompactStats, error) {
	var st CompactStats
	start := int64(0)
	for i := 0; i <= len(cuts); i++ {
		end := size
		if i < len(cuts) {
			end = cuts[i]
		}
		if end < start || end > size {
			return st, fmt.Errorf("mementomap: cut %d at byte %d is out of order or past the map's %d bytes", i, end, size)
		}
		ps, err := Compact(dst, io.NewSectionReader(r, start, end-start), opts)
		st.Add(ps)
		if err != nil {
			return st, fmt.Errorf("mementomap: the piece at bytes %d-%d: %w", start, end, err)
		}
		start = end
	}
	return st, nil
}

// Add adds the counts of p (a piece of the same map) to s; MaxPending
// becomes the larger of the two.
func (s *CompactStats) Add(p CompactStats) {
	s.InLines += p.InLines
	s.OutLines += p.OutLines
	s.InBytes += p.InBytes
	s.OutBytes += p.OutBytes
	s.Headers += p.Headers
	s.Blank += p.Blank
	s.Rollups += p.Rollups
	s.Dropped += p.Dropped
	s.MaxPending = max(s.MaxPending, p.MaxPending)
}
