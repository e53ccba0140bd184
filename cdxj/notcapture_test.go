package cdxj

import (
	"errors"
	"strings"
	"testing"
)

// A record is a capture only when something says what was captured: a
// "datetime {json}" line (the ipwb TimeMap form) must name a URL in its
// block. Lines of a date-keyed series (summarize daily's output, copied
// from a real run on openwayback_archive-org.cdx) are refused with
// ErrNotCapture at the block's column; ipwb TimeMap lines, whose block is
// broken after "uri", still read.
func TestDatetimeKeyWithoutURLIsNotACapture(t *testing.T) {
	for _, line := range []string{
		`20120101 {"51_25_20120101120954_crawl101": {"count": 1, "size": 6655, "okcount": 1, "oksize": 6655}, "toturis": 1, "totsize": 6655, "totokcount": 1, "totoksize": 6655}`,
		`20120103 {"-": {"count": 1, "size": 0, "okcount": 0, "oksize": 0}, "toturis": 1, "totsize": 0, "totokcount": 0, "totoksize": 0}`,
		`20120101 {"url": {"count": 1}}`,           // an organization named "url": not a string
		`20120101 {"count": 1, "uri" "http://x/"}`, // broken before any URL
		`20120101 {}`,
		`20120101 {"uri": 7}`,
	} {
		_, err := ParseLine([]byte(line), nil)
		var pe *ParseError
		if !errors.Is(err, ErrNotCapture) || !errors.As(err, &pe) || pe.Column != 10 {
			t.Errorf("%.50s: err = %v, want ErrNotCapture at column 10", line, err)
		}
		r := NewReader(strings.NewReader(line + "\n"))
		r.Source = "series.txt"
		if _, err := r.Read(); !errors.Is(err, ErrNotCapture) || !strings.Contains(err.Error(), "series.txt: line 1, column 10: ") {
			t.Errorf("Reader: %v", err)
		}
	}
	for _, line := range []string{
		`20130202100000 {"uri": "http://localhost:2016/memento/20130202100000/memento.us/", "rel": "first memento", "datetime"="Sat, 02 Feb 2013 10:00:00 GMT"}`,
		`20130202100000 {"rel": "memento", "url": "http://example.com/"}`,
		`20130202100000 { "x": [1, {"y": "}"}], "original_uri" : "http://example.com/" }`,
	} {
		if r, err := ParseLine([]byte(line), nil); err != nil || string(r.Key()) != "20130202100000" {
			t.Errorf("%.50s: %v, want a record keyed by its datetime", line, err)
		}
	}
}
