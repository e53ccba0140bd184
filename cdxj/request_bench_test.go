package cdxj

import (
	"strings"
	"testing"
)

// BenchmarkAppendObjectLine measures the conversion of one line of a pywb
// output=json answer (a real Common Crawl line) into its CDXJ line: bytes
// per second of answer.
func BenchmarkAppendObjectLine(b *testing.B) {
	rec := loadRecorded(b, "cdxtoolkit_test_multi_cc1_slow_1.jsonl")[0]
	objs := strings.Split(strings.TrimSpace(rec.Body), "\n")
	var n int64
	for _, o := range objs {
		n += int64(len(o)) + 1
	}
	b.SetBytes(n)
	b.ReportAllocs()
	var buf []byte
	var c objectConv
	for b.Loop() {
		for _, o := range objs {
			var err error
			if buf, err = c.append(buf[:0], []byte(o)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRequestRun measures a CDX server request with a filter and
// output=json over a ZipNum cluster of 3,000 lines: lines answered per
// second, as a server pays for them.
func BenchmarkRequestRun(b *testing.B) {
	lines := syntheticLines(3000)
	c := smallCluster(b, lines, 100)
	r := parseReq(b, "url=*.example.com&filter=!=status:404&output=json")
	var buf []byte
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		for rec, err := range r.Run(c, nil) {
			if err != nil {
				b.Fatal(err)
			}
			if buf, err = r.AppendRecord(buf[:0], rec); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "lines/s")
}
