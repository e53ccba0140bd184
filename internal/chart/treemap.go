package chart

import (
	"math"
	"sort"
)

// Rect is an axis-aligned rectangle: its corner with the smallest
// coordinates, its width and height.
type Rect struct {
	X, Y, W, H float64
}

// Squarify lays values out as rectangles filling r, each with an area
// proportional to its value, as square as the squarified treemap
// algorithm makes them (Bruls, Huizing and van Wijk, "Squarified
// Treemaps", 2000): the largest value at the top left (Y grows upwards),
// then rows or columns of decreasing values. The result has one Rect per
// value, in the order of values; a value that is not positive gets a zero
// Rect.
func Squarify(values []float64, r Rect) []Rect {
	out := make([]Rect, len(values))
	var idx []int
	total := 0.0
	for i, v := range values {
		if v > 0 && !bad(v) {
			idx = append(idx, i)
			total += v
		}
	}
	if total == 0 || r.W <= 0 || r.H <= 0 {
		return out
	}
	sort.SliceStable(idx, func(a, b int) bool { return values[idx[a]] > values[idx[b]] })
	area := make([]float64, len(values))
	for _, i := range idx {
		area[i] = values[i] / total * r.W * r.H
	}
	worst := func(row []int, side float64) float64 {
		s, hi, lo := 0.0, 0.0, math.Inf(1)
		for _, i := range row {
			s += area[i]
			hi, lo = math.Max(hi, area[i]), math.Min(lo, area[i])
		}
		return math.Max(side*side*hi/(s*s), s*s/(side*side*lo))
	}
	rest := r
	layout := func(row []int) {
		s := 0.0
		for _, i := range row {
			s += area[i]
		}
		if rest.W >= rest.H { // a column at the left, top down
			w := s / rest.H
			y := rest.Y + rest.H
			for _, i := range row {
				h := area[i] / w
				y -= h
				out[i] = Rect{X: rest.X, Y: y, W: w, H: h}
			}
			rest.X += w
			rest.W -= w
		} else { // a row at the top, left to right
			h := s / rest.W
			x := rest.X
			for _, i := range row {
				w := area[i] / h
				out[i] = Rect{X: x, Y: rest.Y + rest.H - h, W: w, H: h}
				x += w
			}
			rest.H -= h
		}
	}
	var row []int
	for k := 0; k < len(idx); {
		side := math.Min(rest.W, rest.H)
		cand := append(row[:len(row):len(row)], idx[k])
		if len(row) == 0 || worst(row, side) >= worst(cand, side) {
			row = cand
			k++
			continue
		}
		layout(row)
		row = nil
	}
	if len(row) > 0 {
		layout(row)
	}
	return out
}
