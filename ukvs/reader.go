package ukvs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
)

// DefaultMaxLineLength is the longest line, in bytes without its
// terminator, that a [Reader] accepts and a [Writer] writes unless their
// MaxLineLength says otherwise: 16 MiB. It is the one line limit of every
// reader and writer of maps and indexes in the module (mementomap's
// Compact, Merge, Open and LookupAll, the aggregator's map loading, and
// cdxj.DefaultMaxLineSize has the same value), so that what one of them
// writes another never refuses.
const DefaultMaxLineLength = 16 << 20

const readBufferSize = 64 << 10

// Record is one data line of a UKVS document. Its slices point into the
// [Reader]'s buffers and stay valid only until the next call to Read; use
// [Record.Clone] to keep one.
type Record struct {
	Line   int64    // 1-based line number in the input
	Keys   [][]byte // the key columns, quotes removed, in !fields order
	Values [][]byte // the value columns, quotes removed, in !fields order
	JSON   []byte   // the optional trailing JSON block as written, or nil
	Raw    []byte   // the whole line without its line terminator

	freqCol int    // index in Values of the "frequency" column, or -1
	scratch []byte // unescaped quoted columns, for ParseLine
}

// Key returns the first (primary) key column, for a MementoMap the SURT key.
func (r *Record) Key() []byte { return r.Keys[0] }

// Value returns value column i (0-based, in !fields order; see
// [Fields.Index] to find a column by name), or nil when there is no such
// column. The placeholder "-" is returned as is; see [IsUnknown].
func (r *Record) Value(i int) []byte {
	if i < 0 || i >= len(r.Values) {
		return nil
	}
	return r.Values[i]
}

// IsUnknown reports whether a column holds the UKVS placeholder "-".
func IsUnknown(col []byte) bool { return len(col) == 1 && col[0] == '-' }

// Frequency parses the "frequency" value column (the only value column of a
// MementoMap). A record whose layout has no such column returns an error
// wrapping [ErrFieldCount]; a malformed value returns a *[ParseError] naming
// the line and wrapping [ErrFrequency]. It does not allocate on success.
func (r *Record) Frequency() (Frequency, error) {
	if r.freqCol < 0 || r.freqCol >= len(r.Values) {
		return Frequency{}, &ParseError{Line: r.Line, Err: fmt.Errorf("%w: no frequency column", ErrFieldCount)}
	}
	var f Frequency
	if err := f.UnmarshalText(r.Values[r.freqCol]); err != nil {
		return Frequency{}, &ParseError{Line: r.Line, Column: r.column(r.Values[r.freqCol]), Err: err}
	}
	return f, nil
}

// DecodeJSON decodes the trailing JSON block into v (see [encoding/json]);
// unquoted object keys are accepted ([RelaxedJSON]). A record without a
// block leaves v untouched and returns nil. An invalid block returns a
// *[ParseError] naming the line, wrapping [ErrJSON].
func (r *Record) DecodeJSON(v any) error {
	if r.JSON == nil {
		return nil
	}
	b, err := RelaxedJSON(r.JSON)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		if !errors.Is(err, ErrJSON) {
			err = fmt.Errorf("%w: %v", ErrJSON, err)
		}
		return &ParseError{Line: r.Line, Column: r.column(r.JSON), Err: err}
	}
	return nil
}

// column returns the 1-based column of sub within r.Raw, or 0.
func (r *Record) column(sub []byte) int {
	if len(sub) == 0 || len(r.Raw) == 0 {
		return 0
	}
	for i := range r.Raw {
		if &r.Raw[i] == &sub[0] {
			return i + 1
		}
	}
	return 0
}

// Clone returns a deep copy of r that does not share memory with the Reader.
func (r *Record) Clone() *Record {
	c := &Record{Line: r.Line, freqCol: r.freqCol}
	if r.Raw != nil {
		c.Raw = bytes.Clone(r.Raw)
	}
	if r.JSON != nil {
		c.JSON = bytes.Clone(r.JSON)
	}
	c.Keys = make([][]byte, len(r.Keys))
	for i, k := range r.Keys {
		c.Keys[i] = bytes.Clone(k)
	}
	c.Values = make([][]byte, len(r.Values))
	for i, v := range r.Values {
		c.Values[i] = bytes.Clone(v)
	}
	return c
}

// Reader reads a UKVS document (MementoMap paper, Figure 2; ORS draft
// ukvs.md) from an io.Reader, one data line per [Reader.Read], in the
// manner of encoding/csv. The "!" header lines at the top are collected
// and exposed by [Reader.Headers]; the !fields header (or [DefaultFields])
// says how many key and value columns each data line has.
//
// A data line is its columns separated by spaces or tabs (several in a row
// allowed), then optionally a single-line JSON block starting with '{' and
// running to the end of the line. A column holding white space is quoted
// with '"'; inside quotes `\"`, `\\`, `\t`, `\n` and `\r` are escapes.
// Blank lines are skipped; "\r\n" line ends are accepted; a UTF-8 byte
// order mark at the start of the input is skipped.
//
// Memory is bounded by the longest line (at most MaxLineLength) plus a
// 64 KiB buffer; in the steady state Read allocates nothing.
//
// A malformed line makes Read return a *[ParseError]; the Reader stays
// usable and the next Read continues with the following line, so a caller
// can stop or skip and count. Errors of the underlying reader are returned
// as they are and are final.
type Reader struct {
	// MaxLineLength is the longest line accepted, in bytes without the line
	// terminator; 0 means DefaultMaxLineLength. A longer line is reported
	// as a *ParseError wrapping ErrLineTooLong as soon as the limit is
	// passed (so that a line that never ends, /dev/zero, fails at once),
	// and the next Read skips the rest of it.
	MaxLineLength int

	br      *bufio.Reader
	line    int64 // number of the last line read
	offset  int64 // byte offset just past the last line read
	started bool
	headers Headers
	fields  Fields
	nkeys   int
	ncols   int
	freqCol int
	pending []byte // first data line, read while collecting headers
	hasPend bool
	long    []byte // buffer for lines longer than the bufio buffer
	skip    bool   // the rest of a line too long is still to be skipped
	scratch []byte // unescaped quoted columns
	cols    [][]byte
	rec     Record
	err     error // sticky I/O error or io.EOF
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, readBufferSize)}
}

// Headers reads the header section if it has not been read yet and returns
// it. A malformed header line returns a *[ParseError] (wrapping [ErrHeader]
// or [ErrJSON]); the other headers are still returned.
func (r *Reader) Headers() (Headers, error) {
	if !r.started {
		if err := r.readHeaders(); err != nil {
			return r.headers, err
		}
	}
	return r.headers, nil
}

// Fields returns the column layout in effect (from the last !fields header,
// or [DefaultFields]), reading the header section first if need be. Its
// error is [Reader.Headers]': a *[ParseError] wrapping [ErrHeader] or
// [ErrJSON] for a malformed header line, or a read error.
func (r *Reader) Fields() (Fields, error) {
	_, err := r.Headers()
	return r.fields, err
}

// Line returns the number of the last line read (1-based, counting header
// and blank lines), or 0 before the first Read.
func (r *Reader) Line() int64 { return r.line }

// Offset returns the byte offset in the input just past the last line read
// (its line terminator included).
func (r *Reader) Offset() int64 { return r.offset }

func (r *Reader) readHeaders() error {
	r.started = true
	r.fields = DefaultFields()
	r.layout()
	var first error
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF || !isParseError(err) {
				r.err = err
				if err == io.EOF {
					return first
				}
				return err
			}
			if errors.Is(err, ErrLineTooLong) {
				// Header or data, the line cannot be told: stop here
				// rather than skip on through what may never end.
				return err
			}
			if first == nil {
				first = err
			}
			continue
		}
		if isBlank(line) {
			continue
		}
		if line[0] != '!' {
			r.pending, r.hasPend = line, true
			return first
		}
		h, err := parseHeader(line)
		if err != nil {
			if first == nil {
				first = &ParseError{Line: r.line, Err: err}
			}
			continue
		}
		r.headers = append(r.headers, h)
		if h.Name == HeaderFields {
			r.fields, _ = Headers{h}.Fields() // validated by parseHeader
			r.layout()
		}
	}
}

func (r *Reader) layout() {
	r.nkeys = len(r.fields.Keys)
	r.ncols = r.nkeys + len(r.fields.Values)
	r.freqCol = r.fields.Index("frequency")
	if cap(r.cols) < r.ncols {
		r.cols = make([][]byte, 0, r.ncols)
	}
}

func isParseError(err error) bool {
	var pe *ParseError
	return errors.As(err, &pe)
}

// Read returns the next data line. At the end of the input it returns
// (nil, io.EOF). The Record and its slices are reused by the next Read.
// A bad line returns (nil, *ParseError) and the next Read goes on after it;
// a malformed header line is reported by the first Read in the same way.
func (r *Reader) Read() (*Record, error) {
	if !r.started {
		if err := r.readHeaders(); err != nil {
			return nil, err
		}
	}
	for {
		var line []byte
		if r.hasPend {
			line, r.hasPend = r.pending, false
			r.pending = nil
		} else {
			if r.err != nil {
				return nil, r.err
			}
			var err error
			line, err = r.readLine()
			if err != nil {
				if !isParseError(err) {
					r.err = err
				}
				return nil, err
			}
			if isBlank(line) {
				continue
			}
			if line[0] == '!' {
				return nil, &ParseError{Line: r.line, Column: 1, Err: ErrLateHeader}
			}
		}
		if err := r.parseLine(line); err != nil {
			return nil, err
		}
		return &r.rec, nil
	}
}

// All returns an iterator over the data lines. A bad line yields
// (nil, *ParseError); if the loop body continues, the iteration goes on
// with the next line. An I/O error is yielded once and ends the iteration.
// The yielded Record is reused, as with Read.
func (r *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for {
			rec, err := r.Read()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || (err != nil && !isParseError(err)) {
				return
			}
		}
	}
}

// readLine returns the next line without its terminator ("\n" or "\r\n").
// The slice is valid until the next call. A line longer than the limit is
// reported as soon as the limit is passed, without reading the rest of it
// (an endless line, such as /dev/zero, ends the read at once); the next
// call skips the rest.
func (r *Reader) readLine() ([]byte, error) {
	max := r.MaxLineLength
	if max <= 0 {
		max = DefaultMaxLineLength
	}
	for r.skip {
		chunk, err := r.br.ReadSlice('\n')
		r.offset += int64(len(chunk))
		if err == bufio.ErrBufferFull {
			continue
		}
		r.skip = false
		if err != nil {
			return nil, err
		}
	}
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
			if len(r.long) > max+2 {
				r.offset += int64(len(r.long))
				r.long = r.long[:0]
				r.skip = err == bufio.ErrBufferFull
				if err != nil && err != io.EOF && !r.skip {
					return nil, err
				}
				r.line++
				return nil, &ParseError{Line: r.line, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, max)}
			}
		}
		line = r.long
	}
	if len(line) == 0 {
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	// A final line without "\n" is a line; the next call reports io.EOF.
	r.line++
	r.offset += int64(len(line))
	if line[len(line)-1] == '\n' {
		line = line[:len(line)-1]
	}
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	// A UTF-8 byte order mark (a map saved by a Windows editor) is not
	// part of the first header name or key.
	if r.line == 1 && bytes.HasPrefix(line, utf8BOM) {
		line = line[len(utf8BOM):]
	}
	if len(line) > max {
		return nil, &ParseError{Line: r.line, Err: fmt.Errorf("%w: %d bytes, more than %d", ErrLineTooLong, len(line), max)}
	}
	return line, nil
}

// utf8BOM is the UTF-8 byte order mark.
var utf8BOM = []byte("\xef\xbb\xbf")

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// parseLine splits a data line into r.rec.
func (r *Reader) parseLine(line []byte) error {
	cols, jsonBlock, col, err := splitColumns(line, r.ncols, &r.scratch, r.cols[:0])
	r.cols = cols[:0]
	if err != nil {
		return &ParseError{Line: r.line, Column: col, Err: err}
	}
	r.rec = Record{
		Line:    r.line,
		Keys:    cols[:r.nkeys:r.nkeys],
		Values:  cols[r.nkeys:],
		JSON:    jsonBlock,
		Raw:     line,
		freqCol: r.freqCol,
	}
	return nil
}

// splitColumns splits line into ncols columns (appended to cols) and an
// optional trailing JSON block. scratch holds unescaped quoted columns. On
// error it returns the 1-based column of the problem.
func splitColumns(line []byte, ncols int, scratch *[]byte, cols [][]byte) ([][]byte, []byte, int, error) {
	n := len(line)
	i := 0
	quoted := false
	for k := 0; k < ncols; k++ {
		for i < n && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == n {
			return cols, nil, 0, fmt.Errorf("%w: %d columns, want %d", ErrFieldCount, k, ncols)
		}
		if line[i] == '"' {
			if !quoted {
				// Unescaped text is never longer than the line, so the
				// scratch buffer never moves while columns point into it.
				quoted = true
				if cap(*scratch) < n {
					*scratch = make([]byte, 0, n)
				}
				*scratch = (*scratch)[:0]
			}
			v, j, err := unquote(line, i, scratch)
			if err != nil {
				return cols, nil, j + 1, err
			}
			cols = append(cols, v)
			i = j
			continue
		}
		j := i
		for j < n && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		cols = append(cols, line[i:j])
		i = j
	}
	for i < n && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == n {
		return cols, nil, 0, nil
	}
	end := n
	for end > i && (line[end-1] == ' ' || line[end-1] == '\t') {
		end--
	}
	if line[i] != '{' || line[end-1] != '}' {
		return cols, nil, i + 1, fmt.Errorf("%w: more than %d columns and no JSON block", ErrFieldCount, ncols)
	}
	return cols, line[i:end], 0, nil
}

// unquote reads the quoted column starting at line[i] == '"'. It returns
// the value (a sub-slice of line when there is no escape, else of scratch)
// and the index just past the closing quote.
func unquote(line []byte, i int, scratch *[]byte) ([]byte, int, error) {
	start := i + 1
	j := start
	escaped := false
	for j < len(line) && line[j] != '"' {
		if line[j] == '\\' {
			escaped = true
			j++
		}
		j++
	}
	if j >= len(line) {
		return nil, i, fmt.Errorf("%w: no closing quote", ErrQuote)
	}
	if j+1 < len(line) && line[j+1] != ' ' && line[j+1] != '\t' {
		return nil, j + 1, fmt.Errorf("%w: text after the closing quote", ErrQuote)
	}
	if !escaped {
		return line[start:j], j + 1, nil
	}
	s := len(*scratch)
	for k := start; k < j; k++ {
		c := line[k]
		if c == '\\' {
			k++
			switch line[k] {
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			default:
				c = line[k]
			}
		}
		*scratch = append(*scratch, c)
	}
	return (*scratch)[s:len(*scratch):len(*scratch)], j + 1, nil
}

// ParseLine splits one data line (without its line terminator) laid out as
// f into rec, for callers that find lines themselves, such as a binary
// search over a memory-mapped map. rec's slices are reused and point into
// line (or, for a quoted column with escapes, into a buffer rec owns). The
// error is one of the causes of a *[ParseError] (without a line number,
// which only the caller knows). It does not allocate once rec has grown to
// the layout's size.
func ParseLine(line []byte, f Fields, rec *Record) error {
	nkeys := len(f.Keys)
	ncols := nkeys + len(f.Values)
	cols, block, _, err := splitColumns(line, ncols, &rec.scratch, rec.Keys[:0:cap(rec.Keys)])
	if err != nil {
		return err
	}
	rec.Keys = cols[:nkeys]
	rec.Values = cols[nkeys:]
	rec.JSON = block
	rec.Raw = line
	rec.freqCol = f.Index("frequency")
	return nil
}
