package main

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/mementokit/mementokit/internal/atomicfile"
)

// maxFanIn is the most runs merged at once; more runs are merged in several
// passes, so the number of open files stays bounded.
var maxFanIn = 64

// externalSorter sorts lines byte-wise (as LC_ALL=C sort, comparing lines
// without their newline) in bounded memory: it keeps about mem bytes of
// lines, sorts them and spills them to a temporary run file, then merges
// the runs. The run files have no name (internal/atomicfile.Scratch), so
// they vanish with the process however it ends. Memory: mem bytes of lines (the buffer may hold up to twice
// that while it grows), 16 bytes per buffered line, and 64 KiB per run
// being merged (at most maxFanIn at a time).
type externalSorter struct {
	mem    int64
	tmpdir string
	buf    []byte
	lines  [][2]int   // start and end (newline excluded) in buf
	runs   []*os.File // sorted runs, files without a name (atomicfile.Scratch)
}

func newExternalSorter(mem int64, tmpdir string) *externalSorter {
	return &externalSorter{mem: mem, tmpdir: tmpdir}
}

func (s *externalSorter) add(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if int64(len(s.buf)+len(line)) > s.mem && len(s.lines) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	start := len(s.buf)
	s.buf = append(s.buf, line...)
	s.lines = append(s.lines, [2]int{start, len(s.buf)})
	return nil
}

func (s *externalSorter) sortBuffered() {
	slices.SortStableFunc(s.lines, func(a, b [2]int) int {
		return bytes.Compare(s.buf[a[0]:a[1]], s.buf[b[0]:b[1]])
	})
}

func (s *externalSorter) writeBuffered(w *bufio.Writer) error {
	for _, l := range s.lines {
		w.Write(s.buf[l[0]:l[1]])
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	return nil
}

// spill writes the buffered lines, sorted, to a new run file.
func (s *externalSorter) spill() error {
	s.sortBuffered()
	f, err := atomicfile.Scratch(s.tmpdir, "cdxj-sort-*.run")
	if err != nil {
		return fmt.Errorf("sort: %w", err)
	}
	s.runs = append(s.runs, f)
	w := bufio.NewWriterSize(f, 256<<10)
	err = s.writeBuffered(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("sort: writing a run in %s: %w", s.tmpdir, err)
	}
	s.buf, s.lines = s.buf[:0], s.lines[:0]
	return nil
}

// finish writes every line added, sorted, to out.
func (s *externalSorter) finish(ctx context.Context, out *bufio.Writer) error {
	if len(s.runs) == 0 {
		s.sortBuffered()
		return s.writeBuffered(out)
	}
	if len(s.lines) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.buf, s.lines = nil, nil
	for len(s.runs) > maxFanIn {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := atomicfile.Scratch(s.tmpdir, "cdxj-sort-*.run")
		if err != nil {
			return fmt.Errorf("sort: %w", err)
		}
		w := bufio.NewWriterSize(f, 256<<10)
		group := s.runs[:maxFanIn]
		err = mergeRuns(ctx, group, w)
		if err == nil {
			err = w.Flush()
		}
		s.runs = append(s.runs[maxFanIn:], f)
		// The merged runs are no longer in s.runs: close them now, even
		// when the merge failed, or cleanup would leave them open.
		for _, r := range group {
			r.Close()
		}
		if err != nil {
			return fmt.Errorf("sort: merging runs: %w", err)
		}
	}
	return mergeRuns(ctx, s.runs, out)
}

// cleanup closes the run files, which frees their space.
func (s *externalSorter) cleanup() {
	for _, f := range s.runs {
		f.Close()
	}
	s.runs = nil
}

// cursor is the current line of one run being merged.
type cursor struct {
	r    *bufio.Reader
	line []byte
	idx  int // the run's position, so that equal lines keep run order
}

// next reads the cursor's next line (without newline); false at the end.
func (c *cursor) next() (bool, error) {
	c.line = c.line[:0]
	for {
		part, err := c.r.ReadSlice('\n')
		c.line = append(c.line, part...)
		switch {
		case err == nil:
			c.line = c.line[:len(c.line)-1]
			return true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return len(c.line) > 0, nil
		default:
			return false, err
		}
	}
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].line, h[j].line); c != 0 {
		return c < 0
	}
	return h[i].idx < h[j].idx
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// mergeRuns k-way merges the sorted run files into w, reading each from
// its start.
func mergeRuns(ctx context.Context, runs []*os.File, w *bufio.Writer) (err error) {
	var h cursorHeap
	for i, f := range runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		c := &cursor{r: bufio.NewReaderSize(f, 64<<10), idx: i}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	for n := 0; len(h) > 0; n++ {
		if n%8192 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		c := h[0]
		w.Write(c.line)
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}
