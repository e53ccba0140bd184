package cdxj

import (
	"bytes"
	"fmt"
	"io"
)

// lineFile reads lines at arbitrary offsets of a sorted text file through
// an io.ReaderAt, for binary search. It holds one buffer, grown up to the
// longest line read (at most max bytes); it is not safe for concurrent use
// (each query makes its own).
type lineFile struct {
	r    io.ReaderAt
	size int64
	max  int
	buf  []byte
	scr  []byte // probeChunk bytes for lineStartAfter and prevDataLine
}

// chunk returns the scratch buffer (allocated once: a stack array passed
// to ReadAt would escape at every call).
func (f *lineFile) chunk() []byte {
	if f.scr == nil {
		f.scr = make([]byte, probeChunk)
	}
	return f.scr
}

const probeChunk = 1 << 10

func newLineFile(r io.ReaderAt, size int64, max int) *lineFile {
	if max <= 0 {
		max = DefaultMaxLineSize
	}
	return &lineFile{r: r, size: size, max: max}
}

// readAt fills p from off, returning how many bytes were read; reading
// past the end is not an error.
func (f *lineFile) readAt(p []byte, off int64) (int, error) {
	if off >= f.size {
		return 0, nil
	}
	if rem := f.size - off; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := f.r.ReadAt(p, off)
	if err == io.EOF && n == len(p) {
		err = nil
	}
	if err != nil {
		return n, fmt.Errorf("cdxj: read at byte %d: %w", off, err)
	}
	return n, nil
}

// lineAt returns the line starting at off without its terminator ("\n" or
// "\r\n") and the offset of the next line. The slice is valid until the
// next call.
func (f *lineFile) lineAt(off int64) ([]byte, int64, error) {
	line, next, err := f.lineAtRaw(off)
	if off == 0 {
		line = trimBOM(line)
	}
	return line, next, err
}

// queryBOM is the UTF-8 byte order mark.
var queryBOM = []byte("\xef\xbb\xbf")

// trimBOM removes a UTF-8 byte order mark from the first line of a file
// (an index saved by a Windows editor): left in, it would make the first
// key sort after every other and a search for it miss.
func trimBOM(line []byte) []byte {
	return bytes.TrimPrefix(line, queryBOM)
}

func (f *lineFile) lineAtRaw(off int64) ([]byte, int64, error) {
	f.buf = f.buf[:0]
	pos := off
	for {
		if pos >= f.size {
			return trimCR(f.buf), f.size, nil
		}
		chunk := probeChunk
		if len(f.buf) > 0 {
			chunk = len(f.buf) // double what we have
		}
		if len(f.buf)+chunk > f.max+2 {
			chunk = f.max + 2 - len(f.buf)
		}
		if chunk <= 0 {
			return nil, 0, fmt.Errorf("cdxj: line at byte %d: %w: more than %d bytes", off, ErrLineTooLong, f.max)
		}
		start := len(f.buf)
		if need := start + chunk; cap(f.buf) < need {
			nb := make([]byte, start, need)
			copy(nb, f.buf)
			f.buf = nb
		}
		f.buf = f.buf[:start+chunk]
		n, err := f.readAt(f.buf[start:], pos)
		f.buf = f.buf[:start+n]
		if err != nil {
			return nil, 0, err
		}
		if i := bytes.IndexByte(f.buf[start:], '\n'); i >= 0 {
			line := f.buf[:start+i]
			if len(line) > f.max+1 || (len(line) > f.max && line[len(line)-1] != '\r') {
				return nil, 0, fmt.Errorf("cdxj: line at byte %d: %w: more than %d bytes", off, ErrLineTooLong, f.max)
			}
			return trimCR(line), off + int64(start+i) + 1, nil
		}
		pos += int64(n)
		if n == 0 {
			return trimCR(f.buf), f.size, nil
		}
	}
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// lineStartAfter returns the offset of the first line that starts at or
// after p: p itself when p is 0 or follows a '\n', else the byte after the
// next '\n' (or size).
func (f *lineFile) lineStartAfter(p int64) (int64, error) {
	if p <= 0 {
		return 0, nil
	}
	chunk := f.chunk()
	pos := p - 1
	for pos < f.size {
		n, err := f.readAt(chunk, pos)
		if err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(n)
		if n == 0 {
			break
		}
	}
	return f.size, nil
}

// dataLineFrom returns the first data line (not blank, not a header) that
// starts at or after the line start off, with its offset; ok is false when
// there is none.
func (f *lineFile) dataLineFrom(off int64) (start int64, line []byte, ok bool, err error) {
	for off < f.size {
		line, next, err := f.lineAt(off)
		if err != nil {
			return 0, nil, false, err
		}
		if !isBlankLine(line) && !isHeaderLine(line) {
			return off, line, true, nil
		}
		off = next
	}
	return f.size, nil, false, nil
}

// search returns the offset of the first data line whose key (keyOf of the
// line) is >= target, or size when there is none, by binary search over
// byte offsets: O(log size) line reads. Blank and header lines anywhere
// are passed over; the first and the last line are found like any other.
func (f *lineFile) search(target []byte, keyOf func([]byte) []byte) (int64, error) {
	lo, hi := int64(0), f.size
	for lo < hi {
		mid := lo + (hi-lo)/2
		start, line, ok, err := f.probe(mid)
		if err != nil {
			return 0, err
		}
		if !ok || bytes.Compare(keyOf(line), target) >= 0 {
			hi = mid
		} else {
			lo = start + 1
		}
	}
	ls, err := f.lineStartAfter(lo)
	if err != nil {
		return 0, err
	}
	start, _, _, err := f.dataLineFrom(ls)
	return start, err
}

// probe returns the first data line that starts at or after p, as
// dataLineFrom(lineStartAfter(p)) does, in one read when the line is short
// enough to come with the line end before it (the common case).
func (f *lineFile) probe(p int64) (start int64, line []byte, ok bool, err error) {
	if p > 0 && p < f.size {
		chunk := f.chunk()
		n, err := f.readAt(chunk, p-1)
		if err != nil {
			return 0, nil, false, err
		}
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			if j := bytes.IndexByte(chunk[i+1:n], '\n'); j >= 0 {
				l := trimCR(chunk[i+1 : i+1+j])
				if len(l) <= f.max && !isBlankLine(l) && !isHeaderLine(l) {
					return p + int64(i), l, true, nil
				}
			}
		}
	}
	ls, err := f.lineStartAfter(p)
	if err != nil {
		return 0, nil, false, err
	}
	return f.dataLineFrom(ls)
}

// prevDataLine returns the start of the last data line that starts before
// off, or -1 when there is none.
func (f *lineFile) prevDataLine(off int64) (int64, error) {
	end := off // the line we look for ends before end
	for end > 0 {
		// Find the start of the line that ends at end-1 (its '\n').
		chunk := f.chunk()
		pos := end - 1 // the '\n' ending that line (or the last byte)
		start := int64(0)
		for scan := pos; scan > 0; {
			from := max(0, scan-int64(len(chunk)))
			n, err := f.readAt(chunk[:scan-from], from)
			if err != nil {
				return 0, err
			}
			if i := bytes.LastIndexByte(chunk[:n], '\n'); i >= 0 {
				start = from + int64(i) + 1
				break
			}
			if end-from > int64(f.max)+2 {
				return 0, fmt.Errorf("cdxj: line before byte %d: %w: more than %d bytes", end, ErrLineTooLong, f.max)
			}
			scan = from
		}
		line, _, err := f.lineAt(start)
		if err != nil {
			return 0, err
		}
		if !isBlankLine(line) && !isHeaderLine(line) {
			return start, nil
		}
		end = start
	}
	return -1, nil
}

// scan yields the lines from off on; see scanLines.
func (f *lineFile) scan(off int64, yield func(line []byte, at int64) bool) error {
	if off == 0 {
		inner := yield
		yield = func(line []byte, at int64) bool {
			if at == 0 {
				line = trimBOM(line)
			}
			return inner(line, at)
		}
	}
	return scanLines(io.NewSectionReader(f.r, off, f.size-off), off, f.max, yield)
}

// scanLines yields the lines of r, each without its terminator ("\n" or
// "\r\n"; the last line may have none), with its offset (base plus its
// position in r), reading through a buffer of 64 KiB grown for long lines
// up to max bytes. The slice is valid until the next iteration. A line
// longer than max is an error wrapping ErrLineTooLong that names its
// offset; a read error is returned as is.
func scanLines(rd io.Reader, base int64, max int, yield func(line []byte, at int64) bool) error {
	var buf []byte
	return scanLinesBuf(rd, base, max, &buf, yield)
}

// scanLinesBuf is scanLines with a buffer kept across calls in *bufp (nil
// at first), for callers that scan many small inputs such as blocks.
func scanLinesBuf(rd io.Reader, base int64, max int, bufp *[]byte, yield func(line []byte, at int64) bool) error {
	// Start with a small buffer, for queries that match a few lines, and
	// double it up to 64 KiB for those that read on (further only for a
	// long line).
	const bufSize = 64 << 10
	buf := *bufp
	if len(buf) < 4<<10 {
		buf = make([]byte, 4<<10)
	}
	defer func() { *bufp = buf }()
	reads := 0
	r, w := 0, 0 // unread data is buf[r:w]
	pos := base  // offset of buf[w]
	eof := false
	tooLong := func(at int64) error {
		return fmt.Errorf("cdxj: line at byte %d: %w: more than %d bytes", at, ErrLineTooLong, max)
	}
	for {
		if i := bytes.IndexByte(buf[r:w], '\n'); i >= 0 {
			line := trimCR(buf[r : r+i])
			at := pos - int64(w-r)
			r += i + 1
			if len(line) > max {
				return tooLong(at)
			}
			if !yield(line, at) {
				return nil
			}
			continue
		}
		if eof {
			if r < w {
				line := trimCR(buf[r:w])
				if len(line) > max {
					return tooLong(pos - int64(w-r))
				}
				yield(line, pos-int64(w-r))
			}
			return nil
		}
		// Move the unread part to the front; grow for a long line.
		n := copy(buf, buf[r:w])
		r, w = 0, n
		if w == len(buf) || (reads >= 2 && len(buf) < bufSize) {
			if w > max+1 {
				return tooLong(pos - int64(w))
			}
			nb := make([]byte, 2*len(buf))
			copy(nb, buf[:w])
			buf = nb
		}
		m, err := rd.Read(buf[w:])
		reads++
		w += m
		pos += int64(m)
		if err == io.EOF {
			eof = true
		} else if err != nil {
			return err
		}
	}
}
