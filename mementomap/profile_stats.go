package mementomap

import (
	"math"
	"slices"
)

// histogram counts how many items hold each value (mementos per URI-R, HxPx
// keys per prefix, children per parent). Its size is the number of distinct
// values, at most √(2·total) for a total of total, so it stays small
// whatever the number of items.
type histogram map[uint64]uint64

// Distribution summarizes a population of non-negative integer values
// (mementos per URI-R, HxPx keys per prefix): N items holding Sum in all.
type Distribution struct {
	N    uint64  `json:"n"`   // items
	Sum  uint64  `json:"sum"` // the sum of their values
	Max  uint64  `json:"max"`
	Min  uint64  `json:"min"`
	Mean float64 `json:"mean"` // Sum/N
	// Median is the middle value, the mean of the two middle ones for an
	// even N.
	Median float64 `json:"median"`
	// StdDev is the population standard deviation (divided by N, not N−1),
	// as the paper's Tables 4 and 8 give it.
	StdDev float64 `json:"stddev"`
}

type histEntry struct{ v, n uint64 }

// sorted returns the histogram's entries by ascending value.
func (h histogram) sorted() []histEntry {
	es := make([]histEntry, 0, len(h))
	for v, n := range h {
		es = append(es, histEntry{v, n})
	}
	slices.SortFunc(es, func(a, b histEntry) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	return es
}

// distribution computes the summary of the values h counts.
func (h histogram) distribution() Distribution {
	es := h.sorted()
	var d Distribution
	if len(es) == 0 {
		return d
	}
	for _, e := range es {
		d.N += e.n
		d.Sum += e.v * e.n
	}
	d.Min, d.Max = es[0].v, es[len(es)-1].v
	d.Mean = float64(d.Sum) / float64(d.N)
	var ss float64
	for _, e := range es {
		x := float64(e.v) - d.Mean
		ss += x * x * float64(e.n)
	}
	d.StdDev = math.Sqrt(ss / float64(d.N))
	// The values at 0-based ranks (N−1)/2 and N/2.
	lo, hi := (d.N-1)/2, d.N/2
	var vlo, vhi uint64
	var seen uint64
	for _, e := range es {
		if lo >= seen && lo < seen+e.n {
			vlo = e.v
		}
		if hi >= seen && hi < seen+e.n {
			vhi = e.v
			break
		}
		seen += e.n
	}
	d.Median = (float64(vlo) + float64(vhi)) / 2
	return d
}

// Inequality measures how unevenly a total is spread over items: the
// paper's Table 4 and Figure 5 for mementos over URI-Rs.
type Inequality struct {
	// Gini is the Gini coefficient: 0 when every item holds the same, near 1
	// when one item holds all. With values x_1 ≤ … ≤ x_n it is
	// Σ(2i−n−1)·x_i ÷ (n·Σx_i).
	Gini float64 `json:"gini"`
	// ParetoShare is the Pareto break point: the share p of items, the
	// largest first, that hold 1−p of the total (the paper's "top 30 % of
	// URI-Rs hold 70 %" is 0.30). Within the group of equal values where it
	// falls, items are taken as divisible (linear interpolation along the
	// Lorenz curve).
	ParetoShare float64 `json:"pareto_share"`
	// Lorenz is the Lorenz curve: points (share of items, smallest first;
	// share of the total they hold), from (0, 0) to (1, 1), at each change
	// of value, thinned to about 200 points (a point is kept when it moves
	// at least 0.5 % along either axis from the last one kept; the ends are
	// always kept). The curve is straight between points.
	Lorenz []LorenzPoint `json:"lorenz"`
}

// LorenzPoint is one point of a Lorenz curve.
type LorenzPoint struct {
	Items float64 `json:"items"` // cumulative share of items
	Total float64 `json:"total"` // cumulative share of the total they hold
}

// inequality computes the Gini coefficient, the Pareto break point and the
// Lorenz curve of the values h counts.
func (h histogram) inequality() Inequality {
	es := h.sorted()
	var n, sum float64
	for _, e := range es {
		n += float64(e.n)
		sum += float64(e.v) * float64(e.n)
	}
	var q Inequality
	if n == 0 || sum == 0 {
		return q
	}
	// Σ(2i−n−1)·x_i over a group of c equal values v at ranks s+1..s+c:
	// v·(2·(c·s + c(c+1)/2) − c(n+1)) = v·c·(2s + c − n).
	var g, s float64
	for _, e := range es {
		c := float64(e.n)
		g += float64(e.v) * c * (2*s + c - n)
		s += c
	}
	q.Gini = g / (n * sum)

	// The Pareto point: the top share p holds 1−p. From the largest values
	// down, top(k)/sum + k/n grows from 0 to 2 and crosses 1 once.
	var k, top float64
	for i := len(es) - 1; i >= 0; i-- {
		c, v := float64(es[i].n), float64(es[i].v)
		if (top+c*v)/sum+(k+c)/n >= 1 {
			// (top + t·v)/sum + (k+t)/n = 1
			t := (1 - top/sum - k/n) / (v/sum + 1/n)
			q.ParetoShare = (k + t) / n
			break
		}
		k += c
		top += c * v
	}

	q.Lorenz = []LorenzPoint{{0, 0}}
	var cn, cs float64
	last := q.Lorenz[0]
	for i, e := range es {
		cn += float64(e.n)
		cs += float64(e.v) * float64(e.n)
		p := LorenzPoint{cn / n, cs / sum}
		if i == len(es)-1 {
			p = LorenzPoint{1, 1}
		} else if p.Items-last.Items < 0.005 && p.Total-last.Total < 0.005 {
			continue
		}
		q.Lorenz = append(q.Lorenz, p)
		last = p
	}
	return q
}

// ReductionPoint is one point of a reduction curve (the paper's Figure 8).
type ReductionPoint struct {
	Rolled float64 `json:"rolled"` // share of the nodes rolled up, the largest first
	Left   float64 `json:"left"`   // share of the lines left
}

// reduction is the curve of lines left as the nodes h counts (by size) are
// rolled up one by one, the largest first: rolling up a node of size v
// turns v lines into one. total is the number of lines before any roll-up
// (the shares' denominator). The curve is thinned like a Lorenz curve.
func (h histogram) reduction(total uint64) []ReductionPoint {
	es := h.sorted()
	var nodes float64
	for _, e := range es {
		nodes += float64(e.n)
	}
	if nodes == 0 || total == 0 {
		return nil
	}
	pts := []ReductionPoint{{0, 1}}
	last := pts[0]
	var rolled, removed float64
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		rolled += float64(e.n)
		removed += float64(e.n) * (float64(e.v) - 1)
		p := ReductionPoint{rolled / nodes, 1 - removed/float64(total)}
		if i > 0 && p.Rolled-last.Rolled < 0.005 && last.Left-p.Left < 0.005 {
			continue
		}
		pts = append(pts, p)
		last = p
	}
	return pts
}
