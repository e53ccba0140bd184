package cdxj

import (
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Sorted is a byte-wise sorted CDXJ or classic CDX file (LC_ALL=C sort
// order) answering key-range queries by binary search, without reading the
// whole file: a query reads O(log size) lines to find its first candidate,
// then reads on sequentially only while lines can still match.
//
// Header lines ("!..." and a " CDX ..." legend) and blank lines are passed
// over wherever they are, the first and the last line are found like any
// other, and a last line without a trailing newline is read. A legend line
// at the top sets the layout Records uses for classic CDX lines.
//
// A Sorted is safe for concurrent use when its io.ReaderAt is (an *os.File
// is): each query has its own buffers. Memory per query: a 64 KiB buffer,
// grown for long lines up to MaxLineSize.
type Sorted struct {
	// MaxLineSize is the longest line accepted, as Reader.MaxLineSize; a
	// longer one ends a query with an error wrapping ErrLineTooLong. Set it
	// before the first query.
	MaxLineSize int

	r    io.ReaderAt
	size int64
	f    *os.File

	once   sync.Once
	layout *Layout
	lerr   error
}

// NewSorted returns a Sorted reading the size bytes of r.
func NewSorted(r io.ReaderAt, size int64) *Sorted {
	return &Sorted{r: r, size: size}
}

// OpenSorted opens the sorted index file at path for querying. A gzip
// file cannot be binary-searched and gives an error (build a ZipNum
// cluster from it instead, see ClusterWriter). Close releases the file;
// the file is never modified.
func OpenSorted(path string) (*Sorted, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		f.Close()
		return nil, fmt.Errorf("cdxj: %s is gzip-compressed and cannot be binary-searched; decompress it or build a ZipNum cluster", path)
	}
	s := NewSorted(f, st.Size())
	s.f = f
	return s, nil
}

// Close closes the file opened by OpenSorted; for a Sorted made by
// NewSorted it does nothing.
func (s *Sorted) Close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}

// Size returns the size of the file in bytes.
func (s *Sorted) Size() int64 { return s.size }

// Find returns the byte offset of the first data line that sorts at or
// after target (byte-wise, comparing whole lines), or Size when there is
// none.
func (s *Sorted) Find(target []byte) (int64, error) {
	return newLineFile(s.r, s.size, s.MaxLineSize).search(target, wholeLine)
}

func wholeLine(line []byte) []byte { return line }

// Lines returns the lines that match q, raw (without line terminator), in
// file order; see Searcher. An invalid q, a line longer than MaxLineSize or
// a read error is yielded as an error and ends the iteration.
func (s *Sorted) Lines(q Query) iter.Seq2[[]byte, error] {
	return s.lines(q, nil)
}

// lines is Lines; when at is not nil it holds the byte offset of each line
// while it is yielded.
func (s *Sorted) lines(q Query, at *int64) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		c, err := q.compile()
		if err != nil {
			yield(nil, err)
			return
		}
		lf := newLineFile(s.r, s.size, s.MaxLineSize)
		off, err := lf.search(c.start, wholeLine)
		if err != nil {
			yield(nil, err)
			return
		}
		n := 0
		stopped := false
		err = lf.scan(off, func(line []byte, lineAt int64) bool {
			if isBlankLine(line) || isHeaderLine(line) {
				return true
			}
			if at != nil {
				*at = lineAt
			}
			switch c.test(line) {
			case vStop:
				return false
			case vSkip:
				return true
			}
			if !yield(line, nil) {
				stopped = true
				return false
			}
			n++
			return q.Limit == 0 || n < q.Limit
		})
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}

// Records returns the lines that match q parsed as Records; see Searcher.
// A line that does not parse yields its *ParseError wrapped in an error
// naming the line's byte offset in the file.
// Classic CDX lines are read with the layout of the legend line at the top
// of the file, if any, else by their field count.
func (s *Sorted) Records(q Query) iter.Seq2[*Record, error] {
	s.once.Do(func() {
		lf := newLineFile(s.r, s.size, s.MaxLineSize)
		for off := int64(0); off < s.size; {
			line, next, err := lf.lineAt(off)
			if err != nil || !(isBlankLine(line) || isHeaderLine(line)) {
				return
			}
			if isHeaderLine(line) && line[0] != '!' {
				s.layout, s.lerr = ParseLayout(string(line))
				return
			}
			off = next
		}
	})
	if s.lerr != nil {
		return func(yield func(*Record, error) bool) { yield(nil, s.lerr) }
	}
	var at int64
	return records(s.lines(q, &at), s.layout, func() string { return fmt.Sprintf("cdxj: line at byte %d", at) })
}

var _ Searcher = (*Sorted)(nil)

// Index is a queryable index that holds files open: what OpenIndex returns.
type Index interface {
	Searcher
	io.Closer
}

// OpenIndex opens path for queries: a ZipNum cluster when path ends in
// ".idx" or ".summary" (its secondary index; see OpenCluster), else a
// sorted CDX or CDXJ file (see OpenSorted). Close the result when done.
func OpenIndex(path string) (Index, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".idx", ".summary":
		return OpenCluster(path)
	}
	return OpenSorted(path)
}
