// Package extsort is the module's external sort: byte strings (index lines,
// HxPx keys, URI-Rs) in byte-wise order, as LC_ALL=C sort orders lines, in
// bounded memory, each distinct string once with the sum of the counts added
// for it.
//
// Strings accumulate in an in-memory chunk (consecutive equal strings are
// summed at once, which makes a sorted input cheap); when the chunk passes
// its memory limit it is sorted and spilled to a run file in the temporary
// folder, and the runs are k-way merged at the end, at most [MaxFanIn] at a
// time (more runs take several passes, so that the open files and read
// buffers stay bounded). Run files have no name
// (internal/atomicfile.Scratch): they vanish with the process however it
// ends, and [Sorter.Close] frees their space.
//
// A caller that needs every string as often as it was added (a line sort)
// writes it count times: equal strings are equal bytes, so the output is
// byte-identical to LC_ALL=C sort's.
package extsort

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"

	"github.com/mementokit/mementokit/internal/atomicfile"
)

// MaxFanIn is the most runs one merge pass reads at once.
const MaxFanIn = 64

// runBuffer is the read buffer of one run being merged, in bytes.
const runBuffer = 256 << 10

// Sorter sorts the strings given to [Sorter.Add]. Memory: the chunk limit
// plus one read buffer of 256 KiB per run being merged (at most MaxFanIn
// per sorter). It is not safe for concurrent use; several sorters (one per
// goroutine) can be merged by [EachOf].
type Sorter struct {
	limit   int
	tempDir string
	fanIn   int
	// blocks hold the chunk's strings, blocks[cur] being filled; used is
	// the bytes of strings they hold. A block is never grown or copied:
	// a string that does not fit in the rest of the current one goes to
	// the next, so that filling the chunk writes each byte once and
	// touches no more memory than the strings take (a doubling slice
	// would copy and fault in about twice that).
	blocks [][]byte
	cur    int
	used   int
	ents   []entry
	runs   []*os.File
	spills int
	sorted bool // the chunk is in order so far
	// lo and hi are the least and the greatest string spilled so far
	// (have says whether there is one), for bounds.
	lo, hi []byte
	have   bool
	// app writes the run of the strings given to Append (appF, not yet in
	// runs); appLast is the last of them, with its count appN, not yet
	// written.
	app     *runWriter
	appF    *os.File
	appLast []byte
	appN    uint64
}

// entry is one distinct string of the chunk: off is its block's index
// times 2^blockBits plus its offset in the block, n its length.
type entry struct {
	off, n uint32
	count  uint64
}

const entrySize = 16

// Blocks of the chunk: the first is 4 KiB, each next one twice the size of
// the one before up to 2^blockBits bytes (a string longer than that has a
// block of its own), at most maxBlocks of them (4 GiB).
const (
	blockBits  = 20
	firstBlock = 4 << 10
	maxBlocks  = 1 << (32 - blockBits)
)

// New returns a sorter that keeps about limit bytes of strings (and 16 bytes
// per distinct buffered string) in memory and spills runs to tempDir ("" is
// the system's temporary folder).
func New(limit int64, tempDir string) *Sorter {
	return &Sorter{limit: int(min(limit, math.MaxInt)), tempDir: tempDir, fanIn: MaxFanIn, sorted: true}
}

func (s *Sorter) key(e entry) []byte {
	o := e.off & (1<<blockBits - 1)
	return s.blocks[e.off>>blockBits][o : o+e.n]
}

// Add adds key with count n (0 records the key without counting it). The
// key is copied. Its only error is a spill's, when the chunk is full:
// "sort run: ..." when the run file cannot be made, "sort run in DIR: ..."
// when it cannot be written.
func (s *Sorter) Add(key []byte, n uint64) error {
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
	if s.used+len(key)+entrySize*(len(s.ents)+1) > s.limit || !s.fits(len(key)) && s.cur+1 == maxBlocks {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if len(s.ents) == cap(s.ents) {
		s.ents = slices.Grow(s.ents, grown(cap(s.ents), entrySize, s.limit))
	}
	if !s.fits(len(key)) {
		s.nextBlock(len(key))
	}
	b := s.blocks[s.cur]
	s.ents = append(s.ents, entry{off: uint32(s.cur<<blockBits | len(b)), n: uint32(len(key)), count: n})
	s.blocks[s.cur] = append(b, key...)
	s.used += len(key)
	return nil
}

// Append adds key with count n, as Add does, for a caller whose strings
// come mostly in increasing byte-wise order: a key that sorts at or after
// the last one appended goes straight to a run of its own, written
// through a buffer of 1 MiB, instead of into the chunk, so that a sorted
// input costs no memory but that buffer; any other key goes to the chunk
// (Add). Add and Append may be mixed: the appended run is merged with the
// chunk and the spilled runs, equal strings summed as ever. The appended
// run is not counted in Runs, which counts the chunk's spills. Its errors
// are "sort run: ..." when the run file cannot be made, the run file's
// write error, or Add's for a key out of order.
func (s *Sorter) Append(key []byte, n uint64) error {
	if s.app == nil {
		f, w, err := s.newRun()
		if err != nil {
			return err
		}
		s.appF, s.app = f, w
		s.widen(key)
	} else {
		switch c := bytes.Compare(key, s.appLast); {
		case c == 0:
			s.appN += n
			return nil
		case c < 0:
			return s.Add(key, n)
		}
		if err := s.app.writeTake(&s.appLast, s.appN); err != nil {
			return err
		}
	}
	s.appLast, s.appN = append(s.appLast[:0], key...), n
	return nil
}

// endAppend writes out the run of Append, if any, and adds it to runs.
func (s *Sorter) endAppend() error {
	if s.app == nil {
		return nil
	}
	f := s.appF
	s.widen(s.appLast)
	s.app.write(s.appLast, s.appN)
	err := s.app.bw.Flush()
	s.app, s.appF = nil, nil
	if err != nil {
		f.Close()
		return fmt.Errorf("sort run in %s: %w", s.tempDir, err)
	}
	s.runs = append(s.runs, f)
	return nil
}

// widen widens lo and hi to k.
func (s *Sorter) widen(k []byte) {
	if !s.have || bytes.Compare(k, s.lo) < 0 {
		s.lo = append(s.lo[:0], k...)
	}
	if !s.have || bytes.Compare(k, s.hi) > 0 {
		s.hi = append(s.hi[:0], k...)
	}
	s.have = true
}

// fits reports whether a string of n bytes fits in the rest of the
// current block, at an offset that entry.off can hold.
func (s *Sorter) fits(n int) bool {
	if len(s.blocks) == 0 {
		return false
	}
	b := s.blocks[s.cur]
	return len(b)+n <= cap(b) && len(b) < 1<<blockBits
}

// nextBlock makes the next block, one that holds at least n bytes, the
// current one: a block kept from before the last spill when it is large
// enough, else a new one.
func (s *Sorter) nextBlock(n int) {
	if len(s.blocks) > 0 {
		s.cur++
	}
	size := firstBlock
	if s.cur > 0 {
		size = min(2*cap(s.blocks[s.cur-1]), 1<<blockBits)
	}
	size = max(size, n)
	if s.cur < len(s.blocks) && cap(s.blocks[s.cur]) >= size {
		return // reused, emptied by spill
	}
	b := make([]byte, 0, size)
	if s.cur < len(s.blocks) {
		s.blocks[s.cur] = b
	} else {
		s.blocks = append(s.blocks, b)
	}
}

// Buffered returns the number of distinct strings held in memory.
func (s *Sorter) Buffered() int { return len(s.ents) }

// Spill writes the strings held in memory to a sorted run and frees the
// chunk for reuse: for a sorter that is done adding while others still
// are. It does nothing when none is held. Its errors are Add's: "sort
// run: ..." when the run file cannot be made, "sort run in DIR: ..." when
// it cannot be written.
func (s *Sorter) Spill() error { return s.spill() }

// Runs returns the number of sorted runs spilled to disk so far.
func (s *Sorter) Runs() int { return s.spills }

// grown returns how many more elements of size bytes a chunk slice of
// capacity c grows by: doubling (at least 4 KiB of elements), within the
// memory limit. The runtime's own growth for large slices, a quarter at a
// time, would copy a chunk about five times over as it grew, half of a
// MementoMap build's CPU time on a sorted input.
func grown(c, size, limit int) int {
	add := max(c, 4096/size)
	if c > 0 && (c+add)*size > limit {
		add = max(limit/size-c, 1)
	}
	return add
}

func (s *Sorter) sortChunk() {
	if !s.sorted {
		slices.SortFunc(s.ents, func(a, b entry) int { return bytes.Compare(s.key(a), s.key(b)) })
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

// noteBounds widens lo and hi to the strings of the sorted chunk.
func (s *Sorter) noteBounds() {
	if len(s.ents) == 0 {
		return
	}
	s.widen(s.key(s.ents[0]))
	s.widen(s.key(s.ents[len(s.ents)-1]))
}

// bounds sorts the chunk, ends the run of Append and returns the least
// and the greatest string added, ok false when none was (or ending the
// run failed: err).
func (s *Sorter) bounds() (lo, hi []byte, ok bool, err error) {
	if err := s.endAppend(); err != nil {
		return nil, nil, false, err
	}
	s.sortChunk()
	s.noteBounds()
	return s.lo, s.hi, s.have, nil
}

// newRun creates an empty run file.
func (s *Sorter) newRun() (*os.File, *runWriter, error) {
	f, err := atomicfile.Scratch(s.tempDir, "extsort-*.run") // no name: gone with the process
	if err != nil {
		return nil, nil, fmt.Errorf("sort run: %w", err)
	}
	return f, &runWriter{bw: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (s *Sorter) spill() error {
	if len(s.ents) == 0 {
		return nil
	}
	s.sortChunk()
	s.noteBounds()
	f, w, err := s.newRun()
	if err != nil {
		return err
	}
	for _, e := range s.ents {
		w.write(s.key(e), e.count)
	}
	if err := w.bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("sort run in %s: %w", s.tempDir, err)
	}
	s.spills++
	s.runs = append(s.runs, f)
	for i := range s.blocks {
		s.blocks[i] = s.blocks[i][:0]
	}
	s.cur, s.used = 0, 0
	s.ents = s.ents[:0]
	return nil
}

// runWriter writes a run, front-coded: per string the length of the
// prefix it shares with the string before it in the run, the length of the
// rest and its count, as uvarints, then the rest's bytes. The strings of a
// run are in order, so neighbours share most of their bytes (the host and
// path of SURT keys): a run of MementoMap sort keys takes about a third of
// the bytes written whole, and so of the writing and the reading back.
type runWriter struct {
	bw   *bufio.Writer
	prev []byte
	hdr  [3 * binary.MaxVarintLen64]byte
}

func (w *runWriter) write(key []byte, count uint64) error {
	p := sharedPrefix(w.prev, key)
	n := binary.PutUvarint(w.hdr[:], uint64(p))
	n += binary.PutUvarint(w.hdr[n:], uint64(len(key)-p))
	n += binary.PutUvarint(w.hdr[n:], count)
	w.bw.Write(w.hdr[:n])
	_, err := w.bw.Write(key[p:])
	w.prev = append(w.prev[:0], key...)
	return err
}

// writeTake is write for a key whose buffer the caller gives up: it
// becomes the writer's last key, and *key the buffer that held the one
// before (to be overwritten), which saves copying the key.
func (w *runWriter) writeTake(key *[]byte, count uint64) error {
	k := *key
	p := sharedPrefix(w.prev, k)
	n := binary.PutUvarint(w.hdr[:], uint64(p))
	n += binary.PutUvarint(w.hdr[n:], uint64(len(k)-p))
	n += binary.PutUvarint(w.hdr[n:], count)
	w.bw.Write(w.hdr[:n])
	_, err := w.bw.Write(k[p:])
	w.prev, *key = k, w.prev[:0]
	return err
}

// sharedPrefix returns the length of the longest common prefix of a and b.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// reduce merges runs fanIn at a time into new runs until at most fanIn are
// left. The merged runs are closed even when a pass fails.
func (s *Sorter) reduce() error {
	for len(s.runs) > s.fanIn {
		f, w, err := s.newRun()
		if err != nil {
			return err
		}
		group := s.runs[:s.fanIn]
		s.runs = append(s.runs[s.fanIn:], f)
		err = merge(nil, group, w.write)
		if err == nil {
			err = w.bw.Flush()
		}
		for _, r := range group {
			r.Close()
		}
		if err != nil {
			return fmt.Errorf("sort: merging runs in %s: %w", s.tempDir, err)
		}
	}
	return nil
}

// runReader reads one run, or a sorter's sorted chunk.
type runReader struct {
	br    *bufio.Reader
	mem   *Sorter // when not nil, the run is mem's sorted chunk, from ents[i]
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
	p, err := binary.ReadUvarint(r.br)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return false, err
	}
	c, err := binary.ReadUvarint(r.br)
	if err != nil {
		return false, err
	}
	if p > uint64(len(r.key)) || n > math.MaxInt32 {
		return false, fmt.Errorf("corrupt run: a string sharing %d bytes with one of %d, %d more", p, len(r.key), n)
	}
	k := int(p) + int(n)
	if cap(r.key) < k {
		r.key = append(make([]byte, 0, max(k, 2*cap(r.key))), r.key[:p]...)
	}
	r.key = r.key[:k]
	if _, err := io.ReadFull(r.br, r.key[p:]); err != nil {
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

// Each calls fn for every distinct string in order with its summed count,
// then closes s. The key slice is valid only during the call; an error of
// fn ends the sort and is returned.
func (s *Sorter) Each(fn func(key []byte, count uint64) error) error {
	defer s.Close()
	return s.Scan(fn)
}

// Scan calls fn for every distinct string in order with its summed count,
// as Each does, but leaves s open: a later Scan, Each or EachOf reads the
// same strings again (a chunk that spilled runs is written to a run of its
// own first, and its memory freed). Adding after Scan is not supported.
// The key slice is valid only during the call; an error of fn ends the
// scan and is returned, as are the errors of spilling, merging and reading
// the run files ("sort run: ...").
func (s *Sorter) Scan(fn func(key []byte, count uint64) error) error {
	if err := s.endAppend(); err != nil {
		return err
	}
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
	s.blocks, s.cur, s.used, s.ents = nil, 0, 0, nil // the chunk memory is not needed while merging
	if err := s.reduce(); err != nil {
		return err
	}
	return merge(nil, s.runs, fn)
}

// EachOf calls fn for every distinct string of the sorters ss together, in
// order, with its count summed over all of them, then closes them: the
// sorters one after the other when each one's strings all sort before the
// next one's (the parts of a sorted input), else a k-way merge of all their
// runs and chunks. It returns fn's first error, which ends the sort, or the
// first error of spilling, reading or merging the sorters' run files; the
// sorters are closed either way.
func EachOf(ss []*Sorter, fn func(key []byte, count uint64) error) error {
	defer func() {
		for _, s := range ss {
			s.Close()
		}
	}()
	live, ordered, err := Ordered(ss)
	if err != nil {
		return err
	}
	if ordered {
		for _, s := range live {
			if err := s.Each(fn); err != nil {
				return err
			}
		}
		return nil
	}
	var runs []*os.File
	for _, s := range live {
		if err := s.reduce(); err != nil {
			return err
		}
		runs = append(runs, s.runs...)
	}
	return merge(live, runs, fn)
}

// Bounds ends the run of Append, sorts the chunk and returns copies of the
// least and the greatest string added, ok false when none was; its error
// is ending the run's ("sort run in DIR: ..."). Like every method of a
// Sorter it must not run while another does.
func (s *Sorter) Bounds() (lo, hi []byte, ok bool, err error) {
	lo, hi, ok, err = s.bounds()
	return bytes.Clone(lo), bytes.Clone(hi), ok, err
}

// Ordered returns the sorters of ss that hold strings, in the order of ss,
// and whether each one's strings all sort before the next one's (then
// reading them one after the other gives every string once, in order, as
// EachOf does). It ends the runs of Append, sorts the chunks and leaves the
// sorters open; its error is ending a run's ("sort run in DIR: ...").
func Ordered(ss []*Sorter) (live []*Sorter, ordered bool, err error) {
	for _, s := range ss {
		_, _, ok, err := s.bounds()
		if err != nil {
			return nil, false, err
		}
		if ok {
			live = append(live, s)
		}
	}
	for i := 1; i < len(live); i++ {
		if bytes.Compare(live[i-1].hi, live[i].lo) >= 0 {
			return live, false, nil
		}
	}
	return live, true, nil
}

// merge k-way merges the sorted chunks of chunks and the run files runs
// (each read from its start), summing the counts of equal strings.
func merge(chunks []*Sorter, runs []*os.File, fn func(key []byte, count uint64) error) error {
	var h runHeap
	for _, s := range chunks {
		s.sortChunk()
		if len(s.ents) > 0 {
			r := &runReader{mem: s}
			r.next()
			h = append(h, r)
		}
	}
	for _, f := range runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("sort run: %w", err)
		}
		r := &runReader{br: bufio.NewReaderSize(f, runBuffer)}
		ok, err := r.next()
		if err != nil {
			return fmt.Errorf("sort run: %w", err)
		}
		if ok {
			h = append(h, r)
		}
	}
	if len(h) == 1 {
		// One run alone: its strings are distinct already (a run holds
		// each string once), so they go to fn as they are read.
		r := h[0]
		for {
			if err := fn(r.key, r.count); err != nil {
				return err
			}
			ok, err := r.next()
			if err != nil {
				return fmt.Errorf("sort run: %w", err)
			}
			if !ok {
				return nil
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
			return fmt.Errorf("sort run: %w", err)
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

// Close closes the run files, which frees their space. Each and EachOf
// close their sorters; Close after them, or twice, does nothing.
func (s *Sorter) Close() {
	if s.appF != nil {
		s.appF.Close()
		s.app, s.appF = nil, nil
	}
	for _, f := range s.runs {
		f.Close()
	}
	s.runs = nil
}
