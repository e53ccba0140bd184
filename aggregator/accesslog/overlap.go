package accesslog

import (
	"context"
	"strconv"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/surt"
)

// Requests counts the lookups of each URI-R, keyed by its full SURT
// (query included: the key mementomap.LoadTruth and EachURIR match by).
// Memory: one map entry per distinct URI-R.
type Requests struct {
	counts map[string]int64
	// Lookups counts the lookups added; Uncanonical those whose URI-R
	// does not canonicalize to a SURT (surt.Canonicalize), left out.
	Lookups, Uncanonical int64
}

// NewRequests returns an empty count.
func NewRequests() *Requests { return &Requests{counts: map[string]int64{}} }

// Add counts one lookup of urir.
func (q *Requests) Add(urir string) {
	q.Lookups++
	k, err := surt.Canonicalize(urir)
	if err != nil {
		q.Uncanonical++
		return
	}
	q.counts[k]++
}

// Len is the number of distinct URI-Rs counted.
func (q *Requests) Len() int { return len(q.counts) }

// Count is the number of lookups of the URI-R whose full SURT is key.
func (q *Requests) Count(key string) int64 { return q.counts[key] }

// Overlap is the paper's Figure 4 (archived vs accessed): URI-Rs by how
// many mementos an index holds of them (rows) and how often the logs
// asked for them (columns), both binned by order of magnitude: Zero, Ones
// (1–9), Tens (10–99), Hundreds, and so on. Row Zero counts the URI-Rs
// asked for that the index does not hold; column Zero the URI-Rs it holds
// that nobody asked for; cell (Zero, Zero), URI-Rs neither held nor asked
// for, is unknown (-1).
type Overlap struct {
	// Bins names the bins of both axes: Bins[b] holds 0 for b = 0, else
	// 10^(b−1) to 10^b − 1.
	Bins []string `json:"bins"`
	// Cells[m][q] is the number of URI-Rs with memento bin m and request
	// bin q; len(Cells) and len(Cells[m]) are the bins in use.
	Cells [][]int64 `json:"cells"`
	// Archived are the distinct URI-Rs of the index (after the build's
	// filters), Requested those asked for, Both those in both.
	Archived  int64 `json:"archived"`
	Requested int64 `json:"requested"`
	Both      int64 `json:"both"`
	// Lookups are the lookups counted (Requests.Lookups); Uncanonical
	// those left out because their URI-R does not canonicalize.
	Lookups     int64 `json:"lookups"`
	Uncanonical int64 `json:"uncanonical"`
	// Index is the count of the index's records (mementomap.BuildStats).
	Index mementomap.BuildStats `json:"index"`
}

// binNames are the names of the first bins of an Overlap.
var binNames = []string{"Zero", "Ones", "Tens", "Hundreds", "Thousands", "Ten thousands",
	"Hundred thousands", "Millions", "Ten millions", "Hundred millions", "Billions"}

// Bin is the order-of-magnitude bin of n: 0 for n ≤ 0, else the number of
// its decimal digits.
func Bin(n int64) int {
	b := 0
	for ; n > 0; n /= 10 {
		b++
	}
	return b
}

// BinName is the name of bin b: Zero, Ones, Tens, ..., then "10^(b−1)+".
func BinName(b int) string {
	if b < len(binNames) {
		return binNames[b]
	}
	return "10^" + strconv.Itoa(b-1) + "+"
}

// ComputeOverlap streams the indexes once (mementomap.EachURIR, with the
// build's filters under opts; nil means its defaults) and bins every URI-R
// held or asked for in q. q is left as it was.
func ComputeOverlap(ctx context.Context, q *Requests, inputs []cdxj.Searcher, opts *mementomap.BuildOptions) (*Overlap, error) {
	ov := &Overlap{Requested: int64(len(q.counts)), Lookups: q.Lookups, Uncanonical: q.Uncanonical}
	add := func(m, r int64) {
		mb, rb := Bin(m), Bin(r)
		for len(ov.Cells) <= mb {
			ov.Cells = append(ov.Cells, nil)
		}
		for len(ov.Cells[mb]) <= rb {
			ov.Cells[mb] = append(ov.Cells[mb], 0)
		}
		ov.Cells[mb][rb]++
	}
	st, err := mementomap.EachURIR(ctx, inputs, opts, func(key string, mementos uint64) error {
		ov.Archived++
		r := q.counts[key]
		if r > 0 {
			ov.Both++
			q.counts[key] = -r // seen; restored below
		}
		add(int64(mementos), r)
		return nil
	})
	ov.Index = st
	for k, r := range q.counts {
		if r < 0 {
			q.counts[k] = -r
		} else if err == nil {
			add(0, r)
		}
	}
	if err != nil {
		return nil, err
	}
	// A rectangle, with the unknown cell marked.
	if len(ov.Cells) == 0 {
		ov.Cells = [][]int64{{0}}
	}
	width := 0
	for _, row := range ov.Cells {
		width = max(width, len(row))
	}
	for i := range ov.Cells {
		for len(ov.Cells[i]) < width {
			ov.Cells[i] = append(ov.Cells[i], 0)
		}
	}
	ov.Cells[0][0] = -1
	for b := 0; b < max(len(ov.Cells), width); b++ {
		ov.Bins = append(ov.Bins, BinName(b))
	}
	return ov, nil
}
