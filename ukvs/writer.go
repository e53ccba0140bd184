package ukvs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mementokit/mementokit/internal/atomicfile"
)

// Writer writes a UKVS document: "!" header lines first, then data lines
// in strictly increasing byte-wise key order, the order [Check] verifies
// and binary-search lookups need.
//
// Keys are compared column by column, each column byte-wise (the order of
// Go's bytes.Compare, which for keys without control bytes is also the
// order `LC_ALL=C sort` gives to the written lines). A data line whose key
// is not greater than the previous line's is refused with a *[ParseError]
// wrapping [ErrOutOfOrder] or [ErrDuplicateKey]; nothing is written for it
// and the Writer stays usable.
//
// Columns are separated by one space. A column that is empty, contains
// white space or starts with '"' (or, for the first column, with '!') is
// written quoted, with `\"`, `\\`, `\t`, `\n` and `\r` escapes. Pass "-" for
// an unknown value. Output is buffered: call [Writer.Flush] at the end and
// check its error. Memory is bounded by the longest line written.
type Writer struct {
	// MaxLineLength is the longest data or header line written, in bytes
	// without the line terminator; 0 means DefaultMaxLineLength, the
	// limit of a Reader, so that a Reader reads everything a Writer
	// writes. A longer line is refused with a *ParseError wrapping
	// ErrLineTooLong and nothing is written for it.
	MaxLineLength int

	bw       *bufio.Writer
	fields   Fields
	nkeys    int
	freq     int   // value column named "frequency", or -1
	dtKey    int   // key column named "datetime", or -1
	dtVal    int   // value column named "datetime", or -1
	data     bool  // a data line has been written
	lines    int64 // lines written so far
	prevBuf  []byte
	prevEnds []int
	buf      []byte
}

// NewWriter returns a Writer writing to w. Until a !fields header is
// written the layout is [DefaultFields] (one key column, one "frequency"
// value column).
func NewWriter(w io.Writer) *Writer {
	wr := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
	wr.setFields(DefaultFields())
	return wr
}

func (w *Writer) setFields(f Fields) {
	w.fields = f
	w.nkeys = len(f.Keys)
	w.freq = f.Index("frequency")
	w.dtKey, w.dtVal = f.KeyIndex("datetime"), f.Index("datetime")
}

// checkValues refuses a "frequency" or "datetime" column that [Check]
// would reject, so that the Writer never writes a document Check fails.
// The placeholder "-" is always accepted.
func (w *Writer) checkValues(key, val func(int) []byte) error {
	if w.freq >= 0 {
		v := val(w.freq)
		if _, err := parseFrequency(v); err != nil {
			return &ParseError{Line: w.lines + 1, Err: err}
		}
	}
	for _, col := range [][]byte{colAt(key, w.dtKey), colAt(val, w.dtVal)} {
		if col == nil || IsUnknown(col) {
			continue
		}
		if _, err := ParseDatetimeValue(string(col)); err != nil {
			return &ParseError{Line: w.lines + 1, Err: err}
		}
	}
	return nil
}

func colAt(f func(int) []byte, i int) []byte {
	if i < 0 {
		return nil
	}
	return f(i)
}

// WriteHeader writes the header line `!name value`. value is marshalled
// with encoding/json, except that a json.RawMessage, []byte or string is
// taken as JSON text (unquoted object keys allowed, see [RelaxedJSON]) and
// written as given. A "fields" header must decode as [Fields] and sets the
// layout of the data lines that follow. A header after the first data line
// returns an error wrapping [ErrLateHeader]; an invalid value one wrapping
// [ErrJSON] or [ErrHeader].
func (w *Writer) WriteHeader(name string, value any) error {
	if w.data {
		return &ParseError{Line: w.lines + 1, Err: ErrLateHeader}
	}
	if name == "" || bytes.ContainsAny([]byte(name), " \t\r\n") {
		return fmt.Errorf("ukvs: %w: bad header name %q", ErrHeader, name)
	}
	var text []byte
	switch v := value.(type) {
	case json.RawMessage:
		text = v
	case []byte:
		text = v
	case string:
		text = []byte(v)
	default:
		b, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("ukvs: %w: !%s: %v", ErrJSON, name, err)
		}
		text = b
	}
	text = bytes.TrimSpace(text)
	h := Header{Name: name, Raw: string(text)}
	if len(text) > 0 {
		strict, err := RelaxedJSON(text)
		if err != nil {
			return fmt.Errorf("ukvs: !%s: %w", name, err)
		}
		h.Value = strict
	}
	var fields *Fields
	if name == HeaderFields {
		f, err := Headers{h}.Fields()
		if err != nil {
			return fmt.Errorf("ukvs: %w", err)
		}
		fields = &f
	}
	w.buf = append(w.buf[:0], '!')
	w.buf = append(w.buf, name...)
	if len(text) > 0 {
		w.buf = append(w.buf, ' ')
		w.buf = append(w.buf, text...)
	}
	if max := w.maxLine(); len(w.buf) > max {
		return &ParseError{Line: w.lines + 1, Err: fmt.Errorf("%w: header !%s of %d bytes, more than %d", ErrLineTooLong, name, len(w.buf), max)}
	}
	w.buf = append(w.buf, '\n')
	if fields != nil {
		w.setFields(*fields)
	}
	w.lines++
	_, err := w.bw.Write(w.buf)
	return err
}

func (w *Writer) maxLine() int {
	if w.MaxLineLength > 0 {
		return w.MaxLineLength
	}
	return DefaultMaxLineLength
}

// clipKey returns the start of a key for an error message.
func clipKey(k []byte) string {
	if len(k) > 80 {
		return string(k[:80]) + "..."
	}
	return string(k)
}

// WriteHeaders writes hs in order, each as its Raw text when set (so that a
// copied document keeps its headers byte for byte), else its Value. It
// stops at the first error of [Writer.WriteHeader] (ErrLateHeader after
// the first data line, ErrHeader or ErrJSON for a bad name or value,
// ErrLineTooLong), the headers before it written.
func (w *Writer) WriteHeaders(hs Headers) error {
	for _, h := range hs {
		var v any = h.Raw
		if h.Raw == "" && h.Value != nil {
			v = h.Value
		}
		if err := w.WriteHeader(h.Name, v); err != nil {
			return err
		}
	}
	return nil
}

// Fields returns the layout the data lines must follow.
func (w *Writer) Fields() Fields { return w.fields }

// Write writes one data line: the key columns, the value columns and an
// optional single-line JSON block (nil for none; unquoted keys allowed).
// The number of keys and values must match the layout ([ErrFieldCount]);
// the key must sort after the previous line's ([ErrOutOfOrder],
// [ErrDuplicateKey]); a column named "frequency" must parse with
// [ParseFrequency] ([ErrFrequency]) and one named "datetime" with
// [ParseDatetimeValue] ([ErrDatetimeValue]) unless it is "-", so that [Check] accepts
// everything the Writer writes. Errors for a refused line are *[ParseError] values
// whose Line is the line number the data line would have had.
func (w *Writer) Write(keys, values []string, block []byte) error {
	if len(keys) != w.nkeys || len(values) != len(w.fields.Values) {
		return &ParseError{Line: w.lines + 1, Err: fmt.Errorf("%w: %d keys and %d values, want %d and %d",
			ErrFieldCount, len(keys), len(values), w.nkeys, len(w.fields.Values))}
	}
	key := func(i int) []byte { return []byte(keys[i]) }
	if err := w.checkOrder(len(keys), key); err != nil {
		return err
	}
	if err := w.checkValues(key, func(i int) []byte { return []byte(values[i]) }); err != nil {
		return err
	}
	if err := checkBlock(block); err != nil {
		return &ParseError{Line: w.lines + 1, Err: err}
	}
	b := w.buf[:0]
	for i, k := range keys {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendColumn(b, []byte(k), i == 0)
	}
	for _, v := range values {
		b = append(b, ' ')
		b = appendColumn(b, []byte(v), false)
	}
	return w.finish(b, block, len(keys), key)
}

// WriteRecord writes a record read by a [Reader] (whose layout must match
// this Writer's), with the same checks as [Writer.Write] and the same
// errors: a *[ParseError] naming the line number the record would have had,
// wrapping ErrFieldCount, ErrOutOfOrder, ErrDuplicateKey, ErrFrequency,
// ErrDatetimeValue, ErrJSON or ErrLineTooLong (nothing written then), or
// the underlying writer's error.
func (w *Writer) WriteRecord(rec *Record) error {
	if len(rec.Keys) != w.nkeys || len(rec.Values) != len(w.fields.Values) {
		return &ParseError{Line: w.lines + 1, Err: fmt.Errorf("%w: %d keys and %d values, want %d and %d",
			ErrFieldCount, len(rec.Keys), len(rec.Values), w.nkeys, len(w.fields.Values))}
	}
	key := func(i int) []byte { return rec.Keys[i] }
	if err := w.checkOrder(len(rec.Keys), key); err != nil {
		return err
	}
	if err := w.checkValues(key, func(i int) []byte { return rec.Values[i] }); err != nil {
		return err
	}
	if err := checkBlock(rec.JSON); err != nil {
		return &ParseError{Line: w.lines + 1, Err: err}
	}
	b := w.buf[:0]
	for i, k := range rec.Keys {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendColumn(b, k, i == 0)
	}
	for _, v := range rec.Values {
		b = append(b, ' ')
		b = appendColumn(b, v, false)
	}
	return w.finish(b, rec.JSON, len(rec.Keys), key)
}

// WriteFrequency writes `key frequency`, the line of a MementoMap; the
// layout must be one key column and one value column. It does not allocate
// in the steady state. A refused line is a *[ParseError] naming the line
// number it would have had, wrapping ErrFieldCount (another layout),
// ErrOutOfOrder or ErrDuplicateKey (key not after the previous one) or
// ErrLineTooLong, and nothing is written; otherwise the error is the
// underlying writer's.
func (w *Writer) WriteFrequency(key []byte, f Frequency) error {
	if w.nkeys != 1 || len(w.fields.Values) != 1 {
		return &ParseError{Line: w.lines + 1, Err: fmt.Errorf("%w: WriteFrequency needs 1 key and 1 value column, layout has %d and %d",
			ErrFieldCount, w.nkeys, len(w.fields.Values))}
	}
	k := func(int) []byte { return key }
	if err := w.checkOrder(1, k); err != nil {
		return err
	}
	b := appendColumn(w.buf[:0], key, true)
	b = append(b, ' ')
	b = f.Append(b)
	return w.finish(b, nil, 1, k)
}

// finish writes the data line b (and block) unless it is longer than the
// limit, and then remembers its key.
func (w *Writer) finish(b, block []byte, n int, key func(int) []byte) error {
	if block != nil {
		b = append(b, ' ')
		b = append(b, block...)
	}
	w.buf = b
	if max := w.maxLine(); len(b) > max {
		return &ParseError{Line: w.lines + 1, Err: fmt.Errorf("%w: %d bytes, more than %d", ErrLineTooLong, len(b), max), Key: clipKey(key(0))}
	}
	w.remember(n, key)
	b = append(b, '\n')
	w.buf = b
	w.data = true
	w.lines++
	_, err := w.bw.Write(b)
	return err
}

// checkOrder compares the new key with the previous one.
func (w *Writer) checkOrder(n int, key func(int) []byte) error {
	if w.data {
		c := 0
		start := 0
		for i := 0; i < n && c == 0; i++ {
			c = bytes.Compare(key(i), w.prevBuf[start:w.prevEnds[i]])
			start = w.prevEnds[i]
		}
		if c <= 0 {
			cause := ErrOutOfOrder
			if c == 0 {
				cause = ErrDuplicateKey
			}
			return &ParseError{Line: w.lines + 1, Err: cause, Key: string(key(0))}
		}
	}
	return nil
}

// remember records the key of the line just accepted.
func (w *Writer) remember(n int, key func(int) []byte) {
	w.prevBuf = w.prevBuf[:0]
	w.prevEnds = w.prevEnds[:0]
	for i := 0; i < n; i++ {
		w.prevBuf = append(w.prevBuf, key(i)...)
		w.prevEnds = append(w.prevEnds, len(w.prevBuf))
	}
}

func checkBlock(block []byte) error {
	if block == nil {
		return nil
	}
	if len(block) < 2 || block[0] != '{' || block[len(block)-1] != '}' {
		return fmt.Errorf("%w: a trailing block must be a JSON object", ErrJSON)
	}
	_, err := RelaxedJSON(block)
	return err
}

// appendColumn appends v, quoted when it has to be.
func appendColumn(b, v []byte, first bool) []byte {
	need := len(v) == 0 || v[0] == '"' || (first && v[0] == '!')
	if !need {
		for _, c := range v {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				need = true
				break
			}
		}
	}
	if !need {
		return append(b, v...)
	}
	b = append(b, '"')
	for _, c := range v {
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Flush writes any buffered data to the underlying io.Writer. An error is
// that io.Writer's, and every later Flush returns it (bufio.Writer).
func (w *Writer) Flush() error { return w.bw.Flush() }

// File is a UKVS file being written: data goes to a temporary file in the
// target's folder (one without a name where the system allows it, see
// internal/atomicfile), and [File.Commit] renames it into place, so an
// interrupted run, even one killed, never leaves a half-written file and
// never touches an existing one until the new one is complete. The file
// gets the mode of the one it replaces, else 0644 (a map is meant to be
// shared).
type File struct {
	*Writer
	f    *atomicfile.File
	path string
	done bool
}

// Create starts writing the UKVS file path (see [File]). It fails, naming
// path, when the target's folder cannot be written or path names something
// other than a regular file (a device such as /dev/null, a pipe, a folder,
// or a symbolic link to one).
func Create(path string) (*File, error) {
	f, err := atomicfile.Create(path, nil)
	if err != nil {
		return nil, fmt.Errorf("ukvs: %w", err)
	}
	return &File{Writer: NewWriter(f), f: f, path: path}, nil
}

// Commit flushes, syncs and closes the temporary file and renames it to the
// target path. On error (writing the buffered lines, the sync or the
// rename failed; Commit after Commit or Close) the temporary file is
// removed and the target is untouched; the error names path.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("ukvs: %s: already committed or closed", f.path)
	}
	f.done = true
	if err := f.Writer.Flush(); err != nil {
		f.f.Close()
		return fmt.Errorf("ukvs: write %s: %w", f.path, err)
	}
	if err := f.f.Commit(); err != nil {
		return fmt.Errorf("ukvs: %w", err)
	}
	return nil
}

// Close abandons the file if it has not been committed, removing the
// temporary file; after Commit it does nothing. It is safe to defer.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	return f.f.Close()
}
