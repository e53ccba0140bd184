// Package profilereport turns an archive profile (mementomap.Profile) into
// a self-contained HTML report (package internal/report): the paper's
// tables (Alam et al., JCDL 2019: Tables 1, 2 and 4 to 8) as sortable
// tables, and its figures (5 to 9) as interactive charts, with the cutoffs
// fitted to the archive. Charts keep the module's conventions (package
// internal/chart): titles and axis labels, legends beside the plot, at most
// chart.MaxSeries series (the largest; the note says what was left out),
// human units.
package profilereport

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/report"
	"github.com/mementokit/mementokit/mementomap"
)

// Input is what a profile report shows.
type Input struct {
	Title   string // "" means "Archive profile"
	Profile *mementomap.ArchiveProfile
	// Sources name the indexes profiled, listed under the title.
	Sources   []string
	Generator string
	// TopTLDs and TopURIRs bound the rows of Tables 1 and 5; 0 means 25.
	TopTLDs, TopURIRs int
}

// Report builds the page. A chart without data is left out and named in
// its section's text; a malformed chart is an error.
func Report(in Input) (*report.Page, error) {
	p := in.Profile
	if p == nil {
		return nil, errors.New("profilereport: no profile")
	}
	if in.TopTLDs <= 0 {
		in.TopTLDs = 25
	}
	if in.TopURIRs <= 0 {
		in.TopURIRs = 25
	}
	pg := &report.Page{Title: in.Title, Sources: in.Sources, Generator: in.Generator}
	if pg.Title == "" {
		pg.Title = "Archive profile"
	}
	pg.Intro = fmt.Sprintf("What the index holds, after the analysis of Arquivo.pt in the MementoMap paper (Alam et al., JCDL 2019): "+
		"%s captures (URI-Ms) of %s URI-Rs under %s HxPx keys on %s hosts. Depths: H1 is the TLD, H2 the next label; "+
		"P0 a host's root, P1 its first path segment.",
		chart.Exact(float64(p.Index.URIMs), chart.Count), chart.Exact(float64(p.Index.URIRs), chart.Count),
		chart.Exact(float64(p.Index.HxPxKeys), chart.Count), chart.Exact(float64(p.Index.Hosts), chart.Count))
	var charts report.Charts
	add := charts.Add

	s := report.Section{ID: "index", Title: "The index (Table 2)", TablesFirst: true}
	s.Tables = append(s.Tables, indexTable(p))
	c, e := TLDChart(p, 10)
	add(&s, c, e, "TLD shares")
	s.Tables = append(s.Tables, tldTable(p, in.TopTLDs))
	pg.Sections = append(pg.Sections, s)

	s = report.Section{ID: "mementos", Title: "Mementos per URI-R (Table 4, Figure 5)", TablesFirst: true,
		Text: "How unevenly captures spread over URI-Rs. The Gini coefficient is 0 when every URI-R has as many mementos, near 1 when one has them all; " +
			"the Pareto break point is the share of URI-Rs, the most archived first, that hold the rest of the mementos."}
	s.Tables = append(s.Tables, mementoTable(p), topTable(p, in.TopURIRs))
	c, e = LorenzChart(p)
	add(&s, c, e, "the Lorenz curve")
	c, e = MementoHistogram(p)
	add(&s, c, e, "the memento histogram")
	pg.Sections = append(pg.Sections, s)

	s = report.Section{ID: "years", Title: "Growth per year (Table 6, Figure 6)", TablesFirst: true,
		Text: "URI-R+ is the running count of distinct URI-Rs: a URI-R captured again in a later year is not new."}
	s.Tables = append(s.Tables, yearTable(p))
	c, e = YearChart(p)
	add(&s, c, e, "captures per year")
	c, e = StatusChart(p)
	add(&s, c, e, "status classes per year")
	pg.Sections = append(pg.Sections, s)

	s = report.Section{ID: "depths", Title: "The tree by depth (Tables 7 and 8, Figure 7)", TablesFirst: true,
		Text: "Table 8 cuts every HxPx key at least d deep at depth d: Count distinct prefixes covering Sum keys; " +
			"RedQ is the share of all keys a cut at d would remove; MeanChld the mean children of a parent at d−1."}
	s.Tables = append(s.Tables, itemsTable(p), depthTable("8-hosts", "Table 8 — host depths", "H", p.HostDepth),
		depthTable("8-paths", "Table 8 — path depths", "P", p.PathDepth))
	c, e = DepthChart(p)
	add(&s, c, e, "prefixes per depth")
	c, e = MeanChildrenChart(p)
	add(&s, c, e, "mean children per depth")
	pg.Sections = append(pg.Sections, s)

	s = report.Section{ID: "cutoffs", Title: "Cutoffs fitted to this archive", TablesFirst: true}
	if p.Fit != nil {
		s.Text = "The compaction cutoff of level i is a·(i+1)^(−k) times the compaction factor; a and k are fitted to the mean children per depth " +
			"(H3 and deeper, P1 and deeper) by least squares in log space (what compact -fit uses), and for comparison in linear space. " +
			"The reference tool's constants, fitted on Arquivo.pt, are host a 16.329, k 0.714 and path a 24.546, k 1.429. " +
			fmt.Sprintf("compact -fit refuses a log-space fit with k ≤ 0 or R² below %.2f (-fit-fallback takes the reference's a and k for that layer instead). ", mementomap.MinFitR2) +
			"On data shaped like Arquivo.pt (cdxgen, seed 1) the path fit is within 7 % of a and 0.04 of k of the log-space fit of the paper's Table 8 (18.82, 1.086) from 300,000 index lines on; " +
			"the host fit, over few parents per depth, is refused below about 4 M lines (4,400 hosts), and at 16 M is a 23.1, k 0.94 against 16.33, 0.714."
		s.Text += " This profile's layers: " + layerStatus("hosts", p.Fit.Host, 16.329, 0.714) + "; " +
			layerStatus("paths", p.Fit.Path, 24.546, 1.429) + "."
		s.Tables = append(s.Tables, fitTable(p.Fit))
	} else {
		s.Text = "No fit: " + p.FitError + "."
	}
	pg.Sections = append(pg.Sections, s)

	s = report.Section{ID: "reduction", Title: "Reduction (Figures 8 and 9)",
		Text: "Global reduction: the share of HxPx keys left as the prefixes at one depth are rolled up, those with most keys first. " +
			"Incremental reduction: the share of nodes at one depth left as the children of each parent are rolled into it, the parents with most children first."}
	for _, l := range []struct {
		layer string
		rows  []mementomap.DepthStats
	}{{"H", p.HostDepth}, {"P", p.PathDepth}} {
		c, e = ReductionChart(l.rows, l.layer, false)
		add(&s, c, e, "global reduction at "+l.layer+" depths")
		c, e = ReductionChart(l.rows, l.layer, true)
		add(&s, c, e, "incremental reduction at "+l.layer+" depths")
	}
	c, e = CompactionChart(p)
	add(&s, c, e, "the compaction run")
	pg.Sections = append(pg.Sections, s)
	if err := charts.Err(); err != nil {
		return nil, err
	}
	return pg, nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
func inum(v int64) string  { return strconv.FormatInt(v, 10) }
func unum(v uint64) string { return strconv.FormatUint(v, 10) }

func indexTable(p *mementomap.ArchiveProfile) *report.Table {
	ix := p.Index
	t := &report.Table{ID: "2", Title: "Table 2 — index statistics", Columns: []report.Column{{Name: "measure"}, {Name: "value"}}}
	row := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	cnt := func(v int64) string { return chart.Exact(float64(v), chart.Count) }
	row("index lines", cnt(ix.Lines))
	row("URI-Ms (captures profiled)", cnt(ix.URIMs))
	row("URI-Rs (distinct full SURTs)", cnt(ix.URIRs))
	row("HxPx keys (baseline map lines)", cnt(ix.HxPxKeys))
	row("hosts", cnt(ix.Hosts))
	row("IP-address hosts", cnt(ix.IPHosts))
	row("registrable domains", cnt(ix.Domains))
	row("TLDs", cnt(ix.TLDs))
	when := func(t *time.Time) string {
		if t == nil {
			return "—" // no capture profiled
		}
		return t.Format("2006-01-02 15:04:05")
	}
	row("first capture", when(ix.First))
	row("last capture", when(ix.Last))
	row("index size (lines read, uncompressed)", chart.Human(float64(ix.IndexBytes), chart.Bytes))
	row("baseline map size (data lines)", chart.Human(float64(ix.MapBytes), chart.Bytes))
	row("left out by the filters", cnt(ix.Filtered))
	row("left out as non-HTTP", cnt(ix.NonHTTP))
	row("bad lines skipped", cnt(ix.Bad))
	if p.Deeper.Host > 0 || p.Deeper.Path > 0 {
		row(fmt.Sprintf("keys deeper than %d (counted at every depth up to it)", mementomap.ProfileMaxDepth),
			fmt.Sprintf("%s host, %s path", cnt(p.Deeper.Host), cnt(p.Deeper.Path)))
	}
	return t
}

func tldTable(p *mementomap.ArchiveProfile, n int) *report.Table {
	t := &report.Table{ID: "1", Title: "Table 1 — TLDs by share of URI-Rs",
		Columns: []report.Column{{Name: "TLD"}, {Name: "URI-Rs", Unit: chart.Count}, {Name: "URI-R share", Unit: chart.Percent},
			{Name: "URI-Ms", Unit: chart.Count}, {Name: "URI-M share", Unit: chart.Percent}}}
	for i, r := range p.TLDs {
		if i == n {
			t.Note = fmt.Sprintf("%d TLDs; the %d with most URI-Rs shown (the JSON profile lists them all).", len(p.TLDs), n)
			break
		}
		t.Rows = append(t.Rows, []string{r.TLD, inum(r.URIRs), num(r.URIRShare), inum(r.URIMs), num(r.URIMShare)})
	}
	return t
}

func mementoTable(p *mementomap.ArchiveProfile) *report.Table {
	m := p.Mementos
	t := &report.Table{ID: "4", Title: "Table 4 — mementos per URI-R", Columns: []report.Column{{Name: "measure"}, {Name: "value"}}}
	row := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	row("URI-Rs", chart.Exact(float64(m.N), chart.Count))
	row("mementos", chart.Exact(float64(m.Sum), chart.Count))
	row("mean (γ)", fmt.Sprintf("%.2f", m.Mean))
	row("median", num(m.Median))
	row("max", chart.Exact(float64(m.Max), chart.Count))
	row("standard deviation", fmt.Sprintf("%.2f", m.StdDev))
	row("Gini coefficient", fmt.Sprintf("%.3f", m.Gini))
	row("Pareto break point", fmt.Sprintf("the top %.1f %% of URI-Rs hold %.1f %% of mementos", 100*m.ParetoShare, 100*(1-m.ParetoShare)))
	return t
}

func topTable(p *mementomap.ArchiveProfile, n int) *report.Table {
	t := &report.Table{ID: "5", Title: "Table 5 — the most archived URI-Rs",
		Columns: []report.Column{{Name: "rank", Unit: chart.Count}, {Name: "URI-R (SURT)"}, {Name: "mementos", Unit: chart.Count}}}
	for i, u := range p.TopURIRs {
		if i == n {
			break
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), u.SURT, unum(u.Mementos)})
	}
	return t
}

func yearTable(p *mementomap.ArchiveProfile) *report.Table {
	t := &report.Table{ID: "6", Title: "Table 6 — per capture year",
		Columns: []report.Column{{Name: "year"}, {Name: "URI-Rs", Unit: chart.Count}, {Name: "new URI-Rs", Unit: chart.Count},
			{Name: "URI-R+", Unit: chart.Count}, {Name: "dup. URI-R", Unit: chart.Percent},
			{Name: "URI-Ms", Unit: chart.Count}, {Name: "URI-M+", Unit: chart.Count},
			{Name: "γ", Unit: chart.Plain}, {Name: "γ+", Unit: chart.Plain},
			{Name: "2xx", Unit: chart.Percent}, {Name: "3xx", Unit: chart.Percent}, {Name: "4xx", Unit: chart.Percent},
			{Name: "5xx", Unit: chart.Percent}, {Name: "other", Unit: chart.Percent}}}
	for _, y := range p.Years {
		share := func(c int) string { return num(ratio(y.Status[c], y.URIMs)) }
		t.Rows = append(t.Rows, []string{yearName(y.Year), inum(y.URIRs), inum(y.New), inum(y.CumURIRs), num(y.DupShare),
			inum(y.URIMs), inum(y.CumURIMs), fmt.Sprintf("%.2f", y.Gamma), fmt.Sprintf("%.2f", y.CumGamma),
			share(2), share(3), share(4), share(5), share(0)})
	}
	t.Note = "γ is the year's mementos per URI-R (URI-Ms ÷ URI-Rs captured that year); γ+ the same to the end of the year " +
		"(URI-M+ ÷ URI-R+, every year so far). URI-R+ and URI-M+ are running totals; dup. URI-R is the share of the year's URI-Rs " +
		"captured in an earlier year. Shares of status classes are of the year's URI-Ms; other: no status (revisits), 1xx, 6xx and up."
	return t
}

func yearName(y int) string {
	if y == 0 {
		return "unknown"
	}
	return strconv.Itoa(y)
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func itemsTable(p *mementomap.ArchiveProfile) *report.Table {
	t := &report.Table{ID: "7", Title: "Table 7 — unique items of exactly depth d",
		Columns: []report.Column{{Name: "d", Unit: chart.Plain}, {Name: "domains (d labels)", Unit: chart.Count},
			{Name: "hosts (d labels)", Unit: chart.Count}, {Name: "HxPx keys (d path segments)", Unit: chart.Count}}}
	for _, it := range p.Items {
		t.Rows = append(t.Rows, []string{strconv.Itoa(it.Depth), inum(it.Domains), inum(it.Hosts), inum(it.Keys)})
	}
	return t
}

func depthTable(id, title, layer string, rows []mementomap.DepthStats) *report.Table {
	t := &report.Table{ID: id, Title: title,
		Columns: []report.Column{{Name: "depth"}, {Name: "Count", Unit: chart.Count}, {Name: "Sum", Unit: chart.Count},
			{Name: "Max", Unit: chart.Count}, {Name: "Mean", Unit: chart.Plain}, {Name: "Median", Unit: chart.Plain},
			{Name: "StdDev", Unit: chart.Plain}, {Name: "RedQ", Unit: chart.Plain}, {Name: "Parents", Unit: chart.Count},
			{Name: "Children", Unit: chart.Count}, {Name: "MeanChld", Unit: chart.Plain}}}
	for _, r := range rows {
		d := r.Prefixes
		mc := ""
		if r.Parents > 0 {
			mc = fmt.Sprintf("%.2f", r.MeanChildren)
		}
		t.Rows = append(t.Rows, []string{layer + strconv.Itoa(r.Depth), unum(d.N), unum(d.Sum), unum(d.Max),
			fmt.Sprintf("%.2f", d.Mean), num(d.Median), fmt.Sprintf("%.2f", d.StdDev), fmt.Sprintf("%.5f", r.RedQ),
			inum(r.Parents), unum(d.N), mc})
	}
	return t
}

func fitTable(f *mementomap.CutoffFit) *report.Table {
	t := &report.Table{ID: "fit", Title: "Fitted power laws a·(i+1)^(−k)",
		Columns: []report.Column{{Name: "layer"}, {Name: "space"}, {Name: "a", Unit: chart.Plain}, {Name: "k", Unit: chart.Plain},
			{Name: "k std. error", Unit: chart.Plain}, {Name: "R² (log)", Unit: chart.Plain}, {Name: "RMSE (log)", Unit: chart.Plain}, {Name: "depths"}, {Name: "reference a, k"},
			{Name: "compact -fit"}}}
	for _, r := range []struct {
		layer, space string
		f            mementomap.PowerLawFit
		ref          string
	}{{"host", "log", f.Host, "16.329, 0.714"}, {"path", "log", f.Path, "24.546, 1.429"},
		{"host", "linear", f.HostLinear, "16.329, 0.714"}, {"path", "linear", f.PathLinear, "24.546, 1.429"}} {
		var ds []string
		for _, q := range r.f.Points {
			ds = append(ds, string(r.layer[0]-32)+strconv.Itoa(q.Depth))
		}
		se := ""
		if r.f.KStdErr > 0 {
			se = fmt.Sprintf("%.3f", r.f.KStdErr)
		}
		use := "not used (comparison)"
		if r.space == "log" {
			use = "takes it"
			if reason := refusal(r.f); reason != "" {
				use = "refuses it: " + reason + "; -fit-fallback takes the reference's a and k"
			}
		}
		row := []string{r.layer, r.space, fmt.Sprintf("%.3f", r.f.A), fmt.Sprintf("%.3f", r.f.K), se,
			fmt.Sprintf("%.3f", r.f.R2), fmt.Sprintf("%.3f", r.f.RMSE), strings.Join(ds, " "), r.ref, use}
		if r.f.Unfitted != "" {
			row[2], row[3], row[5], row[6] = "", "", "", "" // no fit: no values
			if r.space != "log" {
				row[9] = "not fitted: " + r.f.Unfitted
			}
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = "k's standard error is from the log-space residuals; R² and RMSE are of ln(mean children) in both spaces, so that they compare."
	return t
}

// finish folds c's series beyond chart.MaxSeries into "other" (for bars;
// curves are cut to the first MaxSeries, named in the note) and checks it.
func finish(c *chart.Chart, what string, fold bool) (*chart.Chart, error) {
	n := len(c.Series)
	if n > chart.MaxSeries {
		if fold {
			c.Series = chart.Fold(c.Series, 0)
			c.Note = strings.TrimSpace(c.Note + fmt.Sprintf(" %d %s; the %d largest shown, the rest summed in %q.", n, what, len(c.Series)-1, c.Series[len(c.Series)-1].Name))
		} else {
			var left []string
			for _, s := range c.Series[chart.MaxSeries:] {
				left = append(left, s.Name)
			}
			c.Series = c.Series[:chart.MaxSeries]
			c.Note = strings.TrimSpace(c.Note + fmt.Sprintf(" %d %s; %d shown, %s left out (the tables hold them).", n, what, chart.MaxSeries, strings.Join(left, ", ")))
		}
	}
	if err := c.Finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// TLDChart is Table 1 as bars: the n TLDs with most URI-Rs, their shares
// of URI-Rs and URI-Ms side by side, the rest summed in one bar.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func TLDChart(p *mementomap.ArchiveProfile, n int) (*chart.Chart, error) {
	c := &chart.Chart{ID: "tld-shares", Title: "TLDs by share of URI-Rs and URI-Ms (Table 1)", Kind: chart.Bar,
		X: chart.Axis{Label: "TLD"}, Y: chart.Axis{Label: "share of the index", Unit: chart.Percent}}
	ur := chart.Series{Name: "URI-Rs"}
	um := chart.Series{Name: "URI-Ms"}
	var or, om float64
	for i, t := range p.TLDs {
		if i >= n {
			or += t.URIRShare
			om += t.URIMShare
			continue
		}
		c.Categories = append(c.Categories, "."+t.TLD)
		ur.Values = append(ur.Values, t.URIRShare)
		um.Values = append(um.Values, t.URIMShare)
	}
	if len(p.TLDs) > n {
		c.Categories = append(c.Categories, chart.OtherName(len(p.TLDs)-n))
		ur.Values = append(ur.Values, or)
		um.Values = append(um.Values, om)
		c.Note = fmt.Sprintf("%d TLDs; the %d with most URI-Rs shown, the rest summed.", len(p.TLDs), n)
	}
	c.Series = []chart.Series{ur, um}
	return finish(c, "series", true)
}

// LorenzChart is Figure 5: the Lorenz curve of mementos over URI-Rs, with
// the line of equality.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func LorenzChart(p *mementomap.ArchiveProfile) (*chart.Chart, error) {
	m := p.Mementos
	c := &chart.Chart{ID: "lorenz", Title: "Lorenz curve of mementos over URI-Rs (Figure 5)", Kind: chart.Line,
		X:    chart.Axis{Label: "share of URI-Rs, least archived first", Unit: chart.Percent},
		Y:    chart.Axis{Label: "share of mementos", Unit: chart.Percent},
		Note: fmt.Sprintf("Gini %.3f; the top %.1f %% of URI-Rs hold %.1f %% of mementos.", m.Gini, 100*m.ParetoShare, 100*(1-m.ParetoShare))}
	s := chart.Series{Name: "mementos"}
	for _, q := range m.Lorenz {
		s.Points = append(s.Points, chart.Point{X: q.Items, Y: q.Total})
	}
	if len(s.Points) == 0 {
		return nil, chart.ErrNoData
	}
	c.Series = []chart.Series{s, {Name: "equality", Points: []chart.Point{{X: 0, Y: 0}, {X: 1, Y: 1}}}}
	return finish(c, "series", false)
}

// MementoHistogram is the distribution behind Table 4: URI-Rs per memento
// count, on log axes. Only counts that some URI-R has are plotted: the
// line joins consecutive counts (Gap 1) and breaks where counts are
// missing, and a count with no neighbour, or a run of counts too short to
// read as a line (chart.Chart.PointMarks), is drawn as dots, so that no
// straight line across a gap reads as URI-Rs that are not there and no
// count is drawn too small to see.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func MementoHistogram(p *mementomap.ArchiveProfile) (*chart.Chart, error) {
	c := &chart.Chart{ID: "mementos-per-urir", Title: "URI-Rs by their number of mementos", Kind: chart.Line,
		X:    chart.Axis{Label: "mementos of a URI-R (log scale)", Type: chart.Log, Unit: chart.Count},
		Y:    chart.Axis{Label: "URI-Rs (log scale)", Type: chart.Log, Unit: chart.Count},
		Gap:  1,
		Note: "Only memento counts held by some URI-R are drawn: the line breaks at counts no URI-R has; a count alone, or a run of counts too short to read as a line, is drawn as dots."}
	s := chart.Series{Name: "URI-Rs"}
	for _, h := range p.Mementos.Histogram {
		if h.Count > 0 {
			s.Points = append(s.Points, chart.Point{X: float64(h.Count), Y: float64(h.Items)})
		}
	}
	if len(s.Points) == 0 {
		return nil, chart.ErrNoData
	}
	c.Series = []chart.Series{s}
	return finish(c, "series", false)
}

// YearChart is Figure 6: URI-Rs captured, new URI-Rs and URI-Ms per year.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func YearChart(p *mementomap.ArchiveProfile) (*chart.Chart, error) {
	c := &chart.Chart{ID: "per-year", Title: "Captures and URI-Rs per year (Figure 6)", Kind: chart.Bar,
		X: chart.Axis{Label: "capture year"}, Y: chart.Axis{Label: "count", Unit: chart.Count}}
	series := []chart.Series{{Name: "URI-Ms"}, {Name: "URI-Rs captured"}, {Name: "new URI-Rs"}}
	for _, y := range p.Years {
		c.Categories = append(c.Categories, yearName(y.Year))
		series[0].Values = append(series[0].Values, float64(y.URIMs))
		series[1].Values = append(series[1].Values, float64(y.URIRs))
		series[2].Values = append(series[2].Values, float64(y.New))
	}
	c.Series = series
	return finish(c, "series", true)
}

// StatusChart is the status columns of Table 6: each year's URI-Ms by
// status class, stacked to 100 %.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func StatusChart(p *mementomap.ArchiveProfile) (*chart.Chart, error) {
	c := &chart.Chart{ID: "status-per-year", Title: "Status classes of each year's captures (Table 6)", Kind: chart.StackedBar,
		X: chart.Axis{Label: "capture year"}, Y: chart.Axis{Label: "share of the year's URI-Ms", Unit: chart.Percent}}
	names := []struct {
		i    int
		name string
	}{{2, "2xx"}, {3, "3xx"}, {4, "4xx"}, {5, "5xx"}, {0, "other"}}
	series := make([]chart.Series, len(names))
	for i, n := range names {
		series[i].Name = n.name
	}
	for _, y := range p.Years {
		c.Categories = append(c.Categories, yearName(y.Year))
		for i, n := range names {
			series[i].Values = append(series[i].Values, ratio(y.Status[n.i], y.URIMs))
		}
	}
	c.Series = slices.DeleteFunc(series, func(s chart.Series) bool { return s.Total() == 0 })
	return finish(c, "series", true)
}

// DepthChart is Figure 7: distinct prefixes (Table 8's Count) per host and
// path depth, on a log axis.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func DepthChart(p *mementomap.ArchiveProfile) (*chart.Chart, error) {
	c := &chart.Chart{ID: "prefixes-per-depth", Title: "Distinct prefixes per depth (Table 8, Figure 7)", Kind: chart.Bar,
		X: chart.Axis{Label: "depth"}, Y: chart.Axis{Label: "distinct prefixes (log scale)", Type: chart.Log, Unit: chart.Count}}
	n := max(lastDepth(p.HostDepth), lastDepth(p.PathDepth)+1)
	host := chart.Series{Name: "host depth Hd"}
	path := chart.Series{Name: "path depth Pd"}
	at := func(rows []mementomap.DepthStats, d int) float64 {
		for _, r := range rows {
			if r.Depth == d {
				return float64(r.Prefixes.N)
			}
		}
		return 0
	}
	for d := 0; d < n; d++ {
		c.Categories = append(c.Categories, strconv.Itoa(d))
		host.Values = append(host.Values, at(p.HostDepth, d))
		path.Values = append(path.Values, at(p.PathDepth, d))
	}
	c.Series = []chart.Series{host, path}
	return finish(c, "series", true)
}

// law writes a·(i+1)^(−k) with its numbers.
// refusal is why compact -fit refuses the layer fit pl ("" when it takes
// it), in the words of [mementomap.PowerLawFit.Check] without its prefix.
func refusal(pl mementomap.PowerLawFit) string {
	err := pl.Check()
	if err == nil {
		return ""
	}
	return strings.TrimPrefix(err.Error(), mementomap.ErrPoorFit.Error()+": ")
}

// layerStatus states a layer's fit for compact -fit: fitted (a, k, R²),
// or refused with the reason and the reference's a and k that
// -fit-fallback takes instead.
func layerStatus(name string, pl mementomap.PowerLawFit, refA, refK float64) string {
	if reason := refusal(pl); reason != "" {
		return fmt.Sprintf("%s: refused (%s); with -fit-fallback, fallback to the reference's a %.3f, k %.3f", name, reason, refA, refK)
	}
	return fmt.Sprintf("%s: fitted, a %.3f, k %.3f, R² %.3f", name, pl.A, pl.K, pl.R2)
}

func law(a, k float64) string {
	if k < 0 {
		return fmt.Sprintf("%.2f·(i+1)^%.2f", a, -k)
	}
	return fmt.Sprintf("%.2f·(i+1)^−%.2f", a, k)
}

func lastDepth(rows []mementomap.DepthStats) int {
	if len(rows) == 0 {
		return 0
	}
	return rows[len(rows)-1].Depth + 1
}

// MeanChildrenChart is Table 8's MeanChld per depth, with the power laws
// fitted to it and the reference's, on a log axis. X is the depth d of the
// children, as in Table 8, the JSON's host_depth and path_depth rows and
// the fit's points ("depth"): a point at d is the mean children of a parent
// at d−1. The power law of a parent at compaction level i is a·(i+1)^(−k),
// with i = d−2 for hosts (H3's parents, at H2, are level 1) and i = d−1
// for paths (P1's parents, the hosts, are level 0); the chart's note says
// so. The X axis has whole-number ticks over the depths drawn.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func MeanChildrenChart(p *mementomap.ArchiveProfile) (*chart.Chart, error) {
	c := &chart.Chart{ID: "mean-children", Title: "Mean children per parent by depth, and the fitted cutoffs", Kind: chart.Line,
		X: chart.Axis{Label: "depth d of the children (hosts Hd, paths Pd); their parents are at d−1", Unit: chart.Whole},
		Y: chart.Axis{Label: "mean children per parent (log scale)", Type: chart.Log, Unit: chart.Plain},
		Note: "A point at depth d is the mean number of children at d of the parents at d−1 (Table 8's MeanChld). " +
			"The power laws a·(i+1)^(−k) are of the parents' compaction level i: d−2 for hosts (H3 is level 1), d−1 for paths (P1 is level 0)."}
	obs := func(name string, rows []mementomap.DepthStats, from int) chart.Series {
		s := chart.Series{Name: name}
		for _, r := range rows {
			if r.Depth >= from && r.MeanChildren > 0 {
				s.Points = append(s.Points, chart.Point{X: float64(r.Depth), Y: r.MeanChildren})
			}
		}
		return s
	}
	c.Series = append(c.Series, obs("hosts Hd, observed", p.HostDepth, 2), obs("paths Pd, observed", p.PathDepth, 1))
	// The fitted laws at the depths observed (the points are joined).
	// Only at the depths fitted (H3 and deeper, P1 and deeper): H2's
	// parents, the TLDs, never roll up.
	curve := func(name string, a, k float64, off int, pts []chart.Point) chart.Series {
		s := chart.Series{Name: name}
		for _, q := range pts {
			i := q.X - float64(off) // the parents' compaction level
			if off == 2 && i < 1 {
				continue
			}
			s.Points = append(s.Points, chart.Point{X: q.X, Y: a * math.Pow(i+1, -k)})
		}
		return s
	}
	if f := p.Fit; f != nil {
		refused := func(pl mementomap.PowerLawFit) string {
			if pl.Check() != nil {
				return " (refused by compact -fit)"
			}
			return ""
		}
		// An unfitted layer (too few depths) has no curve.
		if f.Host.Unfitted == "" {
			c.Series = append(c.Series, curve("hosts, fit "+law(f.Host.A, f.Host.K)+refused(f.Host), f.Host.A, f.Host.K, 2, c.Series[0].Points))
		}
		if f.Path.Unfitted == "" {
			c.Series = append(c.Series, curve("paths, fit "+law(f.Path.A, f.Path.K)+refused(f.Path), f.Path.A, f.Path.K, 1, c.Series[1].Points))
		}
	}
	c.Series = append(c.Series,
		curve("hosts, reference "+law(mementomap.DefaultHostAlpha, mementomap.DefaultHostK), mementomap.DefaultHostAlpha, mementomap.DefaultHostK, 2, c.Series[0].Points),
		curve("paths, reference "+law(mementomap.DefaultPathAlpha, mementomap.DefaultPathK), mementomap.DefaultPathAlpha, mementomap.DefaultPathK, 1, c.Series[1].Points))
	c.Series = slices.DeleteFunc(c.Series, func(s chart.Series) bool { return len(s.Points) == 0 })
	if len(c.Series) == 0 {
		return nil, chart.ErrNoData
	}
	return finish(c, "series", false)
}

// ReductionChart is Figure 8 for one layer: per depth (the depths with most
// prefixes, at most chart.MaxSeries), the share of keys left (global) or of
// the depth's nodes left (incremental) against the share rolled up.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func ReductionChart(rows []mementomap.DepthStats, layer string, incremental bool) (*chart.Chart, error) {
	kind, what := "global", "HxPx keys left"
	if incremental {
		kind, what = "incremental", "nodes of the depth left"
	}
	name := map[string]string{"H": "host", "P": "path"}[layer]
	c := &chart.Chart{ID: "reduction-" + kind + "-" + strings.ToLower(layer), Title: fmt.Sprintf("%s reduction per %s depth (Figure 8)", strings.ToUpper(kind[:1])+kind[1:], name),
		Kind: chart.Line,
		X:    chart.Axis{Label: "share of the prefixes rolled up, largest first", Unit: chart.Percent},
		Y:    chart.Axis{Label: "share of " + what, Unit: chart.Percent}}
	if incremental {
		c.X.Label = "share of the parents rolled up, most children first"
	}
	type cand struct {
		s chart.Series
		n uint64
	}
	var cs []cand
	for _, r := range rows {
		pts := r.Global
		if incremental {
			pts = r.Incremental
		}
		if len(pts) < 2 {
			continue
		}
		s := chart.Series{Name: layer + strconv.Itoa(r.Depth)}
		for _, q := range pts {
			s.Points = append(s.Points, chart.Point{X: q.Rolled, Y: q.Left})
		}
		cs = append(cs, cand{s, r.Prefixes.N})
	}
	if len(cs) == 0 {
		return nil, chart.ErrNoData
	}
	if len(cs) > chart.MaxSeries {
		all := len(cs)
		slices.SortStableFunc(cs, func(a, b cand) int {
			switch {
			case a.n > b.n:
				return -1
			case a.n < b.n:
				return 1
			}
			return 0
		})
		var left []string
		for _, x := range cs[chart.MaxSeries:] {
			left = append(left, x.s.Name)
		}
		cs = cs[:chart.MaxSeries]
		slices.SortStableFunc(cs, func(a, b cand) int { return strings.Compare(depthKey(a.s.Name), depthKey(b.s.Name)) })
		c.Note = fmt.Sprintf("%d depths; the %d with most prefixes shown (%s left out).", all, chart.MaxSeries, strings.Join(left, ", "))
	}
	for _, x := range cs {
		c.Series = append(c.Series, x.s)
	}
	return finish(c, "depths", false)
}

// depthKey orders "P2" before "P10".
func depthKey(name string) string {
	n, _ := strconv.Atoi(name[1:])
	return fmt.Sprintf("%s%04d", name[:1], n)
}

// CompactionChart is Figure 9: the output's size as the compaction reads
// the baseline map.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func CompactionChart(p *mementomap.ArchiveProfile) (*chart.Chart, error) {
	r := p.Compaction
	if r == nil || r.Stats.InLines == 0 {
		return nil, chart.ErrNoData
	}
	c := &chart.Chart{ID: "compaction", Title: "Output size during one compaction (Figure 9)", Kind: chart.Line,
		X: chart.Axis{Label: "baseline map lines read", Unit: chart.Count},
		Y: chart.Axis{Label: "output size", Unit: chart.Bytes},
		Note: fmt.Sprintf("W_h %g, W_p %g: %s lines in, %s out after %s roll-ups; the output drops at each roll-up.",
			r.HostFactor, r.PathFactor, chart.Exact(float64(r.Stats.InLines), chart.Count),
			chart.Exact(float64(r.Stats.OutLines), chart.Count), chart.Exact(float64(r.Stats.Rollups), chart.Count)) +
			fmt.Sprintf(" The input is %s.", chart.Human(float64(r.Stats.InBytes), chart.Bytes))}
	out := chart.Series{Name: "output", Points: []chart.Point{{X: 0, Y: 0}}}
	for _, q := range r.Points {
		if q.InLines > 0 {
			out.Points = append(out.Points, chart.Point{X: float64(q.InLines), Y: float64(q.OutBytes)})
		}
	}
	c.Series = []chart.Series{out}
	return finish(c, "series", false)
}
