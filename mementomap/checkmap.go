package mementomap

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mementokit/mementokit/ukvs"
)

// Causes of the errors of [CheckMap] (and of [Open] for ErrNoLineEnd), each
// inside a *ukvs.ParseError naming the line.
var (
	// ErrNoLineEnd: the file's last line does not end with "\n". A map is
	// written whole, every line ended; one that is not was cut short, and
	// its last frequency may be cut too ("10/3" read as "1/" or "1").
	ErrNoLineEnd = errors.New("the last line has no line end (\"\\n\"): the map was cut short")
	// ErrNoDataLine: the file holds no data line (it is empty, or headers
	// only). Such a map would answer absent for every URI-R.
	ErrNoDataLine = errors.New("no data line")
	// ErrFieldsTwice: a second !fields header; the layout of the data
	// lines would depend on which one a reader takes.
	ErrFieldsTwice = errors.New("a second !fields header")
)

// CheckMap reads the whole MementoMap r once and applies the one rule of a
// well-formed map, which `mementomap check`, [Map.Check] and the
// aggregator's opener use: [ukvs.Check] (headers, every data line by
// ukvs.CheckLine, keys strictly increasing), and in addition at least one
// data line ([ErrNoDataLine]), at most one !fields header
// ([ErrFieldsTwice]) and a last line that ends with "\n" ([ErrNoLineEnd]).
// A last line without "\n" is reported as ErrNoLineEnd whatever else is
// wrong with it (a map cut inside a key lacks its frequency column too).
// It returns the number of data lines read and the first problem as an
// error "NAME: ukvs: line N[, column C]: cause", wrapping the
// *ukvs.ParseError and its cause (line 1 for a map with no data line).
// Errors of r are returned as they are, after NAME; with name "" nothing
// is put before the error. Memory is bounded by two lines.
func CheckMap(name string, r io.Reader) (int64, error) {
	t := &lineTracker{r: r, atStart: true}
	n, err := ukvs.Check(t)
	if err == nil {
		// ukvs.Check stops at EOF; drain what it may have left unread.
		_, err = io.Copy(io.Discard, t)
	}
	var pe *ukvs.ParseError
	if t.fieldsTwice > 0 && (err == nil || errors.As(err, &pe) && pe.Line > t.fieldsTwice) {
		err = &ukvs.ParseError{Line: t.fieldsTwice, Column: 1, Err: ErrFieldsTwice}
	}
	if t.eof && t.bytes > 0 && t.last != '\n' && (err == nil || errors.As(err, &pe) && pe.Line > t.lines) {
		// The cut explains what is wrong with the last line.
		err = &ukvs.ParseError{Line: t.lines + 1, Err: ErrNoLineEnd}
	}
	if err == nil && n == 0 {
		err = &ukvs.ParseError{Line: max(t.lines, 1), Err: ErrNoDataLine}
	}
	if err != nil && name != "" {
		return n, fmt.Errorf("%s: %w", name, err)
	}
	return n, err
}

// lineTracker passes r through, counting lines, keeping the last byte and
// the number of the second line that starts with "!fields" (0 for none).
type lineTracker struct {
	r           io.Reader
	bytes       int64
	eof         bool  // r returned io.EOF: last is the input's last byte
	lines       int64 // "\n" bytes so far
	last        byte
	atStart     bool   // the next byte starts a line
	head        []byte // the first bytes of the current line, up to len(BOM + "!fields ")
	fields      int    // lines seen starting with "!fields"
	fieldsTwice int64
}

const fieldsPrefix = "!fields"

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	b := p[:n]
	t.bytes += int64(n)
	if n > 0 {
		t.last = b[n-1]
	}
	for len(b) > 0 {
		if t.atStart {
			t.head, t.atStart = t.head[:0], false
		}
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg = b[:i]
		}
		if want := len(utf8BOM) + len(fieldsPrefix) + 1; len(t.head) < want {
			t.head = append(t.head, seg[:min(len(seg), want-len(t.head))]...)
		}
		if i < 0 {
			break
		}
		t.endLine()
		t.lines++
		t.atStart = true
		b = b[i+1:]
	}
	if err == io.EOF {
		t.eof = true
	}
	if err == io.EOF && !t.atStart {
		t.endLine()
		t.atStart = true
	}
	return n, err
}

// endLine notes a line that starts with the header name "!fields".
func (t *lineTracker) endLine() {
	h := bytes.TrimRight(t.head, "\r")
	if t.lines == 0 {
		h = bytes.TrimPrefix(h, []byte(utf8BOM))
	}
	if !bytes.HasPrefix(h, []byte(fieldsPrefix)) {
		return
	}
	if len(h) > len(fieldsPrefix) && h[len(fieldsPrefix)] != ' ' && h[len(fieldsPrefix)] != '\t' {
		return
	}
	t.fields++
	if t.fields == 2 && t.fieldsTwice == 0 {
		t.fieldsTwice = t.lines + 1
	}
}
