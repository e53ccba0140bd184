package memento

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
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
		fmt.Fprintf(&b, "<http://127.0.0.1:%d/web/%s/%s>; rel=%q; datetime=%q,\n", 19002+i%2, FormatTimestamp(t), r, rel, FormatHTTPDate(t))
	}
	fmt.Fprintf(&b, "<%stimemap/link/%s>; rel=\"timemap\"; type=\"application/link-format\",\n", agg, r)
	fmt.Fprintf(&b, "<%stimegate/%s>; rel=\"timegate\"\n", agg, r)
	return b.Bytes()
}

// BenchmarkReadTimeMap2000 parses a 2,000-memento TimeMap (about 290 kB)
// with ReadTimeMap in the default lenient mode and checks that every
// memento is recovered. Target: 150 MB/s or more.
func BenchmarkReadTimeMap2000(b *testing.B) {
	for _, strict := range []bool{false, true} {
		name := "lenient"
		if strict {
			name = "strict"
		}
		b.Run(name, func(b *testing.B) {
			data := bigTimeMap(2000)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				tm, err := ReadTimeMap(bytes.NewReader(data), &ParseOptions{Strict: strict})
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
