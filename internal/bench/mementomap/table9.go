package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/mementomap"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// weights are the paper's W_h and W_p values (Table 9).
var weights = []float64{4, 2, 1, 0.5, 0.25, 0}

// cell is one map of the chain.
type cell struct {
	wh, wp     float64
	lines      int64
	cost, acc  float64
	prec, rec  float64
	rollups    int64
	compaction time.Duration
}

// table9 makes the 36 chained maps and evaluates each (and the baseline,
// returned first with infinite weights).
func table9(ctx context.Context, c config, logf func(string, ...any)) ([]cell, error) {
	p := func(name string) string { return filepath.Join(c.Dir, name) }
	lookups, err := readLines(p("eval.urls"))
	if err != nil {
		return nil, err
	}
	f, err := cdxj.Open(ctx, p("index.cdxj"), nil)
	if err != nil {
		return nil, err
	}
	truth, err := mementomap.LoadTruth(ctx, []cdxj.Searcher{f}, lookups, nil)
	f.Close()
	if err != nil {
		return nil, err
	}
	eval := func(path string) (mementomap.Eval, error) {
		m, err := mementomap.Open(path)
		if err != nil {
			return mementomap.Eval{}, err
		}
		defer m.Close()
		e, err := mementomap.Evaluate(m, truth)
		if err != nil {
			return e, err
		}
		return e, e.Check()
	}
	be, err := eval(p("base.ukvs"))
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	inf := math.Inf(1)
	cells := []cell{{wh: inf, wp: inf, lines: be.Lines, cost: be.RelativeCost, acc: be.Accuracy, prec: be.Precision, rec: be.Recall}}
	name := func(wh, wp float64) string { return p(fmt.Sprintf("map-h%g-p%g.ukvs", wh, wp)) }
	rowFirst := p("base.ukvs")
	for _, wh := range weights {
		prev := rowFirst
		for j, wp := range weights {
			out := name(wh, wp)
			in, err := os.Open(prev)
			if err != nil {
				return nil, err
			}
			o := mementomap.DefaultCompactOptions()
			o.HostFactor, o.PathFactor, o.TempDir = wh, wp, c.Dir
			t0 := time.Now()
			st, err := benchutil.WriteFile(out, func(w io.Writer) (mementomap.CompactStats, error) { return mementomap.Compact(w, in, o) })
			in.Close()
			if err != nil {
				return nil, fmt.Errorf("W=(%g,%g): %w", wh, wp, err)
			}
			d := time.Since(t0)
			e, err := eval(out)
			if err != nil {
				return nil, fmt.Errorf("W=(%g,%g): %w", wh, wp, err)
			}
			cells = append(cells, cell{wh: wh, wp: wp, lines: e.Lines, cost: e.RelativeCost, acc: e.Accuracy,
				prec: e.Precision, rec: e.Recall, rollups: st.Rollups, compaction: d})
			logf("W=(%g,%g): %d lines, relative cost %.4f, accuracy %.4f", wh, wp, e.Lines, e.RelativeCost, e.Accuracy)
			if prev != rowFirst && prev != p("base.ukvs") {
				os.Remove(prev)
			}
			if j == 0 {
				if rowFirst != p("base.ukvs") {
					defer os.Remove(rowFirst)
				}
				rowFirst = out
			}
			prev = out
		}
		if prev != rowFirst {
			os.Remove(prev)
		}
	}
	return cells, nil
}

func writeTable9(w io.Writer, cells []cell) {
	b := cells[0]
	fmt.Fprintf(w, "\n## Table 9: relative cost / accuracy of chained compaction (%%)\n\n")
	fmt.Fprintf(w, "baseline map: %d lines, relative cost %.2f%%, accuracy %.2f%%, precision %.4f, recall %.4f\n\n", b.lines, 100*b.cost, 100*b.acc, b.prec, b.rec)
	fmt.Fprintf(w, "| W_h \\ W_p |")
	for _, wp := range weights {
		fmt.Fprintf(w, " %g |", wp)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(weights)))
	for i, wh := range weights {
		fmt.Fprintf(w, "| %g |", wh)
		for j := range weights {
			c := cells[1+i*len(weights)+j]
			fmt.Fprintf(w, " %.2f / %.2f |", 100*c.cost, 100*c.acc)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nEvery map: recall 1.0000 (zero false negatives); per map:\n\n| W_h | W_p | lines | roll-ups | relative cost | accuracy | precision | compaction |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range cells[1:] {
		fmt.Fprintf(w, "| %g | %g | %d | %d | %.4f | %.4f | %.4f | %s |\n", c.wh, c.wp, c.lines, c.rollups, c.cost, c.acc, c.prec, c.compaction.Round(time.Millisecond))
	}
}

// plotFigure10 draws accuracy against relative cost, one line per W_h
// through its six W_p values (the paper's Figure 10).
func plotFigure10(cells []cell, path string) error {
	p := plot.New()
	p.Title.Text = "MementoMap compaction: relative cost vs accuracy"
	p.X.Label.Text = "relative cost (%)"
	p.Y.Label.Text = "accuracy (%)"
	p.Legend.Top = false // bottom right: the curves rise to the top right
	for i, wh := range weights {
		pts := make(plotter.XYs, len(weights))
		for j := range weights {
			c := cells[1+i*len(weights)+j]
			pts[j].X, pts[j].Y = 100*c.cost, 100*c.acc
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color = plotColor(i)
		s.Color = plotColor(i)
		p.Add(l, s)
		p.Legend.Add(fmt.Sprintf("W_h=%g", wh), l, s)
	}
	return p.Save(7*vg.Inch, 5*vg.Inch, path)
}
