package ukvs

import (
	"errors"
	"fmt"
	"strings"
)

// Causes of a *[ParseError] (compare with [errors.Is]). [ErrFrequency] and
// [ErrDatetimeValue] are also possible causes, from [Check].
var (
	// ErrFieldCount: a data line has fewer columns than !fields declares, or
	// more columns followed by something that is not a JSON block.
	ErrFieldCount = errors.New("wrong number of columns")
	// ErrQuote: a quoted column has no closing quote, or the closing quote is
	// followed by something other than white space.
	ErrQuote = errors.New("bad quoted column")
	// ErrJSON: a trailing block or a header value is not single-line JSON.
	ErrJSON = errors.New("invalid JSON block")
	// ErrHeader: a header line is malformed (no name, or a !fields header
	// whose keys or values are not lists of strings).
	ErrHeader = errors.New("malformed header")
	// ErrLateHeader: a "!" header line follows a data line.
	ErrLateHeader = errors.New("header line after the first data line")
	// ErrLineTooLong: a line is longer than the reader's MaxLineLength.
	ErrLineTooLong = errors.New("line too long")
	// ErrOutOfOrder: a data line's key sorts before the previous line's key
	// (byte-wise, column by column).
	ErrOutOfOrder = errors.New("key out of byte-wise order")
	// ErrDuplicateKey: a data line repeats the previous line's key.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrNULKey: a key column holds a NUL byte (0x00), which no URI,
	// SURT or datetime holds; the column is where the NUL is.
	ErrNULKey = errors.New("NUL byte in a key")
)

// ParseError is the error of [Reader.Read], [Check] and [Writer.Write] for
// a bad line. Line is 1-based and counts every physical line of the input
// (headers and blank lines included), so it matches what an editor or
// `sed -n Np` shows. Column is the 1-based byte column where the problem
// was found, or 0 when the whole line is at fault.
type ParseError struct {
	Line   int64  // 1-based line number in the input
	Column int    // 1-based byte column, 0 if not applicable
	Err    error  // the cause, one of the Err* variables or a wrapped detail
	Key    string // the offending key for ErrOutOfOrder/ErrDuplicateKey, else ""
}

// Error formats the error as "ukvs: line N[, column C]: cause [(key "K")]".
func (e *ParseError) Error() string {
	var s string
	cause := strings.TrimPrefix(fmt.Sprint(e.Err), "ukvs: ")
	if e.Column > 0 {
		s = fmt.Sprintf("ukvs: line %d, column %d: %s", e.Line, e.Column, cause)
	} else {
		s = fmt.Sprintf("ukvs: line %d: %s", e.Line, cause)
	}
	if e.Key != "" {
		s += fmt.Sprintf(" (key %q)", e.Key)
	}
	return s
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }
