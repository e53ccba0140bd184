package report_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/report"
)

func Example() {
	c := &chart.Chart{ID: "captures", Title: "Captures per year", Kind: chart.Bar,
		Categories: []string{"2012", "2013", "2014"}, X: chart.Axis{Label: "year"},
		Y:      chart.Axis{Label: "captures", Unit: chart.Count},
		Series: []chart.Series{{Name: "archive.org", Values: []float64{270, 739, 212}}}}
	if err := c.Finish(); err != nil {
		fmt.Println(err)
		return
	}
	page := &report.Page{Title: "One archive", Sections: []report.Section{{Title: "Holdings", Charts: []*chart.Chart{c},
		Tables: []*report.Table{{Title: "Years", Columns: []report.Column{{Name: "year"}, {Name: "captures", Unit: chart.Count}},
			Rows: [][]string{{"2012", "270"}, {"2013", "739"}, {"2014", "212"}}}}}}}
	path := filepath.Join(os.TempDir(), "mementokit-report-example.html")
	defer os.Remove(path)
	if err := report.Save(path, page); err != nil {
		fmt.Println(err)
		return
	}
	st, _ := os.Stat(path)
	fmt.Println(st.Size() > 1<<20) // ECharts is inside
	// Output: true
}
