package main

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSpanLines: spanLines writes an RFC 3339 datetime of an input line as
// its digits and passes every other line on byte for byte: digits, no
// datetime, comments, blank lines, a datetime that is none, a last line
// without its end, and a line longer than its buffer, read in one-byte
// reads too.
func TestSpanLines(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("a", 70<<10) + " 2015-03-14T12:00:00Z\n"
	in := "a 2015-03-14T13:00:00+01:00\r\n" + "b 2015\n" + "c\n" + "\n" + "# d 2015-03-14T12:00:00Z\n" +
		"e soon\n" + long + "  f\t2015-03-14T12:00:00.5Z:2016  \n" + "g 2015-03-14T12:00:00Z"
	want := "a 20150314120000\r\n" + "b 2015\n" + "c\n" + "\n" + "# d 2015-03-14T12:00:00Z\n" +
		"e soon\n" + long + "f 20150314120000500:2016\n" + "g 20150314120000"
	for name, r := range map[string]io.Reader{
		"whole":    newSpanLines(strings.NewReader(in)),
		"one byte": iotest.OneByteReader(newSpanLines(iotest.OneByteReader(strings.NewReader(in)))),
	} {
		got, err := io.ReadAll(r)
		if err != nil || string(got) != want {
			t.Errorf("%s: %v; got %d bytes, want %d:\n%.300q\n%.300q", name, err, len(got), len(want), got, want)
		}
	}
	if err := iotest.TestReader(newSpanLines(strings.NewReader(in)), []byte(want)); err != nil {
		t.Error(err)
	}
}
