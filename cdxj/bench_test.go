package cdxj

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/timestamp"
)

// reportSpeed reports lines per wall-clock second and, where the process's
// CPU time is known, lines per CPU-second (the figure that holds on a busy
// machine; run with -cpu 1 so that it is one core's).
func reportSpeed(b *testing.B, cpu0 func() (float64, bool)) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	if secs, ok := cpu0(); ok && secs > 0 {
		b.ReportMetric(float64(b.N)/secs, "lines/cpu-s")
	}
}

// startCPU returns a function giving the CPU seconds used since its call.
func startCPU() func() (float64, bool) {
	start, ok := processCPU()
	return func() (float64, bool) {
		end, ok2 := processCPU()
		return (end - start).Seconds(), ok && ok2
	}
}

// cycle is an endless reader repeating its data.
type cycle struct {
	data []byte
	pos  int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.data[c.pos:])
		n += k
		c.pos = (c.pos + k) % len(c.data)
	}
	return n, nil
}

// benchLines returns n distinct pywb-style CDXJ lines (about 250 bytes each)
// and their total size.
func benchLines(n int) []byte {
	var b []byte
	mimes := []string{"text/html", "image/jpeg", "application/javascript", "warc/revisit"}
	for i := range n {
		b = fmt.Appendf(b, `com,example,www%d)/path/%d/page.html?id=%d 2017%02d%02d%02d%02d%02d {"url": "https://www%d.example.com/path/%d/page.html?id=%d", "mime": %q, "status": "%d", "digest": "sha1:G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", "length": "%d", "offset": "%d", "filename": "crawl-%d.warc.gz"}`+"\n",
			i%97, i, i*7, i%12+1, i%28+1, i%24, i%60, i%60, i%97, i, i*7, mimes[i%4], 200+i%3, 1000+i, i*1000, i%50)
	}
	return b
}

// BenchmarkReadCDXJ reads CDXJ lines and takes key, timestamp, MIME,
// status and length from each: one op is one line.
func BenchmarkReadCDXJ(b *testing.B) {
	data := benchLines(10000)
	r := NewReader(&cycle{data: data})
	r.ReuseRecord = true
	b.SetBytes(int64(len(data) / 10000))
	b.ReportAllocs()
	var sink int
	cpu := startCPU()
	for b.Loop() {
		rec, err := r.Read()
		if err != nil {
			b.Fatal(err)
		}
		l, _ := rec.Length()
		sink += len(rec.Key()) + len(rec.Timestamp()) + len(rec.MIME()) + rec.Status() + int(l)
	}
	reportSpeed(b, cpu)
	_ = sink
}

// BenchmarkCheckJSON checks the JSON block of pywb-style CDXJ lines whole
// (what a build does to every line): one op is one line.
func BenchmarkCheckJSON(b *testing.B) {
	data := benchLines(10000)
	var recs []*Record
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		r, err := ParseLine(l, nil)
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, r)
	}
	b.SetBytes(int64(len(data) / 10000))
	b.ReportAllocs()
	i := 0
	cpu := startCPU()
	for b.Loop() {
		r := recs[i%len(recs)]
		i++
		r.jx.reset()
		if err := r.CheckJSON(); err != nil {
			b.Fatal(err)
		}
	}
	reportSpeed(b, cpu)
}

// BenchmarkReadCDX11 does the same for classic 11-column CDX lines.
func BenchmarkReadCDX11(b *testing.B) {
	var data []byte
	for i := range 10000 {
		data = fmt.Appendf(data, "com,example,www%d)/path/%d 2017%02d%02d%02d%02d%02d https://www%d.example.com/path/%d text/html %d G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK - - %d %d crawl-%d.warc.gz\n",
			i%97, i, i%12+1, i%28+1, i%24, i%60, i%60, i%97, i, 200+i%3, 1000+i, i*1000, i%50)
	}
	r := NewReader(&cycle{data: data})
	r.ReuseRecord = true
	b.SetBytes(int64(len(data) / 10000))
	b.ReportAllocs()
	var sink int
	cpu := startCPU()
	for b.Loop() {
		rec, err := r.Read()
		if err != nil {
			b.Fatal(err)
		}
		l, _ := rec.Length()
		sink += len(rec.Key()) + len(rec.Timestamp()) + len(rec.MIME()) + rec.Status() + int(l)
	}
	reportSpeed(b, cpu)
	_ = sink
}

// BenchmarkWriteCDXJ reads CDXJ lines and writes them back through Writer.
func BenchmarkWriteCDXJ(b *testing.B) {
	data := benchLines(1000)
	r := NewReader(&cycle{data: data})
	r.ReuseRecord = true
	w := NewWriter(io.Discard)
	b.SetBytes(int64(len(data) / 1000))
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		rec, err := r.Read()
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
	reportSpeed(b, cpu)
}

// BenchmarkInRange tests one 14-digit timestamp against from/to bounds, as
// a query does for each candidate line.
func BenchmarkInRange(b *testing.B) {
	lo, hi, err := timestamp.Bounds("2014", "201406")
	if err != nil {
		b.Fatal(err)
	}
	ts := []byte("20140315120000")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if timestamp.InRange(ts, lo, hi) {
			n++
		}
	}
	if n == 0 {
		b.Fatal("not in range")
	}
}

// BenchmarkReadCommonCrawl reads the shipped Common Crawl CDXJ lines (about
// 400 bytes each, ten JSON members), taking key, timestamp, MIME, status
// and length.
func BenchmarkReadCommonCrawl(b *testing.B) {
	data, err := sampledata.ReadFile("real/cc_commoncrawl-org_from-cdxapi.cdxj")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	r := NewReader(&cycle{data: data})
	r.ReuseRecord = true
	b.SetBytes(int64(len(data) / lines))
	b.ReportAllocs()
	var sink int
	cpu := startCPU()
	for b.Loop() {
		rec, err := r.Read()
		if err != nil {
			b.Fatal(err)
		}
		l, _ := rec.Length()
		sink += len(rec.Key()) + len(rec.Timestamp()) + len(rec.MIME()) + rec.Status() + int(l)
	}
	reportSpeed(b, cpu)
	_ = sink
}
