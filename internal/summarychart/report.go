package summarychart

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/count"
	"github.com/mementokit/mementokit/internal/report"
	"github.com/mementokit/mementokit/summary"
)

// ReportInput is what a summary report shows.
type ReportInput struct {
	Title string
	// Summaries are compared in this order (each keeps its colour).
	Summaries []*summary.Overview
	// Overlap, when not nil, adds the comparison of the summaries' keys.
	Overlap *summary.OverlapResult
	// Days, when not empty, adds the daily series per organization.
	Days []summary.Day
	// TLDs get a "domains under .TLD per year" chart each; when empty, the
	// top-level domain with most domains gets one.
	TLDs []string
	// Sources name the input files, listed under the title.
	Sources   []string
	Generator string
}

// Report builds the page of a summary report: holdings per summary, content
// types, domains (first letters, top-level domains), the overlap of the
// summaries, and the daily activity per organization, each with its charts
// and sortable tables. A chart without data is left out and named in its
// section's text.
// The error is the first chart's other than chart.ErrNoData (a malformed
// chart, by chart.Chart.Finish); the page is returned with the charts
// that were made.
func Report(in ReportInput) (*report.Page, error) {
	p := &report.Page{Title: in.Title, Sources: in.Sources, Generator: in.Generator}
	if p.Title == "" {
		p.Title = "Web archive summary"
	}
	var names []string
	for _, o := range in.Summaries {
		names = append(names, o.Name)
	}
	switch {
	case len(names) == 1:
		p.Intro = "What the summary " + names[0] + " holds: captures and bytes per year and content type, the domains it covers"
	case len(names) > 1:
		p.Intro = fmt.Sprintf("What %d summaries hold, side by side: captures and bytes per year and content type, the domains each covers and shares", len(names))
	default:
		p.Intro = "Crawl activity per day and organization"
	}
	if len(in.Days) > 0 && len(names) > 0 {
		p.Intro += ", and the crawl activity per day and organization"
	}
	p.Intro += ". Counts are of captures with a 2xx status; bytes are the compressed WARC record lengths of the index."
	var charts report.Charts
	add := charts.Add
	if len(in.Summaries) > 0 {
		s := report.Section{ID: "holdings", Title: "Holdings", TablesFirst: true,
			Text: "Keys are the summaries' lines (registrable domains, or hosts); a key counts for a year when it holds a capture in it."}
		s.Tables = append(s.Tables, holdingsTable(in.Summaries))
		c, e := CapturesPerYear(in.Summaries)
		add(&s, c, e, "captures per year")
		c, e = DomainsPerYear(in.Summaries, "")
		add(&s, c, e, "domains per year")
		p.Sections = append(p.Sections, s)

		for _, o := range in.Summaries {
			s := report.Section{ID: "types-" + slugName(o.Name), Title: "Content types — " + o.Name,
				Text: "Content types are the cdx-summarize categories of the records' MIME types."}
			c, e := CategoryBytes(o)
			add(&s, c, e, "bytes per content type and year")
			c, e = CategoryTreemap(o, false)
			add(&s, c, e, "content types by captures")
			c, e = CategoryTreemap(o, true)
			add(&s, c, e, "content types by bytes")
			s.Tables = append(s.Tables, typesTable(o))
			p.Sections = append(p.Sections, s)
		}

		s = report.Section{ID: "domains", Title: "Domains",
			Text: "Registrable domains by the public suffix list (bbc.co.uk, not co.uk); top-level domains are the last label of each key."}
		c, e = FirstLetters(in.Summaries)
		add(&s, c, e, "domains by first letter")
		tlds := in.TLDs
		tldTable := tldTable(in.Summaries)
		if len(tlds) == 0 && len(tldTable.Rows) > 0 {
			tlds = []string{tldTable.Rows[0][0]}
		}
		for _, t := range tlds {
			c, e := DomainsPerYear(in.Summaries, t)
			add(&s, c, e, "domains under ."+strings.TrimPrefix(t, "."))
		}
		s.Tables = append(s.Tables, tldTable)
		p.Sections = append(p.Sections, s)
	}
	if in.Overlap != nil && len(in.Overlap.Names) > 1 {
		s := report.Section{ID: "overlap", Title: "Overlap",
			Text: "Each key is counted once per year, for the combination of summaries that hold a capture under it that year."}
		c, e := Overlap(in.Overlap)
		add(&s, c, e, "the overlap of the summaries")
		s.Tables = append(s.Tables, overlapTable(in.Overlap))
		p.Sections = append(p.Sections, s)
	}
	if len(in.Days) > 0 {
		s := report.Section{ID: "daily", Title: "Daily activity",
			Text: "Captures, bytes and 2xx captures per day (UTC) and organization (from the WARC file names). Lines break between days more than a day apart."}
		cs, e := Daily(in.Days)
		if e != nil {
			add(&s, nil, e, "the daily series")
		} else {
			for i, c := range cs {
				if c == nil {
					add(&s, nil, chart.ErrNoData, []string{"captures per day", "bytes per day", "2xx captures per day"}[i])
					continue
				}
				s.Charts = append(s.Charts, c)
			}
		}
		s.Tables = append(s.Tables, orgTable(in.Days))
		p.Sections = append(p.Sections, s)
	}
	return p, charts.Err()
}

func slugName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

func num(v int64) string { return strconv.FormatInt(v, 10) }

func share(part, whole int64) string {
	if whole == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(part)/float64(whole), 'f', 6, 64)
}

func holdingsTable(os []*summary.Overview) *report.Table {
	t := &report.Table{ID: "holdings", Title: "Summaries", Columns: []report.Column{
		{Name: "summary"}, {Name: "keys", Unit: chart.Count}, {Name: "captures", Unit: chart.Count},
		{Name: "bytes", Unit: chart.Bytes}, {Name: "HTML share of captures", Unit: chart.Percent},
		{Name: "HTTPS share of captures", Unit: chart.Percent},
		{Name: "first year", Unit: chart.Year}, {Name: "last year", Unit: chart.Year}}}
	for _, o := range os {
		first, last := "", ""
		for _, y := range o.Years() {
			if y.Counters[summary.NTotal] > 0 {
				if first == "" {
					first = strconv.Itoa(y.Year)
				}
				last = strconv.Itoa(y.Year)
			}
		}
		t.Rows = append(t.Rows, []string{o.Name, num(o.Keys), num(o.Total[summary.NTotal]), num(o.Total[summary.STotal]),
			share(o.Total[summary.NHTML], o.Total[summary.NTotal]), share(o.Total[summary.NHTTPS], o.Total[summary.NTotal]), first, last})
	}
	return t
}

func typesTable(o *summary.Overview) *report.Table {
	t := &report.Table{ID: "types-" + slugName(o.Name), Title: "Content types — " + o.Name, Columns: []report.Column{
		{Name: "content type"}, {Name: "captures", Unit: chart.Count}, {Name: "share of captures", Unit: chart.Percent},
		{Name: "bytes", Unit: chart.Bytes}, {Name: "share of bytes", Unit: chart.Percent}}}
	left := 0
	for k, name := range categories {
		n, s := o.Total[summary.NHTML+k], o.Total[summary.SHTML+k]
		if n == 0 && s == 0 {
			left++
			continue
		}
		t.Rows = append(t.Rows, []string{name, num(n), share(n, o.Total[summary.NTotal]), num(s), share(s, o.Total[summary.STotal])})
	}
	if left > 0 {
		t.Note = count.Of(left, "content type", "content types") + " without captures left out."
	}
	return t
}

// maxTLDRows is the most rows of the top-level domain table.
const maxTLDRows = 200

func tldTable(os []*summary.Overview) *report.Table {
	t := &report.Table{ID: "tlds", Title: "Top-level domains", Columns: []report.Column{{Name: "top-level domain"}}}
	total := map[string]int64{}
	per := make([]map[string]int64, len(os))
	for i, o := range os {
		t.Columns = append(t.Columns, report.Column{Name: "keys in " + o.Name, Unit: chart.Count})
		per[i] = map[string]int64{}
		for _, tv := range o.TLDs() {
			per[i][tv.TLD] = tv.Keys
			total[tv.TLD] += tv.Keys
		}
	}
	tlds := make([]string, 0, len(total))
	for k := range total {
		tlds = append(tlds, k)
	}
	slices.SortFunc(tlds, func(a, b string) int {
		if total[a] != total[b] {
			if total[a] > total[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(tlds) > maxTLDRows {
		t.Note = fmt.Sprintf("The %d top-level domains with most keys of %d.", maxTLDRows, len(tlds))
		tlds = tlds[:maxTLDRows]
	}
	for _, tld := range tlds {
		row := []string{tld}
		for i := range os {
			row = append(row, num(per[i][tld]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func overlapTable(res *summary.OverlapResult) *report.Table {
	t := &report.Table{ID: "overlap", Title: "Keys per combination of summaries", Columns: []report.Column{
		{Name: "period"}, {Name: "combination"}, {Name: "keys", Unit: chart.Count}}}
	for _, n := range res.Names {
		t.Columns = append(t.Columns, report.Column{Name: "captures in " + n, Unit: chart.Count}, report.Column{Name: "bytes in " + n, Unit: chart.Bytes})
	}
	pos := map[string]int{}
	for i, n := range res.Names {
		pos[n] = i
	}
	combos := make([]string, 0, len(res.Combos))
	for k := range res.Combos {
		combos = append(combos, k)
	}
	slices.Sort(combos)
	type r struct {
		period string
		row    []string
	}
	var rows []r
	for _, k := range combos {
		members := strings.Split(k, " AND ")
		for period, cell := range res.Combos[k] {
			row := make([]string, len(t.Columns))
			row[0], row[1], row[2] = period, comboName(k, len(res.Names)), num(cell.Keys)
			for j, m := range members {
				if j < len(cell.N) {
					row[3+2*pos[m]], row[4+2*pos[m]] = num(cell.N[j]), num(cell.S[j])
				}
			}
			rows = append(rows, r{period, row})
		}
	}
	slices.SortStableFunc(rows, func(a, b r) int { return strings.Compare(a.period, b.period) })
	for _, x := range rows {
		t.Rows = append(t.Rows, x.row)
	}
	return t
}

func orgTable(days []summary.Day) *report.Table {
	t := &report.Table{ID: "organizations", Title: "Organizations", Columns: []report.Column{
		{Name: "organization"}, {Name: "days with captures", Unit: chart.Count}, {Name: "first day"}, {Name: "last day"},
		{Name: "captures", Unit: chart.Count}, {Name: "bytes", Unit: chart.Bytes}, {Name: "2xx captures", Unit: chart.Count}}}
	type acc struct {
		days        int64
		first, last string
		c           summary.DayOrg
	}
	m := map[string]*acc{}
	for _, d := range days {
		for o, c := range d.Orgs {
			a := m[o]
			if a == nil {
				a = &acc{first: d.Day}
				m[o] = a
			}
			a.days++
			a.last = d.Day
			a.c.Count += c.Count
			a.c.Size += c.Size
			a.c.OKCount += c.OKCount
		}
	}
	orgs := make([]string, 0, len(m))
	for o := range m {
		orgs = append(orgs, o)
	}
	slices.SortFunc(orgs, func(a, b string) int {
		if m[a].c.Count != m[b].c.Count {
			if m[a].c.Count > m[b].c.Count {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	iso := func(d string) string { return d[:4] + "-" + d[4:6] + "-" + d[6:8] }
	for _, o := range orgs {
		a := m[o]
		t.Rows = append(t.Rows, []string{o, num(a.days), iso(a.first), iso(a.last), num(a.c.Count), num(a.c.Size), num(a.c.OKCount)})
	}
	return t
}
