package columnar

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
)

// BenchmarkExport exports 200,000 cdxgen lines (sorted, SURT-keyed CDXJ,
// the lines internal/bench/columnar measures at 16 M) to one Parquet file;
// one op is one line. cpu-ns/op is the process's user+system CPU per line
// (the machine is shared: wall time per op says little); file-B/line is
// the table's size per line.
func BenchmarkExport(b *testing.B) {
	var idx bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 200_000, Seed: 1}).Write(&idx); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.SetBytes(int64(idx.Len()) / 200_000)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	out := filepath.Join(dir, "t.parquet")
	for done := 0; done < b.N; {
		t, err := Create(out, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := t.ReadIndex(context.Background(), cdxj.NewStream("index.cdxj", bytes.NewReader(idx.Bytes()), nil), "index.cdxj", false); err != nil {
			b.Fatal(err)
		}
		if err := t.Commit(); err != nil {
			b.Fatal(err)
		}
		done += int(t.Stats().Rows)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	st, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/200_000, "file-B/line")
}

// cpuTime returns the process's user plus system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
