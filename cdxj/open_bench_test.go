package cdxj

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var walkFile = flag.String("walkfile", "", "BenchmarkOpenWalk: the index to walk (a file or cluster; default: 200,000 generated lines, plain, gzip and cluster)")

// walkSources returns the sources BenchmarkOpenWalk walks: -walkfile, or
// the same generated lines as a plain file, a gzip file of one member and
// a ZipNum cluster.
func walkSources(b *testing.B) map[string]string {
	if *walkFile != "" {
		return map[string]string{filepath.Base(*walkFile): *walkFile}
	}
	dir := b.TempDir()
	data := benchLines(200000)
	plain := filepath.Join(dir, "index.cdxj")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		b.Fatal(err)
	}
	gzPath := filepath.Join(dir, "index.cdxj.gz")
	if err := os.WriteFile(gzPath, gz(b, string(data)), 0o644); err != nil {
		b.Fatal(err)
	}
	lines := sortedLines(data)
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
	return map[string]string{"plain": plain, "gzip": gzPath, "cluster": w.IdxPath()}
}

// BenchmarkOpenWalk walks a whole index with Open and Records(Query{}).
// The "records" runs take what a walk gives parsed (key and validated
// timestamp) from every record; the "fields" runs also ask for status and
// length, which scans the JSON block, as a summary does. One op is one
// walk; lines/cpu-s is the figure to compare with wc -l (plain) and
// gzip -dc | wc -l (gzip) on the same file. Run with -walkfile for a real
// file (go test -run NONE -bench OpenWalk -benchtime 1x -walkfile
// /tmp/16m.cdxj.gz ./cdxj).
func BenchmarkOpenWalk(b *testing.B) {
	for name, path := range walkSources(b) {
		b.Run(name+"/records", func(b *testing.B) { benchWalk(b, path, false) })
		b.Run(name+"/fields", func(b *testing.B) { benchWalk(b, path, true) })
	}
}

func benchWalk(b *testing.B, path string, fields bool) {
	{
		{
			b.ReportAllocs()
			cpu := startCPU()
			var lines, size int64
			for b.Loop() {
				ix, err := Open(context.Background(), path, nil)
				if err != nil {
					b.Fatal(err)
				}
				var sink int
				for rec, err := range ix.Records(Query{}) {
					if err != nil {
						b.Fatal(err)
					}
					sink += len(rec.Key()) + len(rec.Timestamp())
					if fields {
						l, _ := rec.Length()
						sink += rec.Status() + int(l)
					}
					lines++
					size += int64(len(rec.Line())) + 1
				}
				ix.Close()
				_ = sink
			}
			b.SetBytes(size / int64(b.N))
			b.ReportMetric(float64(lines)/float64(b.N), "lines/op")
			b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
			if secs, ok := cpu(); ok && secs > 0 {
				b.ReportMetric(float64(lines)/secs, "lines/cpu-s")
				b.ReportMetric(secs/float64(b.N), "cpu-s/op")
			}
		}
	}
}

// sortedLines returns the lines of data sorted byte-wise.
func sortedLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		lines = append(lines, data[:i])
		data = data[i+1:]
	}
	slices.SortFunc(lines, bytes.Compare)
	return lines
}
