package chart_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/mementokit/mementokit/internal/chart"
)

// A chart is a model first: fold, finish, then read what will be drawn.
func Example() {
	c := &chart.Chart{ID: "bytes", Title: "Bytes per year", Kind: chart.Bar,
		Categories: []string{"2012", "2013", "2014"},
		X:          chart.Axis{Label: "year"},
		Y:          chart.Axis{Label: "bytes", Unit: chart.Bytes},
		Series:     []chart.Series{{Name: "html", Values: []float64{1.8e6, 5e6, 1.4e6}}}}
	if err := c.Finish(); err != nil {
		fmt.Println(err)
		return
	}
	var labels []string
	for _, t := range c.Y.Ticks {
		labels = append(labels, t.Label)
	}
	fmt.Println(strings.Join(labels, ", "))
	chart.WriteCSV(os.Stdout, c)
	// Output:
	// 0 B, 1 MB, 2 MB, 3 MB, 4 MB, 5 MB
	// year,html
	// 2012,1800000
	// 2013,5000000
	// 2014,1400000
}

func ExampleFold() {
	var series []chart.Series
	for i, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		series = append(series, chart.Series{Name: n, Values: []float64{float64(10 - i)}})
	}
	for _, s := range chart.Fold(series, 0) {
		fmt.Println(s.Name, s.Values, s.Folded)
	}
	// Output:
	// a [10] []
	// b [9] []
	// c [8] []
	// d [7] []
	// e [6] []
	// f [5] []
	// g [4] []
	// other (3) [6] [h i j]
}

func ExampleHuman() {
	fmt.Println(chart.Human(1234567, chart.Count), chart.Exact(1234567, chart.Count))
	fmt.Println(chart.Human(1234567, chart.Bytes), chart.Exact(1234567, chart.Bytes))
	// Output:
	// 1.23M 1,234,567
	// 1.23 MB 1,234,567 bytes
}
