package memorycache_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
)

// BenchmarkMemoryGet reads entries of 3 mementos from a store of 10,000
// (the target is 5,000,000 gets/s or more), copying the mementos (the
// default) or sharing them (Options.ShareMementos). Bytes are the
// mementos' URI-Ms.
func BenchmarkMemoryGet(b *testing.B) {
	for _, share := range []bool{false, true} {
		b.Run(map[bool]string{false: "copy", true: "shared"}[share], func(b *testing.B) {
			benchMemoryGet(b, &memorycache.Options{ShareMementos: share})
		})
	}
}

func benchMemoryGet(b *testing.B, opts *memorycache.Options) {
	ctx := b.Context()
	m, _ := memorycache.New(opts)
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 10000
	keys := make([]cache.URIRKey, n)
	var bytes int64
	for i := range n {
		u := fmt.Sprintf("http://example.org/page/%d", i)
		r := cache.Result{Status: cache.StatusFound, Updated: t0}
		for j := range 3 {
			urim := fmt.Sprintf("https://web.archive.org/web/2020010100000%d/%s", j, u)
			r.Mementos = append(r.Mementos, cache.StoredMemento{URIM: urim, Datetime: t0.Add(time.Duration(j) * time.Hour), Archive: "ia"})
			if i == 0 {
				bytes += int64(len(urim))
			}
		}
		if err := m.Put(ctx, u, r); err != nil {
			b.Fatal(err)
		}
		keys[i] = cache.URIRKeyOf(u)
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		if _, err := m.Get(ctx, keys[i%n]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
	// On a shared machine wall time depends on the neighbours; the CPU time
	// this process used per Get (GC included) does not.
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "gets/cpu-s")
}

// cpuTime is the user and system CPU time used by the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMemoryGetParallel is BenchmarkMemoryGet from GOMAXPROCS goroutines.
func BenchmarkMemoryGetParallel(b *testing.B) {
	ctx := b.Context()
	m, _ := memorycache.New(nil)
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 10000
	keys := make([]cache.URIRKey, n)
	for i := range n {
		u := fmt.Sprintf("http://example.org/page/%d", i)
		r := cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{{URIM: "https://web.archive.org/web/20200101000000/" + u, Datetime: t0, Archive: "ia"}}}
		if err := m.Put(ctx, u, r); err != nil {
			b.Fatal(err)
		}
		keys[i] = cache.URIRKeyOf(u)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := m.Get(ctx, keys[i%n]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
}
