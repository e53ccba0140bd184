package boltcache_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
)

func entry(n int, uriR string) (cache.Result, int64) {
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	r := cache.Result{Status: cache.StatusFound, Updated: t0}
	var bytes int64
	for i := range n {
		d := t0.Add(time.Duration(i) * time.Hour)
		m := cache.StoredMemento{URIM: "https://web.archive.org/web/" + d.Format("20060102150405") + "/" + uriR,
			Datetime: d, Archive: "ia", Rel: "memento", Type: "text/html"}
		bytes += int64(len(m.URIM))
		r.Mementos = append(r.Mementos, m)
	}
	return r, bytes
}

// BenchmarkGet reads a 10-memento entry from a file of 1,000 entries.
func BenchmarkGet(b *testing.B) {
	ctx := b.Context()
	c, err := boltcache.Open(filepath.Join(b.TempDir(), "c.db"), &boltcache.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const n = 1000
	var bytes int64
	for i := range n {
		u := fmt.Sprintf("http://example.org/%d", i)
		var r cache.Result
		r, bytes = entry(10, u)
		if err := c.Put(ctx, u, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := c.Get(ctx, cache.URIRKeyOf(fmt.Sprintf("http://example.org/%d", i%n))); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkPut10000 replaces an entry of 10,000 mementos, synced to disk.
func BenchmarkPut10000(b *testing.B) {
	ctx := b.Context()
	c, err := boltcache.Open(filepath.Join(b.TempDir(), "c.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, bytes := entry(10000, "http://example.org/big")
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Put(ctx, "http://example.org/big", r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenCheck opens (and closes) a cache file of about 100 MiB
// (10,000 entries of 100 mementos), whose pages Open checks before use:
// its own walk of every page, then bbolt's Tx.Check. SetBytes is the file
// size, so MB/s is the check's rate (the file is in the page cache after
// the first run).
func BenchmarkOpenCheck(b *testing.B) {
	ctx := b.Context()
	path := filepath.Join(b.TempDir(), "c.db")
	c, err := boltcache.Open(path, &boltcache.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10_000 {
		u := fmt.Sprintf("http://example.org/%d", i)
		r, _ := entry(100, u)
		if err := c.Put(ctx, u, r); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		c, err := boltcache.Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
