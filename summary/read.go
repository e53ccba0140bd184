package summary

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxSummaryLine is the longest summary line SummaryReader accepts, in bytes.
// A monthly line of a key crawled for 30 years is about 200 KiB.
const MaxSummaryLine = 16 << 20

// ErrLineTooLong is the cause of a ParseError for a summary line longer than MaxSummaryLine.
var ErrLineTooLong = errors.New("summary: line too long")

// SummaryReader reads summary lines (the format written by Summarizer and
// by the original tool, with or without --compact) one at a time.
// Memory: one line.
type SummaryReader struct {
	name   string
	sc     *bufio.Scanner
	line   int64
	header []string
}

// Header returns the note lines ("!meta ...") read so far, without their
// line ends.
func (r *SummaryReader) Header() []string { return r.header }

// NewSummaryReader returns a reader of the summary r; name is used in errors.
func NewSummaryReader(r io.Reader, name string) *SummaryReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxSummaryLine)
	return &SummaryReader{name: name, sc: sc}
}

// Read returns the next line, or io.EOF. Blank lines, note lines starting
// with '!' (the "!meta" line of a summary that records skipped index lines;
// Header returns them), and a UTF-8 byte order mark at the start of the
// input, are passed over. A
// malformed line gives a *ParseError naming the line (the reader can go on
// with the next one); a line longer than MaxSummaryLine gives a ParseError
// wrapping ErrLineTooLong and ends the input.
func (r *SummaryReader) Read() (*Line, error) {
	for r.sc.Scan() {
		r.line++
		b := bytes.TrimRight(r.sc.Bytes(), "\r")
		if r.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff")) // a UTF-8 byte order mark, as Windows editors write
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if b[0] == '!' {
			r.header = append(r.header, string(b))
			continue
		}
		l, err := ParseLine(b)
		if err != nil {
			return nil, &ParseError{Name: r.name, Line: r.line, Err: err}
		}
		return l, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = ErrLineTooLong
		}
		return nil, &ParseError{Name: r.name, Line: r.line + 1, Err: err}
	}
	return nil, io.EOF
}

// ReadSummary reads a whole summary into memory (one Line per key; use
// SummaryReader to stream), called name in errors. It stops at the first
// error of [SummaryReader.Read] (a *ParseError naming the line) and
// returns it with the lines before it.
func ReadSummary(r io.Reader, name string) ([]Line, error) {
	sr := NewSummaryReader(r, name)
	var out []Line
	for {
		l, err := sr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, *l)
	}
}

// ParseLine parses one summary line, `key {"period": {"counter": n, ...}, ...}`.
// The key is the text before the first " {" (it may be empty, as the
// original writes for some records). Missing counters are zero (--compact);
// an unknown counter name, a period that is not 1 to 6 digits, a period or
// counter given twice, or a value that is not a non-negative integer that
// fits an int64 is an error.
func ParseLine(b []byte) (*Line, error) {
	i := bytes.Index(b, []byte(" {"))
	if i < 0 {
		return nil, errors.New(`no " {" after the key`)
	}
	l := &Line{Key: string(b[:i])}
	dec := json.NewDecoder(bytes.NewReader(b[i+1:]))
	dec.UseNumber()
	expect := func(want json.Delim) error {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); !ok || d != want {
			return fmt.Errorf("found %v where %q was expected", t, want)
		}
		return nil
	}
	if err := expect('{'); err != nil {
		return nil, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		p, err := ParsePeriod(t.(string))
		if err != nil {
			return nil, err
		}
		for _, q := range l.Periods {
			if q.Period == p {
				return nil, fmt.Errorf("period %s given twice", p)
			}
		}
		pc := PeriodCounters{Period: p}
		var seen [NumCounters]bool
		if err := expect('{'); err != nil {
			return nil, err
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			name := t.(string)
			idx, ok := CounterIndex(name)
			if !ok {
				return nil, fmt.Errorf("unknown counter %q in period %s", name, p)
			}
			v, err := dec.Token()
			if err != nil {
				return nil, err
			}
			num, ok := v.(json.Number)
			if !ok {
				return nil, fmt.Errorf("counter %s of period %s is %v, not a number", name, p, v)
			}
			n, err := strconv.ParseInt(string(num), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("counter %s of period %s: %v", name, p, err)
			}
			if n < 0 {
				return nil, fmt.Errorf("counter %s of period %s is negative (%d)", name, p, n)
			}
			if seen[idx] {
				return nil, fmt.Errorf("counter %s given twice in period %s", name, p)
			}
			seen[idx] = true
			pc.Counters[idx] = n
		}
		if err := expect('}'); err != nil {
			return nil, err
		}
		l.Periods = append(l.Periods, pc)
	}
	if err := expect('}'); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object")
	}
	return l, nil
}
