package mementomap

import (
	"bytes"
	"context"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/extsort"
)

// EachURIR streams the indexes once, with the same record handling and
// filters as [Build] under opts, and calls fn once for every distinct
// URI-R they hold: its full SURT (query included, the key a lookup of it
// is matched by: see [LoadTruth]) and its number of URI-Ms (the records
// left by the filters). Keys come in the build's sort order (a SURT's
// query after every longer path of it). Memory: an external sort bounded
// by opts.MemoryLimit. An error of fn stops it and is returned. opts may
// be nil (the defaults of [BuildOptions]).
func EachURIR(ctx context.Context, inputs []cdxj.Searcher, opts *BuildOptions, fn func(surt string, mementos uint64) error) (BuildStats, error) {
	o := buildOptions(opts)
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultSortMemory
	}
	b := newBuilder(o)
	b.s = extsort.New(o.MemoryLimit, o.TempDir)
	b.sink = func(k []byte, _ int) error { return b.s.Add(k, 1) }
	defer b.s.Close()
	for _, in := range inputs {
		if err := b.read(ctx, in.Records(cdxj.Query{})); err != nil {
			return b.st, err
		}
	}
	var key []byte
	n := 0
	err := b.s.Each(func(k []byte, count uint64) error {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key = append(key[:0], k...)
		if i := bytes.IndexByte(key, 0); i >= 0 {
			key[i] = '?'
		}
		return fn(string(key), count)
	})
	return b.st, err
}
