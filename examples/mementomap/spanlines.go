package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
)

// spanLines reads the lookup inputs of r ("URI" or "URI DATETIME", one a
// line, as mementomap.Map.LookupAllAt reads them) and checks every
// DATETIME by flagvalue.ParseSpan, the rule of -at and of an argument's:
// one that it reads but that is not already timestamp digits (an RFC 3339
// instant, a range of them) is written as its digits, the line's URI and
// end kept. Every other line is passed on as it is: one without a
// datetime, one whose datetime is digits or a range of them, one longer
// than mementomap.MaxLineLength, and one whose datetime ParseSpan refuses.
// LookupAllAt refuses the last kind too (its rule takes digits only, and
// the digits and ranges that ParseSpan takes), and the first of them is
// kept in refused, ParseSpan's error naming the line, so that the command
// reports the one rule's message ([spanLines.firstError]). Lines are
// counted as LookupAllAt counts them. Memory: one buffer of 64 KiB and a
// line of at most MaxLineLength bytes.
type spanLines struct {
	br      *bufio.Reader
	pending []byte
	long    []byte // a line longer than the buffer, gathered
	through bool   // within a line longer than MaxLineLength
	n       int64  // input lines begun
	refused error  // the first line's error whose DATETIME ParseSpan refuses
	err     error
}

func newSpanLines(r io.Reader) *spanLines {
	return &spanLines{br: bufio.NewReaderSize(r, 64<<10)}
}

// Read implements io.Reader.
func (s *spanLines) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		line, err := s.br.ReadSlice('\n')
		switch {
		case s.through:
			// The rest of a line too long to look up: passed on.
		case err == bufio.ErrBufferFull:
			s.n++
			s.long = append(s.long[:0], line...)
			for err == bufio.ErrBufferFull && len(s.long) <= mementomap.MaxLineLength {
				line, err = s.br.ReadSlice('\n')
				s.long = append(s.long, line...)
			}
			line = s.long
			if err != bufio.ErrBufferFull && len(line) <= mementomap.MaxLineLength {
				line = s.spanDigits(line)
			}
		case len(line) > 0:
			s.n++
			line = s.spanDigits(line)
		}
		s.through = err == bufio.ErrBufferFull
		if err != nil && err != bufio.ErrBufferFull {
			s.err = err
		}
		s.pending = line
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// spanDigits returns line s.n (its end included) with its DATETIME written
// as timestamp digits where spanLines says so, else line itself.
func (s *spanLines) spanDigits(line []byte) []byte {
	body := bytes.TrimRight(line, "\r\n")
	in := strings.TrimSpace(string(body))
	i := strings.IndexAny(in, " \t")
	if in == "" || in[0] == '#' || i < 0 {
		return line
	}
	dt := strings.TrimSpace(in[i+1:])
	d, err := flagvalue.ParseSpan(dt)
	if err != nil {
		if s.refused == nil {
			q := in
			if len(q) > 200 {
				q = q[:200] + "…"
			}
			s.refused = fmt.Errorf("lookup input line %d %q: %w", s.n, q, err)
		}
		return line
	}
	if strings.Trim(dt, "0123456789:") == "" {
		return line // digits, or a range of them: the library's own form
	}
	return append([]byte(in[:i]+" "+d), line[len(body):]...)
}

// firstError is the error to report for the first input that LookupAllAt
// could not look up, whose error is first: ParseSpan's for the first line
// whose DATETIME it refused, when that is the line LookupAllAt names, else
// first. The lines before the first refused one carry datetimes that
// LookupAllAt takes, so when its first error is a datetime's
// (mementomap.ErrDatetime), it is that line's.
func (s *spanLines) firstError(first error) error {
	if s.refused != nil && errors.Is(first, mementomap.ErrDatetime) {
		return s.refused
	}
	return first
}
