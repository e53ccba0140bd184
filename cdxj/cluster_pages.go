package cdxj

import (
	"fmt"
	"iter"
)

// Pager is a Searcher whose answers come in pages of ZipNum blocks, as a
// CDX server's page=, pageSize= and showNumPages= read them: a *Cluster.
type Pager interface {
	Searcher
	// Pages returns how many pages of pageSize blocks the answer to q
	// spans, and how many blocks (see Cluster.Pages).
	Pages(q Query, pageSize int) (pages, blocks int, err error)
	// PageRecords returns the records of q in page number page (0-based)
	// of pageSize blocks; a page past the last yields nothing.
	PageRecords(q Query, page, pageSize int) iter.Seq2[*Record, error]
	// PageBlocks returns the secondary-index entries of the blocks of
	// that page, in order.
	PageBlocks(q Query, page, pageSize int) iter.Seq2[IdxEntry, error]
}

var _ Pager = (*Cluster)(nil)

// PageRecords returns the lines matching q in page number page (0-based)
// of pageSize blocks parsed as Records, as Page returns them raw; a line
// that does not parse is reported as Records reports it. page must not be
// negative and pageSize must be positive (an error wrapping ErrQuery).
func (c *Cluster) PageRecords(q Query, page, pageSize int) iter.Seq2[*Record, error] {
	if pageSize <= 0 || page < 0 {
		return func(yield func(*Record, error) bool) {
			yield(nil, fmt.Errorf("%w: page %d of size %d", ErrQuery, page, pageSize))
		}
	}
	var at blockPos
	return records(c.lines(q, page*pageSize, pageSize, &at), nil, c.opt.Layout, c.placeLine(&at))
}

// PageBlocks returns the secondary-index entries of the blocks in page
// number page (0-based) of pageSize blocks of the answer to q: the blocks
// Page reads, what a CDX server's showPagedIndex=true lists. A page past
// the last yields nothing. Errors are those of Entries, or wrap ErrQuery
// for a negative page or a pageSize under 1.
func (c *Cluster) PageBlocks(q Query, page, pageSize int) iter.Seq2[IdxEntry, error] {
	return func(yield func(IdxEntry, error) bool) {
		if pageSize <= 0 || page < 0 {
			yield(IdxEntry{}, fmt.Errorf("%w: page %d of size %d", ErrQuery, page, pageSize))
			return
		}
		cq, err := q.compile()
		if err != nil {
			yield(IdxEntry{}, err)
			return
		}
		i := -1
		for e, err := range c.candidates(cq, false) {
			if err != nil {
				yield(IdxEntry{}, err)
				return
			}
			i++
			if i < page*pageSize {
				continue
			}
			if i >= (page+1)*pageSize || !yield(e, nil) {
				return
			}
		}
	}
}
