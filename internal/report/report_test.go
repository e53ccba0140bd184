package report

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/chart"
)

func finished(t *testing.T, c *chart.Chart) *chart.Chart {
	t.Helper()
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	return c
}

func samplePage(t *testing.T) *Page {
	bars := finished(t, &chart.Chart{ID: "bars", Title: "Bytes per year", Kind: chart.Bar, Categories: []string{"2012", "2013"},
		X: chart.Axis{Label: "year"}, Y: chart.Axis{Label: "bytes", Unit: chart.Bytes},
		Series: []chart.Series{{Name: "a</script><script>alert(1)</script>", Values: []float64{1e6, 2e6}}, {Name: "b", Values: []float64{3, 4}}}})
	return &Page{Title: "A <report>", Intro: "intro", Sources: []string{"a.sum"}, Generator: "test",
		Sections: []Section{
			{Title: "First part", Charts: []*chart.Chart{bars}},
			{Title: "First part", Charts: []*chart.Chart{bars}, Tables: []*Table{{ID: "t", Title: "Numbers",
				Columns: []Column{{Name: "name"}, {Name: "captures", Unit: chart.Count}, {Name: "bytes", Unit: chart.Bytes}},
				Rows:    [][]string{{"x,y", "1234567", "1500000"}, {"z", "", "7"}}}}},
		}}
}

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, samplePage(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>A &lt;report&gt;</title>",
		`<section id="first-part">`, `<section id="first-part-2">`, // unique anchors
		`id="chart-bars"`, `id="chart-bars-2"`,
		`<td class="num" data-sort="1234567">1,234,567</td>`,
		`<td class="num" data-sort="1500000" title="1,500,000 bytes">1.5 MB</td>`,
		`<td class="num" data-sort="-Infinity"></td>`,
		"Licences of the embedded JavaScript", "Apache License", "BSD 3-Clause",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A series name cannot end the script element that holds its chart.
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a series name broke out of its script element")
	}
	// No reference to anything outside the file.
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).FindString(page); m != "" {
		t.Errorf("page refers to the network: %s", m)
	}
	// The table's CSV link holds its exact values.
	m := regexp.MustCompile(`download="table-t.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSV link for the table")
	}
	csv, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("name,captures,bytes\n\"x,y\",1234567,1500000\nz,,7\n", string(csv)); d != "" {
		t.Errorf("table CSV (-want +got):\n%s", d)
	}
}

func TestWriteErrors(t *testing.T) {
	unfinished := &chart.Chart{ID: "u", Kind: chart.Bar}
	tests := []struct {
		name string
		page *Page
		want string
	}{
		{"empty", &Page{Title: "x"}, ErrNoSections.Error()},
		{"unfinished chart", &Page{Sections: []Section{{Charts: []*chart.Chart{unfinished}}}}, "not finished"},
		{"short row", &Page{Sections: []Section{{Tables: []*Table{{Title: "T", Columns: []Column{{Name: "a"}, {Name: "b"}}, Rows: [][]string{{"1"}}}}}}}, `table "T" row 1 has 1 cells for 2 columns`},
		{"not a number", &Page{Sections: []Section{{Tables: []*Table{{Title: "T", Columns: []Column{{Name: "n", Unit: chart.Count}}, Rows: [][]string{{"x"}}}}}}}, `"x" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(&bytes.Buffer{}, tc.page)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Write = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if err := Write(&bytes.Buffer{}, &Page{}); !errors.Is(err, ErrNoSections) {
		t.Errorf("empty page: %v", err)
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	if err := Save(path, samplePage(t)); err != nil {
		t.Fatal(err)
	}
	if err := Save(filepath.Join(dir, "r2.html"), &Page{}); err == nil {
		t.Error("an empty page was saved")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// TestCharts: a made chart is added to its section, one refused for want
// of data becomes a note in the section's text, and the first other error
// is kept while its chart is dropped.
func TestCharts(t *testing.T) {
	c := finished(t, &chart.Chart{ID: "c", Title: "Captures", Kind: chart.Bar, Categories: []string{"2012"},
		X: chart.Axis{Label: "year"}, Y: chart.Axis{Label: "captures", Unit: chart.Count}, Series: []chart.Series{{Name: "a", Values: []float64{1}}}})
	var cs Charts
	s := Section{Text: "Per year."}
	cs.Add(&s, c, nil, "captures")
	noData := chart.ErrNoData
	cs.Add(&s, nil, fmt.Errorf("no series: %w", noData), "bytes per year")
	first, second := errors.New("bad axis"), errors.New("bad series")
	cs.Add(&s, c, first, "one")
	cs.Add(&s, c, second, "two")
	if len(s.Charts) != 1 || s.Charts[0] != c {
		t.Errorf("section charts = %v, want the one made", s.Charts)
	}
	if s.Text != "Per year. Not drawn, for want of data: bytes per year." {
		t.Errorf("section text = %q", s.Text)
	}
	if cs.Err() != first {
		t.Errorf("Err = %v, want the first error", cs.Err())
	}
	if (&Charts{}).Err() != nil {
		t.Error("a new Charts has an error")
	}
}
