// Package report writes a self-contained HTML report: sections of
// interactive charts (package internal/chart models, drawn in the browser
// by Apache ECharts) and tables, in one file that opens from disk with no
// network. An archive can publish it next to the data it describes.
//
// # What a reader gets
//
//   - every chart with hover (the values of all series at the pointer, in
//     human units and with thousands separators) and, on line charts
//     along a time or count axis (chart.Chart.Zoomable), zoom along the
//     X axis (mouse wheel or drag in the plot, the slider below it);
//     legends beside the plot toggle series;
//   - every table sortable by any column (click its header; again to reverse);
//   - the numbers behind every chart and table as a CSV download (a data:
//     URL, so it works offline too);
//   - the licences of the embedded JavaScript at the foot of the page.
//
// The JavaScript (assets/echarts.min.js, about 1.1 MB, and the page's own
// script) is inlined; `go generate` refreshes the library from the npm
// registry (see fetchassets). Reports for other data — an archive profile,
// say — are built the same way: fill a Page with charts and tables.
package report

//go:generate go run ./fetchassets

import (
	"bytes"
	"embed"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/internal/chart"
)

// Page is one report.
type Page struct {
	Title string
	// Intro is a paragraph under the title.
	Intro string
	// Sources names the files the report was made from, listed under the intro.
	Sources []string
	// Generator says what wrote the report ("mementokit summarize report").
	Generator string
	Sections  []Section
}

// Section is one part of a report: a heading, a paragraph, its charts and
// then its tables.
type Section struct {
	ID     string // the anchor; made from the title when empty
	Title  string
	Text   string
	Charts []*chart.Chart // finished (chart.Chart.Finish)
	Tables []*Table
	// TablesFirst shows the tables above the charts.
	TablesFirst bool
}

// Table is a sortable table.
type Table struct {
	ID, Title string
	// Note is a line under the table.
	Note    string
	Columns []Column
	// Rows hold one cell per column: text, or for a numeric column a
	// decimal number as strconv writes it ("" for no value).
	Rows [][]string
}

// Column is one column of a Table.
type Column struct {
	Name string
	// Unit, for a numeric column, says how its cells read (chart.Count:
	// 1,234,567; chart.Bytes: 1.23 MB with the exact count on hover). Empty
	// for a text column.
	Unit chart.Unit
}

var (
	//go:embed assets/echarts.min.js assets/LICENSE-echarts.txt assets/NOTICE-echarts.txt assets/LICENSE-zrender.txt assets/LICENSE-tslib.txt assets/LICENSE-d3.txt
	assets embed.FS
	//go:embed page.html.tmpl page.css page.js
	files embed.FS
)

var pageTemplate = template.Must(template.New("page.html.tmpl").ParseFS(files, "page.html.tmpl"))

// licences are the texts shown at the foot of every report, for the
// JavaScript it embeds.
var licences = []struct{ Name, File string }{
	{"Apache ECharts 6.1.0 (Apache License 2.0)", "assets/LICENSE-echarts.txt"},
	{"Apache ECharts NOTICE", "assets/NOTICE-echarts.txt"},
	{"zrender 6.1.0, bundled in ECharts (BSD 3-Clause)", "assets/LICENSE-zrender.txt"},
	{"tslib 2.3.0 helpers, bundled in ECharts (0BSD)", "assets/LICENSE-tslib.txt"},
	{"d3 treemap layout, in ECharts (BSD 3-Clause)", "assets/LICENSE-d3.txt"},
}

// view is what the template reads.
type view struct {
	*Page
	CSS      template.CSS
	ECharts  template.JS
	Script   template.JS
	Sections []sectionView
	Licences []licenceView
	// Zoom, Legend and Sort say which of the page's controls the footer
	// explains: zoom on line charts along a time or count axis
	// (chart.Chart.Zoomable; page.js gives each such chart a zoom), legends
	// of charts with more than one series, sortable tables.
	Zoom, Legend, Sort bool
}

type sectionView struct {
	ID, Title, Text string
	TablesFirst     bool
	Charts          []chartView
	Tables          []tableView
}

type chartView struct {
	ID, Title, Note string
	Kind            chart.Kind
	Series          int
	Spec            template.JS // {"chart": ..., "colors": [...]}
	CSV             template.URL
}

type tableView struct {
	ID, Title, Note string
	Columns         []Column
	Rows            [][]cellView
	CSV             template.URL
}

type cellView struct {
	Text, Title, Sort string
	Numeric           bool
}

type licenceView struct{ Name, Text string }

// Charts adds charts to the sections of a page as they are made and keeps
// the first error of making one. A chart that could not be drawn for want
// of data (chart.ErrNoData) is not an error: its section says so instead.
// The zero Charts is ready to use.
type Charts struct{ err error }

// Add adds c, made with error err, to s: when err is nil c is appended to
// s.Charts; when err is chart.ErrNoData s.Text gains "Not drawn, for want
// of data: WHAT."; any other error is kept for [Charts.Err] (the first
// one) and c is dropped.
func (cs *Charts) Add(s *Section, c *chart.Chart, err error, what string) {
	switch {
	case errors.Is(err, chart.ErrNoData):
		s.Text = strings.TrimSpace(s.Text + " Not drawn, for want of data: " + what + ".")
	case err != nil:
		if cs.err == nil {
			cs.err = err
		}
	default:
		s.Charts = append(s.Charts, c)
	}
}

// Err returns the first error given to [Charts.Add] other than
// chart.ErrNoData, or nil.
func (cs *Charts) Err() error { return cs.err }

// ErrNoSections is returned by Write for a page with nothing to show.
var ErrNoSections = errors.New("report: the page has no chart and no table")

// Write writes p as one HTML document to w. Charts must be finished; IDs
// (of sections, charts and tables) are made unique within the page. A
// table row with a wrong number of cells, or a numeric cell that is no
// number, is an error naming the table and the row.
func Write(w io.Writer, p *Page) error {
	v := view{Page: p}
	var err error
	if v.CSS, v.ECharts, v.Script, err = inlined(); err != nil {
		return err
	}
	ids := map[string]int{}
	unique := func(id, title string) string {
		if id == "" {
			id = slug(title)
		}
		ids[id]++
		if n := ids[id]; n > 1 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		return id
	}
	items := 0
	for _, s := range p.Sections {
		sv := sectionView{ID: unique(s.ID, s.Title), Title: s.Title, Text: s.Text, TablesFirst: s.TablesFirst}
		for _, c := range s.Charts {
			cv, err := chartOf(c)
			if err != nil {
				return err
			}
			cv.ID = unique("chart-"+c.ID, c.Title)
			v.Zoom = v.Zoom || c.Zoomable()
			v.Legend = v.Legend || (c.Kind != chart.Treemap && len(c.Series) > 1)
			sv.Charts = append(sv.Charts, cv)
			items++
		}
		for _, t := range s.Tables {
			tv, err := tableOf(t)
			if err != nil {
				return err
			}
			tv.ID = unique("table-"+t.ID, t.Title)
			v.Sort = true
			sv.Tables = append(sv.Tables, tv)
			items++
		}
		v.Sections = append(v.Sections, sv)
	}
	if items == 0 {
		return ErrNoSections
	}
	for _, l := range licences {
		b, err := assets.ReadFile(l.File)
		if err != nil {
			return err
		}
		v.Licences = append(v.Licences, licenceView{l.Name, string(b)})
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// Save writes p to path through a temporary file renamed into place
// (atomicfile.Write): Write's errors (a table row naming the table and the
// row) and those of creating or renaming the file, each naming path; on
// error path is untouched.
func Save(path string, p *Page) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, p) })
}

func inlined() (template.CSS, template.JS, template.JS, error) {
	css, err := files.ReadFile("page.css")
	if err != nil {
		return "", "", "", err
	}
	js, err := files.ReadFile("page.js")
	if err != nil {
		return "", "", "", err
	}
	lib, err := assets.ReadFile("assets/echarts.min.js")
	if err != nil {
		return "", "", "", err
	}
	// A script element ends at the first "</script": the library never
	// holds one, and neither does the page's script.
	if bytes.Contains(bytes.ToLower(lib), []byte("</script")) || bytes.Contains(bytes.ToLower(js), []byte("</script")) {
		return "", "", "", errors.New("report: embedded JavaScript holds </script")
	}
	return template.CSS(css), template.JS(lib), template.JS(js), nil
}

// chartOf prepares one chart: its model and colours as JSON (with '<'
// escaped, so it cannot end the script element) and its CSV.
func chartOf(c *chart.Chart) (chartView, error) {
	if c.Kind != chart.Treemap && c.X.Ticks == nil {
		return chartView{}, fmt.Errorf("report: chart %s is not finished", c.ID)
	}
	colors := make([]string, len(c.Series))
	for i := range c.Series {
		colors[i] = c.SeriesColor(i)
	}
	if c.Kind == chart.Treemap {
		colors = make([]string, len(c.Categories))
		for j := range colors {
			colors[j] = chart.Palette[j%len(chart.Palette)]
		}
	}
	// For each line series, the points drawn with a marker, by index
	// (chart.PointMarks).
	var marks [][]int
	for i, s := range c.Series {
		m := c.PointMarks(i)
		var at []int
		for j := range s.Points {
			if m[j] {
				at = append(at, j)
			}
		}
		marks = append(marks, at)
	}
	spec, err := json.Marshal(struct {
		Chart  *chart.Chart `json:"chart"`
		Colors []string     `json:"colors"`
		Marks  [][]int      `json:"marks,omitempty"`
		Zoom   bool         `json:"zoom"`
	}{c, colors, marks, c.Zoomable()})
	if err != nil {
		return chartView{}, fmt.Errorf("report: chart %s: %w", c.ID, err)
	}
	var csv bytes.Buffer
	if err := chart.WriteCSV(&csv, c); err != nil {
		return chartView{}, err
	}
	return chartView{Title: c.Title, Kind: c.Kind, Note: c.Note, Series: len(c.Series), Spec: template.JS(spec), CSV: dataURL(csv.Bytes())}, nil
}

func dataURL(csv []byte) template.URL {
	return template.URL("data:text/csv;charset=utf-8;base64," + base64.StdEncoding.EncodeToString(csv))
}

// tableOf formats a table's cells and its CSV (exact values).
func tableOf(t *Table) (tableView, error) {
	tv := tableView{Title: t.Title, Note: t.Note, Columns: t.Columns}
	var csv bytes.Buffer
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Name
	}
	writeCSVRow(&csv, head)
	for r, row := range t.Rows {
		if len(row) != len(t.Columns) {
			return tv, fmt.Errorf("report: table %q row %d has %d cells for %d columns", t.Title, r+1, len(row), len(t.Columns))
		}
		cells := make([]cellView, len(row))
		for i, s := range row {
			col := t.Columns[i]
			if col.Unit == "" {
				cells[i] = cellView{Text: s, Sort: s}
				continue
			}
			cells[i] = cellView{Numeric: true, Sort: s}
			if s == "" {
				cells[i].Sort = "-Infinity"
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return tv, fmt.Errorf("report: table %q row %d column %q: %q is not a number", t.Title, r+1, col.Name, s)
			}
			cells[i].Text = chart.Exact(v, col.Unit)
			if col.Unit == chart.Bytes {
				cells[i].Text, cells[i].Title = chart.Human(v, col.Unit), chart.Exact(v, col.Unit)
			}
		}
		tv.Rows = append(tv.Rows, cells)
		writeCSVRow(&csv, row)
	}
	tv.CSV = dataURL(csv.Bytes())
	return tv, nil
}

// writeCSVRow writes one RFC 4180 row (a bytes.Buffer never fails).
func writeCSVRow(b *bytes.Buffer, fields []string) {
	cw := csv.NewWriter(b)
	cw.Write(fields)
	cw.Flush()
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes an anchor from a title: "Captures per day" → "captures-per-day".
func slug(title string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if s == "" {
		return "section"
	}
	return s
}
