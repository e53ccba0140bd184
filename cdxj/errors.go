package cdxj

import (
	"errors"
	"fmt"
)

// The causes a *ParseError wraps, besides timestamp.ErrInvalid for a
// timestamp field that is not 4 to 17 digits forming a valid date and time
// (see package timestamp). Test for them with errors.Is.
var (
	// ErrLineTooLong: a line is longer than Reader.MaxLineSize bytes. The
	// reader discards the rest of that line and can go on with the next one.
	ErrLineTooLong = errors.New("line too long")
	// ErrFieldCount: a line has too few fields, or a headerless classic CDX
	// line has a field count that matches no known layout (see Layout).
	ErrFieldCount = errors.New("wrong number of fields")
	// ErrJSON: the JSON block of a CDXJ line is malformed where it was read.
	// Reading the record does not check the block; asking for a field does.
	ErrJSON = errors.New("invalid JSON block")
	// ErrNotCapture: a line in the "datetime {json}" form (an ipwb
	// TimeMap) whose JSON block names no URL: no top-level "uri", "url"
	// or "original_uri" string member. Such a line (a date-keyed series,
	// as summarize daily writes) describes no capture; a record is a
	// capture only when a URL or SURT key, or a URL in its block, says
	// what was captured.
	ErrNotCapture = errors.New("not a capture: no URL")
	// ErrHeader: a " CDX" header line names no fields or a field twice in a
	// way that cannot be read.
	ErrHeader = errors.New("invalid CDX header")
	// ErrBadHeader is returned, not wrapped, by Writer.WriteHeader for a
	// line that does not start with '!' or holds a line break.
	ErrBadHeader = errors.New("cdxj: a header line starts with '!' and has no line break")
)

// ParseError reports a bad line: where it is (its source, its 1-based
// line number, its byte offset), the 1-based byte column where the problem
// was found (0 when it concerns the whole line) and the cause, which wraps
// one of the Err* sentinels above or timestamp.ErrInvalid.
//
// Its message reads "cdxj: index.cdxj: line 12, column 40: invalid JSON
// block: expected ':' after key \"datetime\"". ParseLine knows neither
// source nor line, and leaves them out; a query that starts in the middle
// of a sorted file knows the byte offset of a line but not its number
// ("cdxj: index.cdxj: line at byte 5120: ...").
type ParseError struct {
	// Source names the input: a file name, or for a ZipNum cluster the
	// block ("cdx-00000.gz, block at byte 1234+567"); "" when unknown.
	Source string
	// Line is the 1-based line number in the source (in a block, within
	// the block), or 0 when unknown.
	Line int64
	// Offset is the byte offset of the line's start in the source's text
	// (decompressed); it is in the message only when Line is unknown.
	Offset int64
	Column int   // 1-based byte column in the line, or 0
	Err    error // the cause; errors.Is(Err, ErrJSON) and so on
}

// Error returns "cdxj: SOURCE: line N, column C: cause", leaving out what
// is unknown.
func (e *ParseError) Error() string {
	var b []byte
	b = append(b, "cdxj: "...)
	if e.Source != "" {
		b = append(b, e.Source...)
		b = append(b, ": "...)
	}
	switch {
	case e.Line > 0:
		b = fmt.Appendf(b, "line %d", e.Line)
	case e.Offset > 0:
		b = fmt.Appendf(b, "line at byte %d", e.Offset)
	}
	if e.Column > 0 {
		if e.Line > 0 || e.Offset > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Appendf(b, "column %d", e.Column)
	}
	if e.Line > 0 || e.Offset > 0 || e.Column > 0 {
		b = append(b, ": "...)
	}
	return fmt.Sprintf("%s%v", b, e.Err)
}

// Unwrap returns the cause, so errors.Is(err, timestamp.ErrInvalid) works.
func (e *ParseError) Unwrap() error { return e.Err }

// causef returns an error that wraps sentinel with a detail message.
func causef(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
