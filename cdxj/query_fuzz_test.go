package cdxj

import (
	"bytes"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
)

// FuzzSortedQuery: for any set of lines (sorted here) and any query, the
// binary search answers what a full scan answers, and never panics.
func FuzzSortedQuery(f *testing.F) {
	f.Add("com,example)/ 20140101000000 {}\ncom,example)/a 2015\ncom,example,www)/ 2016\n", "com,example)/", uint8(0), "2014", "")
	f.Add("a 1\n\nb 2\r\n!meta {}\n CDX N b\nc 3", "b", uint8(1), "", "")
	f.Add("k 200101011200\nk 20010101115959\nk 2014\nk 20141231235959999\n", "k", uint8(0), "2014", "2014")
	f.Add("org,a)/ 2012\norg,a,b)/ 2013\norg,a-b)/ 2014\n", "org,a", uint8(3), "", "2013")
	f.Add("0", "0", uint8(0), "", "") // a line with a key and nothing else
	f.Fuzz(func(t *testing.T, content, key string, match uint8, from, to string) {
		var lines []string
		for _, l := range strings.Split(content, "\n") {
			l = strings.TrimRight(l, "\r")
			if !isBlankLine([]byte(l)) && !isHeaderLine([]byte(l)) && !strings.Contains(l, "\r") {
				lines = append(lines, l)
			}
		}
		sort.Strings(lines)
		data := strings.Join(lines, "\n")
		q := Query{Key: key, Match: MatchType(match % 4), From: from, To: to}
		s := NewSorted(strings.NewReader(data), int64(len(data)))
		var got []string
		var qerr error
		for line, err := range s.Lines(q) {
			if err != nil {
				qerr = err
				break
			}
			got = append(got, string(line))
		}
		if qerr != nil {
			if !errors.Is(qerr, ErrQuery) {
				t.Fatalf("%+v: %v", q, qerr)
			}
			return
		}
		if want := reference(t, lines, q); !slices.Equal(got, want) {
			t.Fatalf("%+v over %q:\n got %q\nwant %q", q, data, got, want)
		}
	})
}

// FuzzParseIdxLine: the secondary-index parser never panics, and what it
// accepts has a usable location.
func FuzzParseIdxLine(f *testing.F) {
	f.Add([]byte("com,example)/ 20140101000000\tcdx-00000.gz\t0\t186016\t1"))
	f.Add([]byte(`com,example)/ 20201007212236 {"offset": "7", "length": 194, "filename": "b.gz", "lineno": 3}`))
	f.Add([]byte(`a {"offset": 1e3, "length": -1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseIdxLine(line, "default.gz")
		if err != nil {
			if !errors.Is(err, ErrZipNum) {
				t.Fatalf("%q: error %v does not wrap ErrZipNum", line, err)
			}
			return
		}
		if e.Offset < 0 || e.Length <= 0 || e.Part == "" {
			t.Fatalf("%q: accepted %+v", line, e)
		}
		if !bytes.HasPrefix(line, []byte(e.Key)) {
			t.Fatalf("%q: key %q is not its prefix", line, e.Key)
		}
	})
}

// FuzzClusterQuery: the same property through a ZipNum cluster with tiny
// blocks, so that matches straddle block boundaries.
func FuzzClusterQuery(f *testing.F) {
	f.Add("com,example)/ 2014\ncom,example)/ 2014\ncom,example)/ 2015\ncom,example)/a 2015\ncom,example,www)/ 2016\n", "com,example)/", uint8(0), "2015", "", uint8(1))
	f.Add("a 1\nb 2\nb 3\nb 4\nc 5", "b", uint8(1), "", "", uint8(2))
	f.Add("x 2014 {}\ny {}\n", "x", uint8(2), "", "2014", uint8(3))
	f.Fuzz(func(t *testing.T, content, key string, match uint8, from, to string, perBlock uint8) {
		var lines []string
		for _, l := range strings.Split(content, "\n") {
			if !isBlankLine([]byte(l)) && !isHeaderLine([]byte(l)) && !strings.ContainsAny(l, "\r\t") {
				lines = append(lines, l)
			}
		}
		sort.Strings(lines)
		q := Query{Key: key, Match: MatchType(match % 4), From: from, To: to}
		if _, err := q.compile(); err != nil {
			return
		}
		c := buildCluster(t, t.TempDir(), "f", lines, &ClusterOptions{LinesPerBlock: int(perBlock%4) + 1, BlocksPerPart: 2, Level: 1})
		if got, want := collect(t, c, q), reference(t, lines, q); !slices.Equal(got, want) {
			t.Fatalf("%+v over %q:\n got %q\nwant %q", q, lines, got, want)
		}
	})
}
