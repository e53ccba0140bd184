package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/mementokit/mementokit/internal/flagvalue"
)

// spanLines reads the lookup inputs of r ("URI" or "URI DATETIME", one a
// line, as mementomap.Map.LookupAllAt reads them) and writes each DATETIME
// that flagvalue.ParseSpan reads but that is not already timestamp digits
// (an RFC 3339 instant, a range of them) as its digits, the line's URI and
// end kept: so a standard input line's datetime is read by the rule of
// -at and of an argument's. Every other line is passed on as it is: one
// without a datetime, one whose datetime is digits or a range of them,
// one whose datetime is none (LookupAllAt then refuses it, naming the
// line), and one longer than the buffer. Memory: one buffer of 64 KiB.
type spanLines struct {
	br      *bufio.Reader
	pending []byte
	long    bool // within a line longer than the buffer
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
		if !s.long && err != bufio.ErrBufferFull {
			line = spanDigits(line)
		}
		s.long = err == bufio.ErrBufferFull
		if err != nil && err != bufio.ErrBufferFull {
			s.err = err
		}
		s.pending = line
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// spanDigits returns line (its end included) with its DATETIME written as
// timestamp digits where spanLines says so, else line itself.
func spanDigits(line []byte) []byte {
	body := bytes.TrimRight(line, "\r\n")
	in := strings.TrimSpace(string(body))
	i := strings.IndexAny(in, " \t")
	if in == "" || in[0] == '#' || i < 0 {
		return line
	}
	dt := strings.TrimSpace(in[i+1:])
	if strings.Trim(dt, "0123456789:") == "" {
		return line // digits, or a range of them: the library's own form
	}
	d, err := flagvalue.ParseSpan(dt)
	if err != nil {
		return line
	}
	return append([]byte(in[:i]+" "+d), line[len(body):]...)
}
