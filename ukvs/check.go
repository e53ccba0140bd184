package ukvs

import (
	"bytes"
	"fmt"
	"io"
)

// Check reads a whole UKVS document and returns the number of data lines
// read (all of them, or up to and including the bad one) and the first
// problem found, as a *[ParseError] naming its line:
//
//   - a malformed header (not single-line JSON, a bad !fields) or a header
//     after the first data line;
//   - a data line with the wrong number of columns, a bad quote, or a
//     trailing block that is not a JSON object;
//   - a malformed value in a column named "frequency" ([ParseFrequency]) or
//     "datetime" ([ParsePeriod]), key or value;
//   - a key that is not strictly greater than the previous line's, in the
//     byte-wise column-by-column order of [Writer] ([ErrOutOfOrder],
//     [ErrDuplicateKey]).
//
// A nil error means the file can be binary-searched. Errors of r are
// returned as they are. Memory is bounded by two lines.
func Check(r io.Reader) (int64, error) {
	rd := NewReader(r)
	f, err := rd.Fields()
	if err != nil {
		return 0, err
	}
	freq := f.Index("frequency")
	dtKey, dtVal := f.KeyIndex("datetime"), f.Index("datetime")
	var prev [][]byte
	var n, prevLine int64
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
		if freq >= 0 {
			if _, err := rec.Frequency(); err != nil {
				return n, err
			}
		}
		for _, col := range [][]byte{rec.Value(dtVal), keyAt(rec, dtKey)} {
			if col == nil || IsUnknown(col) {
				continue
			}
			if _, err := ParsePeriod(string(col)); err != nil {
				return n, &ParseError{Line: rec.Line, Column: rec.column(col), Err: err}
			}
		}
		if rec.JSON != nil {
			if _, err := RelaxedJSON(rec.JSON); err != nil {
				return n, &ParseError{Line: rec.Line, Column: rec.column(rec.JSON), Err: err}
			}
		}
		if prev != nil {
			c := 0
			for i := 0; i < len(rec.Keys) && c == 0; i++ {
				c = bytes.Compare(rec.Keys[i], prev[i])
			}
			if c <= 0 {
				cause := ErrOutOfOrder
				if c == 0 {
					cause = ErrDuplicateKey
				}
				return n, &ParseError{Line: rec.Line, Err: fmt.Errorf("%w after line %d", cause, prevLine), Key: string(rec.Keys[0])}
			}
		}
		if prev == nil {
			prev = make([][]byte, len(rec.Keys))
		}
		for i, k := range rec.Keys {
			prev[i] = append(prev[i][:0], k...)
		}
		prevLine = rec.Line
	}
}

func keyAt(rec *Record, i int) []byte {
	if i < 0 || i >= len(rec.Keys) {
		return nil
	}
	return rec.Keys[i]
}
