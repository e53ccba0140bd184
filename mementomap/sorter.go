package mementomap

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"

	"fmt"
	"io"
	"os"
	"slices"

	"github.com/mementokit/mementokit/internal/atomicfile"
)

// sorter is an external sort of (key, count) pairs with counts summed for
// equal keys: keys accumulate in an in-memory chunk (consecutive equal keys
// are merged at once, which makes sorted input cheap), and when the chunk
// passes its memory limit it is sorted and spilled to a run file in
// tempDir; the runs are then k-way merged. Memory: the chunk limit plus one
// read buffer per run.
type sorter struct {
	limit   int
	tempDir string
	arena   []byte
	ents    []sortEntry
	runs    []*os.File
	sorted  bool // the chunk is in order so far
	spilled int64
	// lo and hi are the least and the greatest key spilled so far (have
	// says whether there is one), for bounds.
	lo, hi []byte
	have   bool
}

type sortEntry struct {
	off, n uint32
	count  uint64
}

const sortEntrySize = 16

func newSorter(limit int, tempDir string) *sorter {
	return &sorter{limit: limit, tempDir: tempDir, sorted: true}
}

func (s *sorter) key(e sortEntry) []byte { return s.arena[e.off : e.off+e.n] }

// add counts one more occurrence (count n) of key.
func (s *sorter) add(key []byte, n uint64) error {
	if l := len(s.ents); l > 0 {
		last := &s.ents[l-1]
		switch c := bytes.Compare(key, s.key(*last)); {
		case c == 0:
			last.count += n
			return nil
		case c < 0:
			s.sorted = false
		}
	}
	if len(s.arena)+len(key) > 1<<32-1 || len(s.arena)+len(key)+sortEntrySize*(len(s.ents)+1) > s.limit {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if len(s.ents) == cap(s.ents) {
		s.ents = slices.Grow(s.ents, grown(cap(s.ents), sortEntrySize, s.limit))
	}
	if len(s.arena)+len(key) > cap(s.arena) {
		s.arena = slices.Grow(s.arena, max(len(key), grown(cap(s.arena), 1, s.limit)))
	}
	s.ents = append(s.ents, sortEntry{off: uint32(len(s.arena)), n: uint32(len(key)), count: n})
	s.arena = append(s.arena, key...)
	return nil
}

// grown returns how many more elements of size bytes a chunk slice of
// capacity c grows by: doubling (at least 4 KiB of elements), within the
// memory limit. The runtime's own growth for large slices, a quarter at a
// time, copied a chunk about five times over as it grew, half of a build's
// CPU time on a sorted input.
func grown(c, size, limit int) int {
	add := max(c, 4096/size)
	if c > 0 && (c+add)*size > limit {
		add = max(limit/size-c, 1)
	}
	return add
}

func (s *sorter) sortChunk() {
	if !s.sorted {
		slices.SortFunc(s.ents, func(a, b sortEntry) int { return bytes.Compare(s.key(a), s.key(b)) })
	}
	// merge equal neighbours
	out := s.ents[:0]
	for _, e := range s.ents {
		if len(out) > 0 && bytes.Equal(s.key(out[len(out)-1]), s.key(e)) {
			out[len(out)-1].count += e.count
			continue
		}
		out = append(out, e)
	}
	s.ents = out
	s.sorted = true
}

// noteBounds widens lo and hi to the keys of the sorted chunk.
func (s *sorter) noteBounds() {
	if len(s.ents) == 0 {
		return
	}
	first, last := s.key(s.ents[0]), s.key(s.ents[len(s.ents)-1])
	if !s.have || bytes.Compare(first, s.lo) < 0 {
		s.lo = append(s.lo[:0], first...)
	}
	if !s.have || bytes.Compare(last, s.hi) > 0 {
		s.hi = append(s.hi[:0], last...)
	}
	s.have = true
}

// bounds sorts the chunk and returns the least and the greatest key added,
// ok false when none was.
func (s *sorter) bounds() (lo, hi []byte, ok bool) {
	s.sortChunk()
	s.noteBounds()
	return s.lo, s.hi, s.have
}

func (s *sorter) spill() error {
	if len(s.ents) == 0 {
		return nil
	}
	s.sortChunk()
	s.noteBounds()
	f, err := atomicfile.Scratch(s.tempDir, "mementomap-build-*.run") // no name: gone with the process
	if err != nil {
		return fmt.Errorf("mementomap: sort run: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var hdr [2 * binary.MaxVarintLen64]byte
	for _, e := range s.ents {
		n := binary.PutUvarint(hdr[:], uint64(e.n))
		n += binary.PutUvarint(hdr[n:], e.count)
		bw.Write(hdr[:n])
		bw.Write(s.key(e))
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("mementomap: sort run: %w", err)
	}
	s.spilled += int64(len(s.ents))
	s.runs = append(s.runs, f)
	s.arena = s.arena[:0]
	s.ents = s.ents[:0]
	return nil
}

// runReader reads one spilled run.
type runReader struct {
	br    *bufio.Reader
	mem   *sorter // when not nil, the run is mem's sorted chunk, from ents[i]
	i     int
	key   []byte
	count uint64
}

func (r *runReader) next() (bool, error) {
	if r.mem != nil {
		if r.i >= len(r.mem.ents) {
			return false, nil
		}
		e := r.mem.ents[r.i]
		r.i++
		r.key, r.count = r.mem.key(e), e.count
		return true, nil
	}
	n, err := binary.ReadUvarint(r.br)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c, err := binary.ReadUvarint(r.br)
	if err != nil {
		return false, err
	}
	if cap(r.key) < int(n) {
		r.key = make([]byte, n)
	}
	r.key = r.key[:n]
	if _, err := io.ReadFull(r.br, r.key); err != nil {
		return false, err
	}
	r.count = c
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].key, h[j].key) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// each calls fn for every distinct key in order with its summed count. The
// key slice is valid only during the call.
func (s *sorter) each(fn func(key []byte, count uint64) error) error {
	defer s.close()
	if len(s.runs) == 0 {
		s.sortChunk()
		for _, e := range s.ents {
			if err := fn(s.key(e), e.count); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.spill(); err != nil {
		return err
	}
	s.arena, s.ents = nil, nil // the chunk memory is not needed while merging
	return mergeRuns([]*sorter{s}, fn)
}

// eachOf calls fn for every distinct key of the sorters ss together, in
// order, with its count summed over all of them: the sorters one after
// the other when each one's keys all sort before the next one's (the parts
// of a sorted input), else a k-way merge of all their runs and chunks.
func eachOf(ss []*sorter, fn func(key []byte, count uint64) error) error {
	defer func() {
		for _, s := range ss {
			s.close()
		}
	}()
	var live []*sorter
	for _, s := range ss {
		if _, _, ok := s.bounds(); ok {
			live = append(live, s)
		}
	}
	ordered := true
	for i := 1; i < len(live); i++ {
		if bytes.Compare(live[i-1].hi, live[i].lo) >= 0 {
			ordered = false
			break
		}
	}
	if ordered {
		for _, s := range live {
			if err := s.each(fn); err != nil {
				return err
			}
		}
		return nil
	}
	return mergeRuns(live, fn)
}

// mergeRuns merges the spilled runs and the sorted chunks of ss.
func mergeRuns(ss []*sorter, fn func(key []byte, count uint64) error) error {
	var h runHeap
	for _, s := range ss {
		s.sortChunk()
		if len(s.ents) > 0 {
			r := &runReader{mem: s}
			r.next()
			h = append(h, r)
		}
		for _, f := range s.runs {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			r := &runReader{br: bufio.NewReaderSize(f, 256<<10)}
			ok, err := r.next()
			if err != nil {
				return fmt.Errorf("mementomap: sort run: %w", err)
			}
			if ok {
				h = append(h, r)
			}
		}
	}
	heap.Init(&h)
	var cur []byte
	var curCount uint64
	have := false
	for h.Len() > 0 {
		r := h[0]
		if have && bytes.Equal(r.key, cur) {
			curCount += r.count
		} else {
			if have {
				if err := fn(cur, curCount); err != nil {
					return err
				}
			}
			cur = append(cur[:0], r.key...)
			curCount = r.count
			have = true
		}
		ok, err := r.next()
		if err != nil {
			return fmt.Errorf("mementomap: sort run: %w", err)
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	if have {
		return fn(cur, curCount)
	}
	return nil
}

func (s *sorter) close() {
	for _, f := range s.runs {
		f.Close()
	}
	s.runs = nil
}
