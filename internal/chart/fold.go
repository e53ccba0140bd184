package chart

import (
	"fmt"
	"slices"
	"sort"
)

// OtherName returns the name of the series that sums k folded series:
// "other (k)".
func OtherName(k int) string { return fmt.Sprintf("other (%d)", k) }

// Fold returns series with at most n entries (MaxSeries when n <= 0). When
// there are more, the n-1 with the largest totals (Series.Total; ties go to
// the earlier series) are kept in their input order, and the others are
// summed into one series named OtherName(k), last, whose Folded lists them
// in input order. Values are summed index by index (all Values series have
// one value per category); Points are summed at equal X, and the sum holds
// every X of the folded series. The input is not modified.
func Fold(series []Series, n int) []Series {
	if n <= 0 {
		n = MaxSeries
	}
	if len(series) <= n {
		return slices.Clone(series)
	}
	order := make([]int, len(series))
	totals := make([]float64, len(series))
	for i := range series {
		order[i] = i
		totals[i] = series[i].Total()
	}
	sort.SliceStable(order, func(a, b int) bool { return totals[order[a]] > totals[order[b]] })
	keep := make([]bool, len(series))
	for _, i := range order[:n-1] {
		keep[i] = true
	}
	var out []Series
	var folded []Series
	for i, s := range series {
		if keep[i] {
			out = append(out, s)
		} else {
			folded = append(folded, s)
		}
	}
	return append(out, Sum(OtherName(len(folded)), folded))
}

// Sum returns one series named name holding the sums of series: Values
// index by index, Points at equal X (X ascending), and Folded naming every
// summed series (or, for a summed "other", the series it had folded).
func Sum(name string, series []Series) Series {
	o := Series{Name: name}
	byX := map[float64]float64{}
	for _, s := range series {
		if len(s.Folded) > 0 {
			o.Folded = append(o.Folded, s.Folded...)
		} else {
			o.Folded = append(o.Folded, s.Name)
		}
		for j, v := range s.Values {
			for len(o.Values) <= j {
				o.Values = append(o.Values, 0)
			}
			o.Values[j] += v
		}
		for _, p := range s.Points {
			byX[p.X] += p.Y
		}
	}
	if len(byX) > 0 {
		o.Points = make([]Point, 0, len(byX))
		for x, y := range byX {
			o.Points = append(o.Points, Point{X: x, Y: y})
		}
		slices.SortFunc(o.Points, func(a, b Point) int {
			switch {
			case a.X < b.X:
				return -1
			case a.X > b.X:
				return 1
			}
			return 0
		})
	}
	return o
}
