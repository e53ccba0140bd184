package cdxj

import (
	"errors"
	"fmt"
)

// The causes a *ParseError wraps. Test for them with errors.Is.
var (
	// ErrLineTooLong: a line is longer than Reader.MaxLineSize bytes. The
	// reader discards the rest of that line and can go on with the next one.
	ErrLineTooLong = errors.New("line too long")
	// ErrFieldCount: a line has too few fields, or a headerless classic CDX
	// line has a field count that matches no known layout (see Layout).
	ErrFieldCount = errors.New("wrong number of fields")
	// ErrTimestamp: the timestamp field is not 4 to 17 ASCII digits forming
	// a valid date and time (month 01-12, day within the month, hour 00-23,
	// minute and second 00-59).
	ErrTimestamp = errors.New("invalid timestamp")
	// ErrJSON: the JSON block of a CDXJ line is malformed where it was read.
	// Reading the record does not check the block; asking for a field does.
	ErrJSON = errors.New("invalid JSON block")
	// ErrHeader: a " CDX" header line names no fields or a field twice in a
	// way that cannot be read.
	ErrHeader = errors.New("invalid CDX header")
	// ErrBadHeader is returned, not wrapped, by Writer.WriteHeader for a
	// line that does not start with '!' or holds a line break.
	ErrBadHeader = errors.New("cdxj: a header line starts with '!' and has no line break")
)

// ParseError reports a bad line: its 1-based line number in the input (0,
// and left out of the message, for ParseLine), the
// 1-based byte column where the problem was found (0 when it concerns the
// whole line) and the cause, which wraps one of the Err* sentinels above.
//
// Its message reads "cdxj: line 12, column 40: invalid JSON block: expected
// ':' after key \"datetime\"".
type ParseError struct {
	Line   int64 // 1-based line number in the input
	Column int   // 1-based byte column in the line, or 0
	Err    error // the cause; errors.Is(Err, ErrJSON) and so on
}

// Error returns "cdxj: line N, column C: cause" (the line and column left
// out when unknown).
func (e *ParseError) Error() string {
	if e.Line == 0 { // from ParseLine, which knows no line number
		if e.Column > 0 {
			return fmt.Sprintf("cdxj: column %d: %v", e.Column, e.Err)
		}
		return fmt.Sprintf("cdxj: %v", e.Err)
	}
	if e.Column > 0 {
		return fmt.Sprintf("cdxj: line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("cdxj: line %d: %v", e.Line, e.Err)
}

// Unwrap returns the cause, so errors.Is(err, cdxj.ErrTimestamp) works.
func (e *ParseError) Unwrap() error { return e.Err }

// causef returns an error that wraps sentinel with a detail message.
func causef(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
