package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mementokit/mementokit/internal/flagvalue"
)

// TestSpanLines: spanLines writes an RFC 3339 datetime of an input line as
// its digits, a line longer than its buffer too, and passes every other
// line on byte for byte: digits, no datetime, comments, blank lines, a
// datetime that is none, a last line without its end, read in one-byte
// reads too; the first line whose datetime is none is kept as refused,
// with flagvalue.ParseSpan's error, named by its line number as
// mementomap.Map.LookupAllAt counts lines.
func TestSpanLines(t *testing.T) {
	uri := "http://example.com/" + strings.Repeat("a", 70<<10)
	in := "a 2015-03-14T13:00:00+01:00\r\n" + "b 2015\n" + "c\n" + "\n" + "# d 2015-03-14T12:00:00Z\n" +
		"e soon\n" + uri + " 2015-03-14T12:00:00Z\n" + "  f\t2015-03-14T12:00:00.5Z:2016  \n" + "g 2015-03-14T12:00:00Z\n" +
		"h 201513\n" + "i 2015-03-14T12:00:00Z"
	want := "a 20150314120000\r\n" + "b 2015\n" + "c\n" + "\n" + "# d 2015-03-14T12:00:00Z\n" +
		"e soon\n" + uri + " 20150314120000\n" + "f 20150314120000500:2016\n" + "g 20150314120000\n" +
		"h 201513\n" + "i 20150314120000"
	_, soon := flagvalue.ParseSpan("soon")
	for name, mk := range map[string]func() (io.Reader, *spanLines){
		"whole": func() (io.Reader, *spanLines) { s := newSpanLines(strings.NewReader(in)); return s, s },
		"one byte": func() (io.Reader, *spanLines) {
			s := newSpanLines(iotest.OneByteReader(strings.NewReader(in)))
			return iotest.OneByteReader(s), s
		},
	} {
		r, s := mk()
		got, err := io.ReadAll(r)
		if err != nil || string(got) != want {
			t.Errorf("%s: %v; got %d bytes, want %d:\n%.300q\n%.300q", name, err, len(got), len(want), got, want)
		}
		if wantErr := `lookup input line 6 "e soon": ` + soon.Error(); fmt.Sprint(s.refused) != wantErr || !errors.Is(s.refused, flagvalue.ErrDatetime) {
			t.Errorf("%s: refused %v, want %s", name, s.refused, wantErr)
		}
		if s.n != 11 {
			t.Errorf("%s: %d lines counted, want 11", name, s.n)
		}
	}
	if err := iotest.TestReader(newSpanLines(strings.NewReader(in)), []byte(want)); err != nil {
		t.Error(err)
	}
}
