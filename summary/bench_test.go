package summary

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"io"
	"testing"
)

// benchInput builds n sorted CDXJ lines in the Common Crawl style (about 330
// bytes each): 50 captures per host, 5 hosts per domain.
func benchInput(n int) []byte {
	var b bytes.Buffer
	mimes := []string{"text/html", "image/jpeg", "text/css", "application/javascript", "application/pdf"}
	for i := 0; i < n; i++ {
		dom, host := i/250, (i/50)%5
		fmt.Fprintf(&b, `com,site%06d,h%d)/page/%d 20%02d0101120000 {"url": "https://h%d.site%06d.com/page/%d", "mime": "%s", "mime-detected": "%s", "status": "%d", "digest": "AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH", "length": "%d", "offset": "%d", "filename": "crawl-data/CC-MAIN-2024-10/segments/1707947473347.0/warc/CC-MAIN-20240220211055-20240221001055-00000.warc.gz"}`+"\n",
			dom, host, i, 10+i%15, host, dom, i, mimes[i%5], mimes[i%5], []int{200, 200, 200, 301, 404}[i%5], 1000+i%5000, i*1234)
	}
	return b.Bytes()
}

// BenchmarkSummarize measures the default summary (registrable-domain keys,
// yearly) over CDXJ read with package cdxj. Target: 2,000,000 lines/s on
// one core.
func BenchmarkSummarize(b *testing.B) {
	const n = 20000
	in := benchInput(n)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	s := New(&Options{MaxYear: 2030})
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if err := s.ReadIndex(context.Background(), cdxj.NewStream("bench", bytes.NewReader(in), nil), false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		// Throughput per CPU-second: the figure for one core when other
		// processes share the machine.
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "lines/cpu-s")
	}
	if _, err := s.WriteTo(io.Discard); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAdd measures the summarizer alone, without index parsing.
func BenchmarkAdd(b *testing.B) {
	c := Capture{IndexKey: "com,example,www)/a/b", Timestamp: "20200101000000", URL: "https://www.example.com/a/b", MIME: "text/html; charset=utf-8", Status: 200, Length: 1234}
	s := New(&Options{MaxYear: 2030})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := s.Add(&c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompat measures the emulation of the original tool.
func BenchmarkCompat(b *testing.B) {
	const n = 5000
	in := benchInput(n)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		c := NewCompat(false, false, nil)
		if err := c.ReadFile("bench", bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "lines/cpu-s")
	}
}

// Add makes no allocation per capture once its key and period exist, even
// when hosts change on every line (the hot path of a sorted index is a run
// of one host; an unsorted one changes host all the time).
func TestAddDoesNotAllocate(t *testing.T) {
	caps := []Capture{
		{IndexKey: "uk,co,bbc,news)/a", Timestamp: "20200101000000", URL: "https://news.bbc.co.uk/a", MIME: "text/html", Status: 200, Length: 10},
		{IndexKey: "uk,co,bbc,www)/b", Timestamp: "20210101000000", URL: "http://www.bbc.co.uk/b", MIME: "image/png", Status: 200, Length: 20},
		{IndexKey: "192,0,2,1)/", Timestamp: "20200101000000", URL: "http://192.0.2.1/", MIME: "text/html", Status: 200, Length: 5},
		{IndexKey: "dns:example.com", Timestamp: "20200101000000", URL: "dns:example.com", MIME: "text/dns", Status: 200, Length: 5},
		{IndexKey: "com,example)/", Timestamp: "20200101000000", URL: "http://example.com/", MIME: "text/html", Status: 404, Length: 5},
	}
	s := New(&Options{MaxYear: 2030})
	for i := range caps {
		s.Add(&caps[i])
	}
	allocs := testing.AllocsPerRun(100, func() {
		for i := range caps {
			if err := s.Add(&caps[i]); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("Add allocates %.1f times per %d captures, want 0", allocs, len(caps))
	}
}

// BenchmarkDaily measures the daily per-organization series (SHA-1 record
// identifiers, all remembered).
func BenchmarkDaily(b *testing.B) {
	const n = 20000
	in := benchInput(n)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d := NewDaily(nil)
		if err := d.ReadIndex(context.Background(), cdxj.NewStream("bench", bytes.NewReader(in), nil), false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
