package summary

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// ChartSize is the size of the charts this package draws.
var ChartSize = struct{ W, H vg.Length }{20 * vg.Centimeter, 12 * vg.Centimeter}

// Series is one named summary for the comparison charts.
type Series struct {
	Name  string
	Lines []Line
}

// ErrNoData is returned by the chart functions when their input holds no
// period (or no day) to draw, instead of an empty or broken image.
var ErrNoData = errors.New("summary: nothing to chart: the inputs hold no data")

// ChartFormat returns the image format of a chart path from its extension:
// "svg" or "png". Other extensions are an error.
func ChartFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("summary: chart %q: want a .svg or .png file", path)
	}
}

// yearTotals sums counter idx per year over all lines of s, and counts the
// keys with n_total > 0 per year.
func yearTotals(s Series, idx int) (sum map[int]int64, keys map[int]int64) {
	sum, keys = map[int]int64{}, map[int]int64{}
	for _, l := range s.Lines {
		held := map[int]bool{}
		for _, p := range l.Periods {
			y := p.Period.Year()
			sum[y] += p.Counters[idx]
			if p.Counters[NTotal] > 0 {
				held[y] = true
			}
		}
		for y := range held {
			keys[y]++
		}
	}
	return sum, keys
}

func yearsOf(series []Series) []int {
	set := map[int]bool{}
	for _, s := range series {
		for _, l := range s.Lines {
			for _, p := range l.Periods {
				set[p.Period.Year()] = true
			}
		}
	}
	ys := make([]int, 0, len(set))
	for y := range set {
		ys = append(ys, y)
	}
	slices.Sort(ys)
	return ys
}

// HTMLBytesChart draws, for each summary, the bytes of HTML captures per
// year (s_html summed over keys), one line per summary. Summaries without
// any period give ErrNoData.
func HTMLBytesChart(series []Series) (*plot.Plot, error) {
	if len(yearsOf(series)) == 0 {
		return nil, ErrNoData
	}
	p := plot.New()
	p.Title.Text = "HTML bytes per year"
	p.X.Label.Text = "year"
	p.Y.Label.Text = "bytes (s_html)"
	var args []any
	for _, s := range series {
		sum, _ := yearTotals(s, SHTML)
		ys := make([]int, 0, len(sum))
		for y := range sum {
			ys = append(ys, y)
		}
		slices.Sort(ys)
		xy := make(plotter.XYs, len(ys))
		for i, y := range ys {
			xy[i] = plotter.XY{X: float64(y), Y: float64(sum[y])}
		}
		args = append(args, s.Name, xy)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	return p, nil
}

// DomainsChart draws the number of keys (domains) each summary holds per
// year (keys with n_total > 0), as bars side by side. Summaries without
// any period give ErrNoData.
func DomainsChart(series []Series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Domains held per year"
	p.Y.Label.Text = "keys with captures"
	years := yearsOf(series)
	if len(years) == 0 {
		return nil, ErrNoData
	}
	names := make([]string, len(years))
	for i, y := range years {
		names[i] = fmt.Sprint(y)
	}
	w := vg.Points(40 / float64(max(1, len(series))))
	for i, s := range series {
		_, keys := yearTotals(s, NTotal)
		vals := make(plotter.Values, len(years))
		for j, y := range years {
			vals[j] = float64(keys[y])
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		bars.Offset = w * vg.Length(float64(i)-float64(len(series)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
	}
	p.Legend.Top = true
	if len(names) > 0 {
		p.NominalX(names...)
	}
	return p, nil
}

// DailyChart draws the daily series: captures per day, one line per
// organization and one for the total. An empty series gives ErrNoData.
func DailyChart(days []Day) (*plot.Plot, error) {
	if len(days) == 0 {
		return nil, ErrNoData
	}
	p := plot.New()
	p.Title.Text = "Captures per day"
	p.Y.Label.Text = "captures"
	p.X.Tick.Marker = plot.TimeTicks{Format: "2006-01-02"}
	orgSet := map[string]bool{}
	for _, d := range days {
		for o := range d.Orgs {
			orgSet[o] = true
		}
	}
	orgs := make([]string, 0, len(orgSet))
	for o := range orgSet {
		orgs = append(orgs, o)
	}
	slices.Sort(orgs)
	var args []any
	for _, o := range append(orgs, "total") {
		xy := make(plotter.XYs, 0, len(days))
		for _, d := range days {
			t, err := time.Parse("20060102", d.Day)
			if err != nil {
				return nil, fmt.Errorf("summary: day %q: %v", d.Day, err)
			}
			var v int64
			if o == "total" {
				v = d.Totals().Count
			} else {
				v = d.Orgs[o].Count
			}
			xy = append(xy, plotter.XY{X: float64(t.Unix()), Y: float64(v)})
		}
		args = append(args, o, xy)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	return p, nil
}

// WriteChart renders p in format ("svg" or "png") to w at ChartSize.
func WriteChart(w io.Writer, p *plot.Plot, format string) error {
	wt, err := p.WriterTo(ChartSize.W, ChartSize.H, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// SaveChart renders p to path (.svg or .png), through a temporary file in
// the same folder renamed into place, so that an interrupted run never
// leaves a partial image.
func SaveChart(path string, p *plot.Plot) error {
	format, err := ChartFormat(path)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, func(w io.Writer) error { return WriteChart(w, p, format) })
}

// WriteFileAtomic creates path by writing a temporary file in the same
// folder with write, then renaming it into place. On any error the
// temporary file is removed, path is untouched, and the error names path.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("summary: writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("summary: writing %s: %w", path, err)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
