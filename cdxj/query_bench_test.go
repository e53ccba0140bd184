package cdxj

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchFiles writes a sorted CDXJ file of about 170,000 lines (40 MB) and
// a ZipNum cluster of the same lines, once per benchmark binary.
func benchFiles(b *testing.B) (sortedPath, idxPath string, data []byte) {
	b.Helper()
	data = syntheticIndex(60_000)
	dir := b.TempDir()
	sortedPath = filepath.Join(dir, "index.cdxj")
	if err := os.WriteFile(sortedPath, data, 0o644); err != nil {
		b.Fatal(err)
	}
	w, err := CreateCluster(dir, "cluster", nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.WriteLines(bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	return sortedPath, w.IdxPath(), data
}

func benchQueries(b *testing.B, s Searcher) {
	keys := make([]string, 512)
	for i := range keys {
		keys[i] = fmt.Sprintf("com,example%08d)/", (i*7919)%60_000)
	}
	b.ReportAllocs()
	lines := 0
	i := 0
	for b.Loop() {
		for line, err := range s.Lines(Query{Key: keys[i%len(keys)], From: "2014", To: "2015"}) {
			if err != nil {
				b.Fatal(err)
			}
			_ = line
			lines++
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
	if lines == 0 {
		b.Fatal("no line matched")
	}
}

// BenchmarkSortedExactQuery: an exact-key TimeMap query by binary search
// in a 40 MB sorted CDXJ file.
func BenchmarkSortedExactQuery(b *testing.B) {
	path, _, _ := benchFiles(b)
	s, err := OpenFile(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchQueries(b, s)
}

// BenchmarkClusterExactQuery: the same queries through a ZipNum cluster of
// 3000-line blocks (one block decompressed per query).
func BenchmarkClusterExactQuery(b *testing.B) {
	_, idx, _ := benchFiles(b)
	c, err := OpenCluster(idx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchQueries(b, c)
}

// BenchmarkClusterScan reads every line of a cluster (decompression speed).
func BenchmarkClusterScan(b *testing.B) {
	_, idx, data := benchFiles(b)
	c, err := OpenCluster(idx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, err := range c.Lines(Query{Match: MatchPrefix}) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkClusterWrite builds a cluster (gzip at the default level).
func BenchmarkClusterWrite(b *testing.B) {
	data := syntheticIndex(20_000)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	dir := b.TempDir()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := CreateCluster(dir, "c", nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range lines {
			if err := w.WriteLine(l); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
