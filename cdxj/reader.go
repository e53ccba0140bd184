package cdxj

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"log/slog"
)

// DefaultMaxLineSize is the longest line, in bytes without its terminator,
// a Reader accepts when MaxLineSize is 0: 16 MiB.
const DefaultMaxLineSize = 16 << 20

// initialBufSize is the size of a Reader's buffer before a long line makes
// it grow.
const initialBufSize = 256 << 10

// A Reader reads records from CDXJ or classic CDX text, one line at a time.
//
// Lines end in "\n" (a "\r" before it is dropped); the last line may lack
// one; a UTF-8 byte order mark at the start is dropped. Blank (empty)
// lines are passed over and counted (BlankLines); a line of spaces is a bad
// line. Lines starting with '!' (CDXJ/ORS headers such as
// "!context", "!meta") and " CDX ..." legend lines (also without the
// leading space) are headers, not records: Header returns them, and a
// legend line sets the layout of the classic CDX lines after it (a CDXJ line
// after it, whose third field is a whole JSON object, as when a CDX and a
// CDXJ file are concatenated, is still read as CDXJ).
//
// Each other line is one record. A line whose third space-separated field
// starts with '{' is CDXJ: "key timestamp {json}", split on the first two
// spaces (a run of spaces counts as one). Two variants are recognised:
// "datetime {json}" (an ipwb TimeMap, where the key is the timestamp) and a
// key holding spaces (see below). Any other line is classic CDX, split on runs of spaces, whose columns follow
// the legend line, else the Layout setting, else the field count: 7, 9,
// 10, 11 or 14 fields (Layout7 ... Layout14). A MIME type holding a space
// ("text/plain; charset=utf-8") counts as one field. A line without legend
// or Layout that does not read as classic CDX but holds " {" is read as
// CDXJ whose key has spaces: its timestamp is the token just before the
// first " {", its key all before that.
//
// A bad line gives a *ParseError naming it; the Reader then goes on with
// the next line at the next Read, so the caller can stop, or skip and count
// (or set SkipBad). A line longer than MaxLineSize is such an error too,
// never a silent stop. Errors of the underlying reader end the input.
//
// Memory: the Reader holds one buffer of 256 KiB that grows, for long
// lines, up to MaxLineSize+1 bytes (so at most max(256 KiB, MaxLineSize+1)),
// one Record, and the header lines it has seen.
type Reader struct {
	// MaxLineSize is the longest line accepted, in bytes without its
	// terminator. 0 means DefaultMaxLineSize. Set before the first Read.
	MaxLineSize int

	// SkipBad makes Read pass over bad lines instead of returning their
	// *ParseError; Skipped counts them and Logger, if set, logs each one.
	// Errors of the underlying reader are still returned.
	SkipBad bool

	// ReuseRecord makes Read return the same *Record each time, aliasing
	// the Reader's buffer, valid until the next Read. Reading then makes no
	// allocation per line. Without it each Record owns a copy of its line.
	ReuseRecord bool

	// Layout, if not nil, is the column layout of classic CDX lines in an
	// input without a " CDX" legend line, instead of inferring it from the
	// field count. Lines are then only read as CDXJ when their third field
	// starts with '{'.
	Layout *Layout

	// Logger, if not nil, receives a Warn record for each line skipped
	// under SkipBad.
	Logger *slog.Logger

	// Source names the input (a file name) in the *ParseError values the
	// Reader returns and in its Records (Record.Source). Set it before the
	// first Read.
	Source string

	rd      io.Reader
	buf     []byte
	r0, w0  int   // unread bytes are buf[r0:w0]
	scanned int   // buf[r0:r0+scanned] holds no '\n'
	off     int64 // input offset of buf[r0]
	inErr   error // error from rd, returned once buf is drained
	err     error // sticky error returned by Read
	lineNo  int64
	lineOff int64 // input offset of the last line returned
	// lines, when not nil, counts line numbers on demand: the input starts
	// inside a file (a Part), where lineNo counts from the part's start.
	lines *lineCounter

	discarding bool  // dropping the rest of a line longer than the maximum
	dropped    int64 // bytes of that line dropped so far

	headers []string
	hdr     *Layout
	skipped int64
	blank   int64 // blank lines passed over
	rec     Record
	filter  *compiled // lines the filter does not match are passed over; vStop ends the input
}

// NewReader returns a Reader reading from rd, which holds text: for a gzip
// stream use NewDecompressor (a gzip member end is then a line end), and
// for files and clusters Open.
func NewReader(rd io.Reader) *Reader { return &Reader{rd: rd} }

func (r *Reader) maxLine() int {
	if r.MaxLineSize > 0 {
		return r.MaxLineSize
	}
	return DefaultMaxLineSize
}

// readLine returns the next line without its terminator. A line that is
// too long gives a *ParseError wrapping ErrLineTooLong.
func (r *Reader) readLine() ([]byte, error) {
	maxLen := r.maxLine()
	for {
		if i := bytes.IndexByte(r.buf[r.r0+r.scanned:r.w0], '\n'); i >= 0 {
			end := r.r0 + r.scanned + i
			line := r.buf[r.r0:end]
			r.lineOff = r.off
			r.off += int64(end + 1 - r.r0)
			r.r0, r.scanned = end+1, 0
			r.lineNo++
			if r.discarding {
				r.discarding = false
				return nil, r.tooLong(r.dropped + int64(len(line)))
			}
			if len(line) > maxLen {
				return nil, r.tooLong(int64(len(line)))
			}
			return r.trim(line), nil
		}
		r.scanned = r.w0 - r.r0
		if r.inErr != nil {
			if r.inErr != io.EOF || (r.r0 == r.w0 && !r.discarding) {
				return nil, r.inErr
			}
			// The last line has no terminator.
			line := r.buf[r.r0:r.w0]
			r.lineOff = r.off
			r.off += int64(len(line))
			r.r0, r.scanned = r.w0, 0
			r.lineNo++
			if r.discarding {
				r.discarding = false
				return nil, r.tooLong(r.dropped + int64(len(line)))
			}
			if len(line) > maxLen {
				return nil, r.tooLong(int64(len(line)))
			}
			return r.trim(line), nil
		}
		if r.w0-r.r0 > maxLen {
			// Too long: drop what we have and look for the end of the line.
			if !r.discarding {
				r.discarding, r.dropped = true, 0
			}
			r.dropped += int64(r.w0 - r.r0)
			r.off += int64(r.w0 - r.r0)
			r.r0, r.w0, r.scanned = 0, 0, 0
		}
		r.fill(maxLen)
	}
}

// trim drops a "\r" before the line's "\n" and a UTF-8 byte order mark
// at the start of the input.
func (r *Reader) trim(line []byte) []byte {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if r.lineNo == 1 && r.lineOff == 0 && len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
		line = line[3:]
	}
	return line
}

func (r *Reader) tooLong(n int64) error {
	return &ParseError{Line: r.lineNo, Err: causef(ErrLineTooLong, "%d bytes, the maximum is %d", n, r.maxLine())}
}

// located fills in what pe does not know of where its line is.
func (r *Reader) located(pe *ParseError) *ParseError {
	pe.Line, pe.Offset, pe.Source = r.lineNo, r.lineOff, r.Source
	if r.lines != nil {
		pe.Line = r.lines.lineAt(r.lineOff)
	}
	return pe
}

// fill reads more input into the buffer, moving unread bytes to its start
// and growing it (up to maxLen+1 bytes) when it is full.
func (r *Reader) fill(maxLen int) {
	if r.buf == nil {
		r.buf = make([]byte, initialBufSize)
	}
	if r.r0 > 0 {
		r.w0 = copy(r.buf, r.buf[r.r0:r.w0])
		r.r0 = 0
	}
	if r.w0 == len(r.buf) {
		n := min(2*len(r.buf), maxLen+1)
		if n <= len(r.buf) {
			n = len(r.buf) + 1 // cannot happen: readLine drops a full buffer
		}
		nb := make([]byte, n)
		copy(nb, r.buf[:r.w0])
		r.buf = nb
	}
	for range 100 {
		n, err := r.rd.Read(r.buf[r.w0:])
		if n < 0 || n > len(r.buf)-r.w0 {
			r.inErr = errors.New("cdxj: underlying reader returned an invalid count")
			return
		}
		r.w0 += n
		if err != nil {
			r.inErr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.inErr = io.ErrNoProgress
}

// isLegend reports whether line is a " CDX ..." legend line.
func isLegend(line []byte) bool {
	l := bytes.TrimPrefix(line, []byte(" "))
	return bytes.HasPrefix(l, []byte("CDX")) && (len(l) == 3 || l[3] == ' ')
}

// Read returns the next record. At the end of the input it returns nil,
// io.EOF. A bad line gives a *ParseError (unless SkipBad) and the next Read
// goes on after it; an error of the underlying reader is returned as is, and
// again by every later Read.
func (r *Reader) Read() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.readLine()
		if err != nil {
			if pe, ok := err.(*ParseError); ok {
				r.located(pe)
				if r.skip(pe) {
					continue
				}
				return nil, pe
			}
			r.err = err
			return nil, err
		}
		if isBlankLine(line) {
			r.blank++
			continue
		}
		if line[0] == '!' {
			r.headers = append(r.headers, string(line))
			continue
		}
		if isLegend(line) {
			l, err := ParseLayout(string(line))
			if err != nil {
				pe := r.located(&ParseError{Err: err})
				if r.skip(pe) {
					continue
				}
				return nil, pe
			}
			r.hdr = l
			r.headers = append(r.headers, string(line))
			continue
		}
		if r.filter != nil {
			switch r.filter.test(line) {
			case vSkip:
				continue
			case vStop:
				r.err = io.EOF
				return nil, io.EOF
			}
		}
		rec := &r.rec
		if !r.ReuseRecord {
			rec = new(Record)
			line = append([]byte(nil), line...)
		}
		if err := rec.parse(line, r.hdr, r.Layout); err != nil {
			pe := r.located(err.(*ParseError))
			if r.skip(pe) {
				continue
			}
			return nil, pe
		}
		rec.lineNo, rec.inOff, rec.src, rec.lines = r.lineNo, r.lineOff, r.Source, r.lines
		if r.lines != nil {
			rec.lineNo = 0
		}
		return rec, nil
	}
}

// skip counts and logs pe when SkipBad is set.
func (r *Reader) skip(pe *ParseError) bool {
	if !r.SkipBad {
		return false
	}
	r.skipped++
	if r.Logger != nil {
		r.Logger.Warn("cdxj: skipped bad line", "source", pe.Source, "line", pe.Line, "err", pe.Err)
	}
	return true
}

// All returns an iterator over the remaining records and errors: each
// record with a nil error, each bad line as (nil, *ParseError) after which
// the sequence goes on if the loop continues, and an error of the
// underlying reader as its last element. The end of the input ends the
// sequence without an error. With ReuseRecord each record is valid until
// the next iteration.
func (r *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for {
			rec, err := r.Read()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) {
				return
			}
			var pe *ParseError
			if err != nil && !errors.As(err, &pe) {
				return
			}
		}
	}
}

// Header returns the header lines read so far, in order, without their
// line terminators: "!context ...", "!meta ...", " CDX N b a ...". The
// slice is the Reader's; do not modify it.
func (r *Reader) Header() []string { return r.headers }

// HeaderLayout returns the layout of the last " CDX" legend line read, or
// nil.
func (r *Reader) HeaderLayout() *Layout { return r.hdr }

// Skipped returns the number of bad lines passed over under SkipBad.
func (r *Reader) Skipped() int64 { return r.skipped }

// BlankLines returns the number of blank (empty) lines passed over so far.
// They hold no record and are no error; Skipped does not count them.
func (r *Reader) BlankLines() int64 { return r.blank }

// LineNumber returns the 1-based number of the last line read (a record,
// header, blank or bad line).
func (r *Reader) LineNumber() int64 { return r.lineNo }

// InputOffset returns the number of bytes of input consumed by the lines
// read so far (the offset of the next line).
func (r *Reader) InputOffset() int64 { return r.off }
