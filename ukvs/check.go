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
//     "datetime" ([ParseDatetimeValue]), key or value;
//   - a frequency whose two exact counts cannot both be true: more URI-Rs
//     than mementos ("9/5"), mementos of no URI-R ("5/0"), or no memento
//     written otherwise than "0" ("0/0", "0/20");
//   - a NUL byte in a key column ([ErrNULKey]);
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
	rules := rulesOf(f)
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
		if col, err := rules.check(rec); err != nil {
			return n, &ParseError{Line: rec.Line, Column: col, Err: err}
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
				err := fmt.Errorf("%w after line %d", cause, prevLine)
				if len(rec.Keys) > 1 {
					// Name every key column of both lines: in a map
					// keyed by URI and datetime the URIs may be equal.
					err = fmt.Errorf("%w after line %d: %s %s line %d's %s", cause, prevLine, keyColumns(f, rec.Keys), map[bool]string{true: "repeats", false: "sorts before"}[c == 0], prevLine, keyColumns(f, prev))
				}
				return n, &ParseError{Line: rec.Line, Err: err, Key: string(rec.Keys[0])}
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

// keyColumns names the key columns keys of a line laid out as f:
// `surt "com,a)/" datetime "2015"`.
func keyColumns(f Fields, keys [][]byte) string {
	var b bytes.Buffer
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		name := "key"
		if i < len(f.Keys) {
			name = f.Keys[i]
		}
		if len(k) > 200 {
			k = append(k[:200:200], "..."...)
		}
		fmt.Fprintf(&b, "%s %q", name, k)
	}
	return b.String()
}

// CheckLine checks one data line (without its line terminator) laid out
// as f by the rules [Check] applies to each line: the columns f declares
// (no fewer; more only as a trailing JSON block), quotes that close, a
// "frequency" value that parses ([ParseFrequency]) with counts that can
// both be true (1 <= URI-Rs <= URI-Ms when both are exact; "0" for no
// memento), a "datetime" key or
// value that parses ([ParseDatetimeValue]) or is the placeholder "-", key
// columns without a NUL byte ([ErrNULKey], at the NUL's column), and a
// JSON block that is an object. It is the one rule of the module for a map's
// data line: Check, mementomap's Stats and its lookups use it, so that
// what one calls bad the others call bad too. It returns the cause (one
// of the causes of a *[ParseError]) and the 1-based byte column where it
// was found (0 for the whole line), for the caller to name with the line
// number it knows. rec is reused, as by [ParseLine].
func CheckLine(line []byte, f Fields, rec *Record) (int, error) {
	nkeys := len(f.Keys)
	cols, block, col, err := splitColumns(line, nkeys+len(f.Values), &rec.scratch, rec.Keys[:0:cap(rec.Keys)])
	if err != nil {
		return col, err
	}
	rec.Keys, rec.Values, rec.JSON, rec.Raw = cols[:nkeys], cols[nkeys:], block, line
	rec.freqCol = f.Index("frequency")
	return rulesOf(f).check(rec)
}

// lineRules are the columns of a layout that CheckLine reads.
type lineRules struct{ freq, dtKey, dtVal int }

func rulesOf(f Fields) lineRules {
	return lineRules{freq: f.Index("frequency"), dtKey: f.KeyIndex("datetime"), dtVal: f.Index("datetime")}
}

// check applies the rules of CheckLine to a line already split into its
// columns, returning the column of the problem and its cause.
func (r lineRules) check(rec *Record) (int, error) {
	for _, k := range rec.Keys {
		if i := bytes.IndexByte(k, 0); i >= 0 {
			if c := rec.column(k); c > 0 {
				return c + i, ErrNULKey
			}
			return 0, ErrNULKey
		}
	}
	if v := rec.Value(r.freq); v != nil {
		var f Frequency
		if err := f.UnmarshalText(v); err != nil {
			return rec.column(v), err
		}
		if reason := countsRule(f); reason != "" {
			return rec.column(v), freqErr(v, 0, reason)
		}
	}
	for _, col := range [][]byte{rec.Value(r.dtVal), keyAt(rec, r.dtKey)} {
		if col == nil || IsUnknown(col) {
			continue
		}
		if _, err := ParseDatetimeValue(string(col)); err != nil {
			return rec.column(col), err
		}
	}
	if rec.JSON != nil {
		if _, err := RelaxedJSON(rec.JSON); err != nil {
			return rec.column(rec.JSON), err
		}
	}
	return 0, nil
}

// countsRule returns why the counts of f, a data line's frequency, cannot
// both be true, or "": with both counts exact, every URI-R has at least
// one memento, so 1 <= URI-Rs <= URI-Ms, and a key that holds nothing is
// written "0" (the exclusion line), not "0/0" nor "0/N".
func countsRule(f Frequency) string {
	m, r := f.URIM, f.URIR
	if !m.Known || !r.Known || m.Bound != Exact || r.Bound != Exact {
		return ""
	}
	switch {
	case m.N == 0:
		return "an exclusion (no memento) is written 0"
	case r.N == 0:
		return "mementos of no URI-R"
	case r.N > m.N:
		return "more URI-Rs than mementos"
	}
	return ""
}

func keyAt(rec *Record, i int) []byte {
	if i < 0 || i >= len(rec.Keys) {
		return nil
	}
	return rec.Keys[i]
}
