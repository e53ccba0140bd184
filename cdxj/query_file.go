package cdxj

import (
	"io"
	"iter"
	"sync"
)

// Sorted is a byte-wise sorted CDXJ or classic CDX file (LC_ALL=C sort
// order) answering key-range queries by binary search, without reading the
// whole file: a query reads O(log size) lines to find its first candidate,
// then reads on sequentially only while lines can still match.
//
// Header lines ("!..." and a " CDX ..." legend) and blank lines are passed
// over wherever they are (the blank lines a query reads counted in
// Query.Blank), the first and the last line are found like any
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
	name string  // for errors; "" when unknown
	def  *Layout // the layout of headerless classic CDX lines (OpenOptions.Layout)

	once   sync.Once
	layout *Layout
	lerr   error
}

// NewSorted returns a Sorted reading the size bytes of r.
func NewSorted(r io.ReaderAt, size int64) *Sorted {
	return &Sorted{r: r, size: size}
}

// Close does nothing: a Sorted does not own its io.ReaderAt. It lets a
// Sorted serve as an [Index].
func (s *Sorted) Close() error { return nil }

// Size returns the size of the file in bytes.
func (s *Sorted) Size() int64 { return s.size }

// Find returns the byte offset of the first data line that sorts at or
// after target (byte-wise, comparing whole lines), or Size when there is
// none. A line longer than MaxLineSize gives an error wrapping
// ErrLineTooLong, and a failed read one wrapping the ReaderAt's error;
// both name the byte offset.
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
			if isBlankLine(line) {
				q.countBlank()
				return true
			}
			if isHeaderLine(line) {
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
	return records(s.lines(q, &at), s.layout, s.def, func(pe *ParseError) {
		pe.Source, pe.Line, pe.Offset = s.name, 0, at
		if at == 0 {
			pe.Line = 1
		}
	})
}

var _ Searcher = (*Sorted)(nil)

// Index is an index source that holds files or connections open: what
// [Open] returns. Close it when done.
type Index interface {
	Searcher
	io.Closer
}
