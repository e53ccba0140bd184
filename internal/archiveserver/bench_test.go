package archiveserver

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/cdxgen"
)

func benchServer(b *testing.B, lines int64) (*Server, []string) {
	var buf bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: lines, Seed: 1}).Write(&buf); err != nil {
		b.Fatal(err)
	}
	idx, _, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("gen", &buf, nil)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(context.Background(), idx, &Options{BaseURL: "http://archive.test"})
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	for u := range idx.All() {
		if u.URL != "" {
			urls = append(urls, u.URL)
		}
	}
	return s, urls
}

// BenchmarkLookup: one canonicalization and binary search per URI-R; bytes
// are URL bytes.
func BenchmarkLookup(b *testing.B) {
	s, urls := benchServer(b, 100_000)
	b.ReportAllocs()
	n := 0
	for _, u := range urls[:1000] {
		n += len(u)
	}
	b.SetBytes(int64(n / 1000))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Index().Lookup(urls[i%len(urls)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTimeMap serves TimeMaps of 10 and 1,000 mementos through
// ServeHTTP (no network); bytes are response bytes.
func BenchmarkTimeMap(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var idx bytes.Buffer
			for i := 0; i < n; i++ {
				ts := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
				fmt.Fprintf(&idx, "com,example)/ %s {\"url\": \"http://example.com/\"}\n", ts.Format("20060102150405"))
			}
			s := mustServer(b, Options{}, idx.String())
			req := httptest.NewRequest("GET", "/timemap/link/http://example.com/", nil)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			b.SetBytes(int64(rec.Body.Len()))
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
			}
		})
	}
}

// sessionIndex is n captures of one SURT key, each under its own original
// URL (session ids that the SURT leaves out), as CDXJ.
func sessionIndex(n int) []byte {
	var buf bytes.Buffer
	t0 := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&buf, "com,example)/page %s {\"url\": \"http://example.com/page?sid=%d\"}\n",
			t0.Add(time.Duration(i)*time.Second).Format("20060102150405"), i)
	}
	return buf.Bytes()
}

// BenchmarkLoadIndexOneKeyManyURLs: loading stays linear when every capture
// of a key has its own URL (it was quadratic: 5.0 s per load here, now
// 0.05 s, measured on the shared 2-core machine).
// Bytes are index bytes.
func BenchmarkLoadIndexOneKeyManyURLs(b *testing.B) {
	in := sessionIndex(50_000)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("s", bytes.NewReader(in), nil)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
