// Package chart is the module's chart model and its static renderer: a
// Chart says what is plotted — series after the top-N fold, values with
// their unit, axis ranges and tick labels — apart from how it is drawn, so
// that one model feeds a PNG or SVG image (Render, Save, drawn with
// gonum.org/v1/plot) and an interactive HTML report (package
// internal/report), and tests compare the model, not pixels.
//
// # Reading at a glance
//
// The rules every chart keeps:
//
//   - at most MaxSeries series; Fold sums the smallest (by total) into one
//     "other (N)" series, drawn last, in grey;
//   - values in human units: counts as 950, 1.5k, 2M, 3G; bytes in decimal
//     units (1 KB = 1000 bytes) as 500 B, 1.5 MB, 2 GB; exact numbers with
//     thousands separators (1,234,567) wherever a single value is shown;
//   - date axes with ticks on whole days, months or years, chosen so that
//     about eight are labelled; year axes (a linear X axis of Unit Year, or
//     categories that are consecutive years) label every year when the
//     labels fit, else every 2nd, 5th, 10th, ... year, and always the
//     data's first and last year;
//   - line series told apart where they coincide: each its own marker
//     (Markers) and, after the first, its own dash (Dashes), drawn over
//     the earlier series so a line equal to another's shows through;
//   - a line series with a Gap breaks wherever two points are farther apart
//     than the gap (days months apart are not joined);
//   - logarithmic axes labelled once per power of ten: 1, 10, 100, 1k, ...;
//   - a title, axis labels, and the legend beside the plot, never over it.
//
// # Building a chart
//
// Fill a Chart (Kind, Title, axis labels and units, Categories or points,
// Series), optionally Fold its series, then call Finish, which checks it and
// computes the axis ranges and ticks. A Chart without any value to draw is
// ErrNoData.
package chart

import (
	"errors"
	"fmt"
	"math"
)

// Kind is the shape of a chart.
type Kind string

// The kinds of chart.
const (
	// Line draws each series as a line through its Points (X ascending, on
	// a linear, log or time X axis),
	// broken where consecutive points are more than Chart.Gap apart; a point
	// with no neighbour within the gap is drawn as a dot.
	Line Kind = "line"
	// Bar draws one bar per series and category, side by side
	// (Series[i].Values[j] for Categories[j]).
	Bar Kind = "bar"
	// StackedBar draws one bar per category, the series stacked bottom-up in
	// their order.
	StackedBar Kind = "stacked-bar"
	// Treemap draws one rectangle per category of the first series, its area
	// proportional to the value (squarified layout).
	Treemap Kind = "treemap"
)

// AxisType is how positions along an axis are read.
type AxisType string

// The axis types.
const (
	// Linear is a numeric axis.
	Linear AxisType = "linear"
	// Log is a logarithmic numeric axis (base 10); only positive values are drawn.
	Log AxisType = "log"
	// Time is a date axis; values are Unix seconds (UTC).
	Time AxisType = "time"
	// Category is the X axis of bar charts: one slot per Chart.Categories
	// entry, at positions 0, 1, 2, ...
	Category AxisType = "category"
)

// Unit is how the values along an axis are written.
type Unit string

// The units.
const (
	// Count values are written 950, 1.5k, 2M, 3G, 4T (exactly: 1,234,567).
	Count Unit = "count"
	// Bytes values are written in decimal units: 500 B, 1.5 KB, 2 MB, 3 GB
	// (1 KB = 1000 bytes; exactly: 1,234,567 bytes).
	Bytes Unit = "bytes"
	// Percent values are fractions written as percentages (0.25 → 25%).
	Percent Unit = "percent"
	// Plain values are written as numbers, without separators (depths, ratios).
	Plain Unit = "plain"
	// Year values are years: written as they are, ticks on whole years.
	Year Unit = "year"
	// Whole values are whole numbers such as depths: written as they are,
	// ticks on whole numbers only, as for Year; a line chart whose points
	// all have one X spans half a unit either side, so that its one tick
	// is that value.
	Whole Unit = "whole"
)

// MaxSeries is the most series a chart shows (Fold's default).
const MaxSeries = 8

// Axis is one axis of a chart.
type Axis struct {
	Label string   `json:"label"`          // the axis title, with its unit where the ticks do not carry it
	Type  AxisType `json:"type"`           // Linear when empty
	Unit  Unit     `json:"unit,omitempty"` // Plain when empty
	// Min and Max are the range drawn, set by Finish.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Ticks are the labelled positions of the static chart (and unlabelled
	// minor ones), set by Finish.
	Ticks []Tick `json:"ticks"`
}

// Tick is one tick mark; an empty Label is a minor tick.
type Tick struct {
	Value float64 `json:"value"`
	Label string  `json:"label,omitempty"`
}

// Point is one point of a line series.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Series is one named data series.
type Series struct {
	Name string `json:"name"`
	// Values holds one value per category (Bar, StackedBar, Treemap).
	Values []float64 `json:"values,omitempty"`
	// Points holds the points of a Line series, X ascending.
	Points []Point `json:"points,omitempty"`
	// Folded names the series Fold summed into this one (its "other").
	Folded []string `json:"folded,omitempty"`
}

// Total returns the sum of the series' values (or of its points' Y).
func (s *Series) Total() float64 {
	t := 0.0
	for _, v := range s.Values {
		t += v
	}
	for _, p := range s.Points {
		t += p.Y
	}
	return t
}

// Chart is one chart: what is plotted and how its axes read.
type Chart struct {
	// ID names the chart in file names and HTML anchors ("captures-per-year").
	ID    string `json:"id"`
	Title string `json:"title"`
	// Note is one line under the chart saying what was folded or left out.
	Note       string   `json:"note,omitempty"`
	Kind       Kind     `json:"kind"`
	Categories []string `json:"categories,omitempty"`
	X          Axis     `json:"x"`
	Y          Axis     `json:"y"`
	Series     []Series `json:"series"`
	// Gap, for Line charts, is the largest X distance between two points
	// that are joined (86400 for a daily series); 0 joins every point.
	Gap float64 `json:"gap,omitempty"`
}

// ErrNoData is returned by Finish for a chart with no value to draw,
// instead of an empty or broken image.
var ErrNoData = errors.New("chart: nothing to chart: the inputs hold no data")

// Finish checks c and sets its axis ranges and ticks. It returns ErrNoData
// when no series holds a value (a Log axis needs a positive one), and an
// error for a malformed chart: an unknown kind, values that do not match the
// categories, points out of order, or a value that is NaN or infinite.
func (c *Chart) Finish() error {
	if c.X.Type == "" {
		c.X.Type = Linear
	}
	if c.Y.Type == "" {
		c.Y.Type = Linear
	}
	if c.X.Unit == "" {
		c.X.Unit = Plain
	}
	if c.Y.Unit == "" {
		c.Y.Unit = Plain
	}
	switch c.Kind {
	case Line:
		if c.X.Type == Category {
			return fmt.Errorf("chart %s: a line chart needs a linear, log or time X axis, not %s", c.ID, c.X.Type)
		}
	case Bar, StackedBar, Treemap:
		c.X.Type = Category
	default:
		return fmt.Errorf("chart %s: unknown kind %q", c.ID, c.Kind)
	}
	if c.Y.Type != Linear && c.Y.Type != Log {
		return fmt.Errorf("chart %s: the Y axis must be linear or log, not %s", c.ID, c.Y.Type)
	}
	if c.Y.Type == Log && c.Kind == StackedBar {
		return fmt.Errorf("chart %s: stacked bars on a log axis misread: use a linear Y axis", c.ID)
	}
	has := false
	for _, s := range c.Series {
		if c.Kind == Line {
			if len(s.Values) > 0 {
				return fmt.Errorf("chart %s: line series %q has values instead of points", c.ID, s.Name)
			}
			for i, p := range s.Points {
				if bad(p.X) || bad(p.Y) {
					return fmt.Errorf("chart %s: series %q point %d is not a finite number", c.ID, s.Name, i)
				}
				if c.X.Type == Log && p.X <= 0 {
					return fmt.Errorf("chart %s: series %q point %d: X %g on a log axis", c.ID, s.Name, i, p.X)
				}
				if i > 0 && p.X <= s.Points[i-1].X {
					return fmt.Errorf("chart %s: series %q points are not in ascending X order at %d", c.ID, s.Name, i)
				}
				has = has || c.Y.Type != Log || p.Y > 0
			}
			continue
		}
		if len(s.Points) > 0 || len(s.Values) != len(c.Categories) {
			return fmt.Errorf("chart %s: series %q has %d values for %d categories", c.ID, s.Name, len(s.Values), len(c.Categories))
		}
		for j, v := range s.Values {
			if bad(v) {
				return fmt.Errorf("chart %s: series %q value %d is not a finite number", c.ID, s.Name, j)
			}
			has = has || v > 0 || (v < 0 && c.Kind == Bar && c.Y.Type == Linear)
		}
	}
	if !has {
		return ErrNoData
	}
	if c.Kind == Treemap {
		c.X.Min, c.X.Max, c.X.Ticks = 0, 0, nil
		c.Y.Min, c.Y.Max, c.Y.Ticks = 0, 0, nil
		return nil
	}
	c.setRanges()
	c.X.Ticks = c.xTicks()
	c.Y.Ticks = valueTicks(c.Y)
	return nil
}

// shareSlack is the rounding error allowed in shares that sum to 1 (a
// stack of fractions of one total).
const shareSlack = 1e-9

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// setRanges sets X and Y ranges from the data: categories span -0.5 to
// n-0.5; a linear Y axis starts at 0 (or below, for negative bars) and ends
// at a nice step above the largest value; a log axis spans whole powers of
// ten around the positive values, and for bars starts at half the power of
// ten below when the smallest bar is itself a power of ten.
func (c *Chart) setRanges() {
	ymin, ymax := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if c.Y.Type == Log && v <= 0 {
			return
		}
		ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
	}
	switch c.Kind {
	case Line:
		xmin, xmax := math.Inf(1), math.Inf(-1)
		for _, s := range c.Series {
			for _, p := range s.Points {
				xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
				see(p.Y)
			}
		}
		switch {
		case c.X.Type == Log:
			xmin = math.Pow(10, math.Floor(math.Log10(xmin)))
			xmax = math.Max(math.Pow(10, math.Ceil(math.Log10(xmax))), xmin*10)
		case xmin == xmax: // one point: a day, or a unit, either side
			w := 1.0
			switch {
			case c.X.Type == Time:
				w = 86400
			case c.X.Unit == Whole:
				w = 0.5
			}
			xmin, xmax = xmin-w, xmax+w
		}
		c.X.Min, c.X.Max = xmin, xmax
	case StackedBar:
		for j := range c.Categories {
			sum := 0.0
			for _, s := range c.Series {
				if s.Values[j] > 0 {
					sum += s.Values[j]
				}
			}
			see(sum)
		}
		c.X.Min, c.X.Max = -0.5, float64(len(c.Categories))-0.5
	default:
		for _, s := range c.Series {
			for _, v := range s.Values {
				see(v)
			}
		}
		c.X.Min, c.X.Max = -0.5, float64(len(c.Categories))-0.5
	}
	if c.Y.Type == Log {
		c.Y.Min = math.Pow(10, math.Floor(math.Log10(ymin)))
		c.Y.Max = math.Pow(10, math.Ceil(math.Log10(ymax)))
		if c.Kind != Line && c.Y.Min >= ymin {
			// Bars rise from the floor: half a power lower keeps the
			// smallest bar (1, 10, ...) visible.
			c.Y.Min /= 2
		}
		if c.Y.Max <= c.Y.Min {
			c.Y.Max = c.Y.Min * 10
		}
		return
	}
	lo := math.Min(0, ymin)
	hi := math.Max(0, ymax)
	if hi == lo {
		hi = lo + 1
	}
	step := niceStep((hi-lo)/5, c.Y.Unit)
	c.Y.Min = math.Floor(lo/step) * step
	c.Y.Max = math.Ceil(hi/step) * step
	// A share axis ends at 100 %: stacked shares that sum to 1 in exact
	// arithmetic may come to 1 plus a rounding error, which is no reason
	// to draw the axis to 120 %.
	if c.Y.Unit == Percent && ymax <= 1+shareSlack && c.Y.Max > 1 {
		c.Y.Max = 1
	}
}
