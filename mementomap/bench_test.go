package mementomap

import (
	"bytes"
	"context"
	"github.com/mementokit/mementokit/cdxj"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/cdxgen"
)

var benchData struct {
	once  sync.Once
	index []byte // generated CDXJ
	base  []byte // its baseline map
	keys  []string
}

func benchInputs(b *testing.B) {
	benchData.once.Do(func() {
		var idx bytes.Buffer
		if _, err := cdxgen.New(cdxgen.Config{Lines: 300000, Seed: 1}).Write(&idx); err != nil {
			b.Fatal(err)
		}
		benchData.index = idx.Bytes()
		var m bytes.Buffer
		if _, err := Build(context.Background(), &m, []cdxj.Searcher{cdxj.NewStream("gen", bytes.NewReader(idx.Bytes()), nil)}, nil); err != nil {
			b.Fatal(err)
		}
		benchData.base = m.Bytes()
		for _, l := range strings.Split(m.String(), "\n") {
			if l != "" && l[0] != '!' {
				k, _, _ := strings.Cut(l, " ")
				benchData.keys = append(benchData.keys, k)
			}
		}
	})
}

func countLines(b []byte) float64 { return float64(bytes.Count(b, []byte{'\n'})) }

// processCPU returns the CPU time of the process so far. Run the
// benchmarks with -cpu 1 for one-core figures that load from other
// processes on the machine does not skew ("lines/cpu-s").
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportRate reports items per wall second and per CPU second.
func reportRate(b *testing.B, items float64, cpu0 time.Duration, unit string) {
	b.ReportMetric(items*float64(b.N)/b.Elapsed().Seconds(), unit+"/s")
	if d := processCPU() - cpu0; d > 0 {
		b.ReportMetric(items*float64(b.N)/d.Seconds(), unit+"/cpu-s")
	}
}

// BenchmarkBuild builds a baseline map from SURT-keyed CDXJ; one op is the
// whole index. Target (issue 4): 2,000,000 lines/s on one core.
func BenchmarkBuild(b *testing.B) {
	benchInputs(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchData.index)))
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := Build(context.Background(), io.Discard, []cdxj.Searcher{cdxj.NewStream("gen", bytes.NewReader(benchData.index), nil)}, nil); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, countLines(benchData.index), cpu0, "lines")
}

// BenchmarkCompact compacts the baseline map at W_h = W_p = 1; one op is
// the whole map. Target: 5,000,000 map lines/s.
func BenchmarkCompact(b *testing.B) {
	benchInputs(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchData.base)))
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := Compact(io.Discard, bytes.NewReader(benchData.base), nil); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, countLines(benchData.base), cpu0, "lines")
}

// BenchmarkCompactCopy is compaction with infinite weights: the parsing and
// bookkeeping cost alone.
func BenchmarkCompactCopy(b *testing.B) {
	benchInputs(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchData.base)))
	o := opts(math.Inf(1), math.Inf(1), false)
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := Compact(io.Discard, bytes.NewReader(benchData.base), o); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, countLines(benchData.base), cpu0, "lines")
}

func benchMapFile(b *testing.B) string {
	benchInputs(b)
	p := filepath.Join(b.TempDir(), "base.ukvs")
	if err := os.WriteFile(p, benchData.base, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkLookupSURT looks up SURTs in the mmapped baseline map, half
// held keys and half absent ones; one op is one lookup. Target: 1,000,000
// lookups/s (on a 10 M-line map; see internal/bench/mementomap).
func BenchmarkLookupSURT(b *testing.B) { benchLookupSURT(b) }

// BenchmarkLookupSURTChecked is BenchmarkLookupSURT through the checked
// search (searchChecked), the path of every lookup in a map larger than
// SyncOrderCheckBytes before its background order check ends: the order
// check never runs (syncOrderBytes -1), so every lookup checks the lines
// it compares and their neighbours.
func BenchmarkLookupSURTChecked(b *testing.B) {
	old := syncOrderBytes
	syncOrderBytes = -1
	defer func() { syncOrderBytes = old }()
	benchLookupSURT(b)
}

func benchLookupSURT(b *testing.B) {
	m, err := Open(benchMapFile(b))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	if _, err := m.LookupSURT("com,example)/"); err != nil {
		b.Fatal(err)
	}
	if sorted, _ := m.ordered(); sorted == (syncOrderBytes < 0) {
		b.Fatalf("order checked %v with syncOrderBytes %d", sorted, syncOrderBytes)
	}
	keys := benchData.keys
	qs := make([]string, 0, 4096)
	for i := range 4096 {
		k := keys[(i*7919)%len(keys)]
		if i%2 == 1 {
			k = strings.Replace(k, ")/", ")/zq", 1)
		}
		qs = append(qs, k)
	}
	b.ReportAllocs()
	i := 0
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := m.LookupSURT(qs[i&4095]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportRate(b, 1, cpu0, "lookups")
}

// BenchmarkOpen opens and closes the map file. Target: under 1 ms.
func BenchmarkOpen(b *testing.B) {
	p := benchMapFile(b)
	b.ReportAllocs()
	for b.Loop() {
		m, err := Open(p)
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}

// BenchmarkCheckOrder is the order check of a whole map (Map.CheckOrder,
// run by the first lookup of a map of at most SyncOrderCheckBytes); one op
// is the baseline map, and SetBytes makes -benchmem's MB/s its speed.
func BenchmarkCheckOrder(b *testing.B) {
	benchInputs(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchData.base)))
	cpu0 := processCPU()
	for b.Loop() {
		if err := FromBytes(benchData.base).CheckOrder(); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, float64(len(benchData.base))/(1<<20), cpu0, "MiB")
}

// BenchmarkConcat merges the partial maps of the generated index cut
// into 16 parts (BuildPart each, made once) into its map; one op is the
// whole map, and lines/cpu-s counts the map's lines. Its peer is
// BenchmarkCompactCopy, a pass that reads and writes the map once.
func BenchmarkConcat(b *testing.B) {
	benchInputs(b)
	p := filepath.Join(b.TempDir(), "gen.cdxj")
	if err := os.WriteFile(p, benchData.index, 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := cdxj.OpenFile(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	parts, err := cdxj.Plan(context.Background(), []cdxj.Index{f}, 16)
	if err != nil {
		b.Fatal(err)
	}
	var partials [][]byte
	for _, pt := range parts {
		var pm bytes.Buffer
		if _, err := BuildPart(context.Background(), &pm, f, pt, &BuildOptions{TempDir: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
		partials = append(partials, pm.Bytes())
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchData.base)))
	cpu0 := processCPU()
	for b.Loop() {
		rs := make([]io.Reader, len(partials))
		for i, pm := range partials {
			rs[i] = bytes.NewReader(pm)
		}
		if _, err := Concat(context.Background(), io.Discard, rs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(parts)), "parts")
	reportRate(b, countLines(benchData.base), cpu0, "lines")
}
