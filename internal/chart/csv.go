package chart

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"time"
)

// WriteCSV writes the numbers c plots as RFC 4180 CSV: a header row (the X
// axis label, or "category", then the series names), then one row per
// category, or for a line chart one row per X value any series has (dates
// as YYYY-MM-DD on a time axis), with an empty cell where a series has no
// point. Values are exact (integers without a fraction).
// Its only errors are w's, from the csv.Writer (writing stops at the
// first).
func WriteCSV(w io.Writer, c *Chart) error {
	cw := csv.NewWriter(w)
	first := c.X.Label
	if first == "" {
		first = "category"
		if c.X.Type == Time {
			first = "date"
		}
	}
	head := []string{first}
	for _, s := range c.Series {
		head = append(head, s.Name)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	row := make([]string, len(head))
	if c.Kind != Line {
		for j, cat := range c.Categories {
			row[0] = cat
			for i, s := range c.Series {
				row[i+1] = ""
				if j < len(s.Values) {
					row[i+1] = number(s.Values[j])
				}
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
	var xs []float64
	at := make([]map[float64]float64, len(c.Series))
	for i, s := range c.Series {
		at[i] = make(map[float64]float64, len(s.Points))
		for _, p := range s.Points {
			if _, seen := at[i][p.X]; !seen {
				xs = append(xs, p.X)
			}
			at[i][p.X] = p.Y
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	for _, x := range xs {
		if c.X.Type == Time {
			row[0] = time.Unix(int64(x), 0).UTC().Format("2006-01-02")
		} else {
			row[0] = number(x)
		}
		for i := range c.Series {
			row[i+1] = ""
			if y, ok := at[i][x]; ok {
				row[i+1] = number(y)
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// number writes v exactly, without exponent for integers up to 2^53.
func number(v float64) string {
	if v == float64(int64(v)) && v < 1<<53 && v > -(1<<53) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
