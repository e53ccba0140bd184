package mysqlcache_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
)

func benchStore(b *testing.B) *mysqlcache.Cache {
	c, err := open(b, testDB(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func mementos(n int, uriR string) (cache.Result, int64) {
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	r := cache.Result{Status: cache.StatusFound, Updated: t0}
	var bytes int64
	archives := []string{"ia", "ukwa", "pt", "loc", "bl"}
	for i := range n {
		d := t0.Add(time.Duration(i) * time.Hour)
		m := cache.StoredMemento{URIM: "https://web.archive.org/web/" + d.Format("20060102150405") + "/" + uriR,
			Datetime: d, Archive: archives[i%len(archives)], Rel: "memento", Type: "text/html"}
		bytes += int64(len(m.URIM))
		r.Mementos = append(r.Mementos, m)
	}
	return r, bytes
}

// reportLatency adds p50, p95 and p99 in microseconds.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.95), "p95-µs")
	b.ReportMetric(q(0.99), "p99-µs")
}

// BenchmarkGet reads entries of 10 mementos by key from a table of 1,000
// entries over loopback (the target is p50 under 1 ms).
func BenchmarkGet(b *testing.B) {
	ctx := b.Context()
	c := benchStore(b)
	const n = 1000
	var bytes int64
	for i := range n {
		u := fmt.Sprintf("http://example.org/%d", i)
		var r cache.Result
		r, bytes = mementos(10, u)
		if err := c.Put(ctx, u, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 1<<16)
	i := 0
	for b.Loop() {
		start := time.Now()
		e, err := c.Get(ctx, cache.URIRKeyOf(fmt.Sprintf("http://example.org/%d", i%n)))
		lat = append(lat, time.Since(start))
		if err != nil || len(e.Mementos) != 10 {
			b.Fatalf("Get: %d mementos, %v", len(e.Mementos), err)
		}
		i++
	}
	reportLatency(b, lat)
}

// BenchmarkPut10000 stores an entry of 10,000 mementos in one transaction
// (the target is under 200 ms): "new" for a URI-R not yet cached, "replace"
// for one whose 10,000 mementos are all replaced (delete, then insert).
func BenchmarkPut10000(b *testing.B) {
	for _, replace := range []bool{false, true} {
		name := map[bool]string{false: "new", true: "replace"}[replace]
		b.Run(name, func(b *testing.B) {
			ctx := b.Context()
			c := benchStore(b)
			_, bytes := mementos(10000, "http://example.org/0")
			b.SetBytes(bytes)
			b.ReportAllocs()
			var lat []time.Duration
			i := 0
			for b.Loop() {
				u := fmt.Sprintf("http://example.org/%d", i)
				r, _ := mementos(10000, u)
				if replace {
					u = "http://example.org/big"
				}
				start := time.Now()
				if err := c.Put(ctx, u, r); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			reportLatency(b, lat)
		})
	}
}

// BenchmarkClaim claims and completes jobs one after another.
func BenchmarkClaim(b *testing.B) {
	ctx := b.Context()
	c := benchStore(b)
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	lat := make([]time.Duration, 0, 1<<12)
	i := 0
	for b.Loop() {
		b.StopTimer()
		if err := c.Enqueue(ctx, fmt.Sprintf("http://example.org/%d", i), cache.PriorityLive, t0); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		j, err := c.Claim(ctx, "bench", t0)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if err := c.Complete(ctx, j, t0); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportLatency(b, lat)
}
