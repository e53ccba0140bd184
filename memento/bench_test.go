package memento

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

// bigTimeMap returns an application/link-format TimeMap of n mementos laid
// out as MemGator serves its 5,000-memento example (one link per line,
// "first memento"/"last memento", self, timemap and timegate links), one
// memento a day from 2000-01-01 12:00:00 GMT.
func bigTimeMap(n int) []byte {
	var b bytes.Buffer
	r := "http://big.example.com/"
	agg := "http://localhost:19208/"
	fmt.Fprintf(&b, "<%s>; rel=\"original\",\n", r)
	fmt.Fprintf(&b, "<%stimemap/link/%s>; rel=\"self\"; type=\"application/link-format\",\n", agg, r)
	t0 := time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range n {
		t := t0.Add(time.Duration(i) * 24 * time.Hour)
		rel := "memento"
		switch i {
		case 0:
			rel = "first memento"
		case n - 1:
			rel = "last memento"
		}
		fmt.Fprintf(&b, "<http://127.0.0.1:%d/web/%s/%s>; rel=%q; datetime=%q,\n", 19002+i%2, timestamp.Format(t), r, rel, FormatHTTPDate(t))
	}
	fmt.Fprintf(&b, "<%stimemap/link/%s>; rel=\"timemap\"; type=\"application/link-format\",\n", agg, r)
	fmt.Fprintf(&b, "<%stimegate/%s>; rel=\"timegate\"\n", agg, r)
	return b.Bytes()
}

// BenchmarkReadTimeMap2000 parses a 2,000-memento TimeMap (252,345 bytes)
// with ReadTimeMap, lenient and strict, and checks that every memento is
// recovered. Target: 150 MB/s or more.
//
// "unsized" hides the input's length, as a chunked HTTP body does, so
// the memento slice grows without a size hint.
func BenchmarkReadTimeMap2000(b *testing.B) {
	for _, mode := range []struct {
		name          string
		strict, sized bool
	}{{"lenient", false, true}, {"strict", true, true}, {"lenient-unsized", false, false}} {
		strict := mode.strict
		b.Run(mode.name, func(b *testing.B) {
			data := bigTimeMap(2000)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var r io.Reader = bytes.NewReader(data)
				if !mode.sized {
					r = struct{ io.Reader }{r}
				}
				tm, err := ReadTimeMap(r, &ParseOptions{Strict: strict})
				if err != nil {
					b.Fatal(err)
				}
				if len(tm.Mementos) != 2000 {
					b.Fatalf("recovered %d mementos, want 2000", len(tm.Mementos))
				}
			}
		})
	}
}

// BenchmarkReaderLinks reads the links of the same TimeMap without building
// a TimeMap (no datetime parsing, no sorting).
func BenchmarkReaderLinks(b *testing.B) {
	data := bigTimeMap(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), nil)
		n := 0
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 2004 {
			b.Fatalf("%d links, want 2004", n)
		}
	}
}

// BenchmarkParseLinkFormatHeader parses the Internet Archive TimeGate Link
// header of testdata case 02 (7 links, 778 bytes).
func BenchmarkParseLinkFormatHeader(b *testing.B) {
	h := `<http://www.lanl.gov>; rel="original", <http://web.archive.org/web/timemap/link/http://www.lanl.gov>; rel="timemap"; type="application/link-format", <http://web.archive.org/web/19961221031231/http://www.lanl.gov>; rel="first memento"; datetime="Sat, 21 Dec 1996 03:12:31 GMT", <http://web.archive.org/web/20030219210359/http://www.lanl.gov>; rel="prev memento"; datetime="Wed, 19 Feb 2003 21:03:59 GMT", <http://web.archive.org/web/20030320195439/http://www.lanl.gov>; rel="memento"; datetime="Thu, 20 Mar 2003 19:54:39 GMT", <http://web.archive.org/web/20030323014913/http://www.lanl.gov>; rel="next memento"; datetime="Sun, 23 Mar 2003 01:49:13 GMT", <http://web.archive.org/web/20150926154207/http://www.lanl.gov>; rel="last memento"; datetime="Sat, 26 Sep 2015 15:42:07 GMT"`
	b.SetBytes(int64(len(h)))
	b.ReportAllocs()
	for b.Loop() {
		ls, err := ParseLinkFormat(h, &ParseOptions{Base: "http://web.archive.org/web/20030320/http://www.lanl.gov"})
		if err != nil || len(ls) != 7 {
			b.Fatal(len(ls), err)
		}
	}
}

// BenchmarkParseHTTPDate parses one rfc1123-date (29 bytes).
func BenchmarkParseHTTPDate(b *testing.B) {
	s := "Thu, 20 Mar 2003 19:54:39 GMT"
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseHTTPDate(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite writes the 2,000-memento TimeMap in each format; bytes
// are those of the output.
func BenchmarkWrite(b *testing.B) {
	tm, err := ReadTimeMap(bytes.NewReader(bigTimeMap(2000)), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name string
		f    func(io.Writer, *TimeMap) error
	}{{"link", WriteLinkFormat}, {"json", WriteJSON}, {"cdxj", WriteCDXJ}} {
		b.Run(w.name, func(b *testing.B) {
			var out bytes.Buffer
			if err := w.f(&out, tm); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(out.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := w.f(io.Discard, tm); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClosest selects the closest memento among 2,000 (binary search).
func BenchmarkClosest(b *testing.B) {
	tm, err := ReadTimeMap(bytes.NewReader(bigTimeMap(2000)), nil)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2003, 6, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		if tm.ClosestIndex(at) < 0 {
			b.Fatal("none")
		}
	}
}
