package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mementokit/mementokit/cdxj"
)

// cdxSource returns the index the CDX API serves: the inputs merged in
// byte-wise order (cdxj.Merge), when every one answers key-range queries
// rightly and again and again. A ZipNum cluster and a CDX server do; a
// CDX or CDXJ file does when it is sorted byte-wise, which is checked here
// by reading it once (a gzip file is read from its start by each query); a
// stream ("-") does not, being read once. The error says which input
// cannot be served and why.
func cdxSource(ctx context.Context, names []string, inputs []cdxj.Searcher) (cdxj.Searcher, error) {
	for i, in := range inputs {
		switch ix := in.(type) {
		case *cdxj.Stream:
			return nil, fmt.Errorf("%s is a stream, read once; the CDX API needs a file or a cluster", names[i])
		case *cdxj.File:
			if err := checkSorted(ctx, ix); err != nil {
				return nil, fmt.Errorf("%s: %w", names[i], err)
			}
		}
	}
	return cdxj.Merge(inputs...), nil
}

// checkSorted reads every data line of f and fails at the first whose
// cdxj.SortKey (key and timestamp) sorts before the one above it: the
// module's one sort rule, what a binary search compares.
func checkSorted(ctx context.Context, f *cdxj.File) error {
	var prev []byte
	n := 0
	for line, err := range f.Lines(cdxj.Query{}) {
		if err != nil {
			return err
		}
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if len(line) == 0 || line[0] == '!' || line[0] == ' ' {
			continue
		}
		k := cdxj.SortKey(line)
		if prev != nil && bytes.Compare(k, prev) < 0 {
			return fmt.Errorf("data line %d: key and timestamp %.200q sort before %.200q, those of the data line above: the file is not sorted byte-wise (LC_ALL=C sort), so the CDX API cannot binary-search it; sort it (examples/cdxj -sort)", n, k, prev)
		}
		prev = append(prev[:0], k...)
	}
	return nil
}
