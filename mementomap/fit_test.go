package mementomap

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
)

// paperProfile holds the mean children per depth of the paper's Table 8
// (Arquivo.pt; internal/spec/MEMENTOMAP.md), with the parents its counts give.
func paperProfile() *ArchiveProfile {
	p := &ArchiveProfile{}
	host := map[int]float64{2: 2287.98, 3: 8.53, 4: 8.95, 5: 7.77, 6: 6.28, 7: 3.42, 8: 4.55}
	for d := 1; d <= 8; d++ {
		p.HostDepth = append(p.HostDepth, DepthStats{Depth: d, Parents: 1000, MeanChildren: host[d]})
	}
	path := []float64{25.00, 7.25, 4.96, 3.26, 3.29, 2.70, 2.48, 2.09, 2.01}
	p.PathDepth = append(p.PathDepth, DepthStats{Depth: 0})
	for i, m := range path {
		p.PathDepth = append(p.PathDepth, DepthStats{Depth: i + 1, Parents: 1000, MeanChildren: m})
	}
	return p
}

func TestFitCutoffsExactPowerLaw(t *testing.T) {
	// Mean children exactly 20·(i+1)^−1.2 at host levels 1..6 (H3..H8)
	// and 30·(i+1)^−1.5 at path levels 0..8 (P1..P9): the fit is exact.
	p := &ArchiveProfile{}
	for d := 1; d <= 9; d++ {
		m := 0.0
		if d >= 2 {
			m = 20 * math.Pow(float64(d-1), -1.2)
		}
		p.HostDepth = append(p.HostDepth, DepthStats{Depth: d, Parents: 5, MeanChildren: m})
	}
	for d := 0; d <= 9; d++ {
		m := 0.0
		if d >= 1 {
			m = 30 * math.Pow(float64(d), -1.5)
		}
		p.PathDepth = append(p.PathDepth, DepthStats{Depth: d, Parents: 5, MeanChildren: m})
	}
	// H2 carries a wild value: it is not fitted.
	p.HostDepth[1].MeanChildren = 5000
	f, err := FitCutoffs(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		got    PowerLawFit
		a, k   float64
		points int
	}{{"host", f.Host, 20, 1.2, 7}, {"path", f.Path, 30, 1.5, 9}} {
		if math.Abs(c.got.A-c.a) > 1e-9 || math.Abs(c.got.K-c.k) > 1e-9 || math.Abs(c.got.R2-1) > 1e-9 || c.got.RMSE > 1e-9 {
			t.Errorf("%s: fit %+v, want a %v k %v, R² 1, RMSE 0", c.name, c.got, c.a, c.k)
		}
		if len(c.got.Points) != c.points {
			t.Errorf("%s: %d points, want %d", c.name, len(c.got.Points), c.points)
		}
	}
	if f.Host.Points[0].Depth != 3 || f.Host.Points[0].Level != 1 || f.Path.Points[0].Depth != 1 || f.Path.Points[0].Level != 0 {
		t.Errorf("first points %+v %+v, want H3 at level 1 and P1 at level 0", f.Host.Points[0], f.Path.Points[0])
	}
	o := DefaultCompactOptions().WithFit(f)
	h, pc := o.Cutoffs()
	if math.Abs(h[1]-20*math.Pow(2, -1.2)) > 1e-9 || math.Abs(pc[0]-30) > 1e-9 {
		t.Errorf("cutoffs %v %v", h, pc)
	}
}

func TestFitCutoffsPaperTable8(t *testing.T) {
	// The log-space least squares of the paper's own rows, worked out
	// apart (x = level+1, y = mean children):
	// hosts, x 2..7, y 8.53 8.95 7.77 6.28 3.42 4.55: a = 16.3966, k = 0.68207;
	// paths, x 1..9, y 25.00 7.25 4.96 3.26 3.29 2.70 2.48 2.09 2.01:
	// a = 18.8163, k = 1.08592.
	// The reference's host constants (16.329, 0.714) are within 0.5 % and
	// 0.032 of the first; its path constants (24.546, 1.429) are the
	// linear-space least squares of the same row, not a log-space fit.
	f, err := FitCutoffs(paperProfile(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Host.A-16.39660) > 1e-4 || math.Abs(f.Host.K-0.682074) > 1e-5 {
		t.Errorf("host fit %v %v, want 16.3966 0.682074", f.Host.A, f.Host.K)
	}
	if math.Abs(f.Path.A-18.81626) > 1e-4 || math.Abs(f.Path.K-1.085922) > 1e-5 {
		t.Errorf("path fit %v %v, want 18.8163 1.085922", f.Path.A, f.Path.K)
	}
	// The linear-space fit of the path row is the reference's constants
	// (a grid search apart gave a 24.55, k 1.43 at steps of 0.01).
	if math.Abs(f.PathLinear.A-24.546) > 0.01 || math.Abs(f.PathLinear.K-1.429) > 0.001 {
		t.Errorf("linear path fit %v %v, want 24.546 1.429", f.PathLinear.A, f.PathLinear.K)
	}
	if f.Host.R2 <= 0 || f.Host.R2 >= 1 || f.Path.R2 < 0.9 {
		t.Errorf("R² host %v path %v", f.Host.R2, f.Path.R2)
	}
}

func TestFitCutoffsTooFew(t *testing.T) {
	p := paperProfile()
	p.PathDepth = p.PathDepth[:2] // P0, P1
	if _, err := FitCutoffs(p, 0); !errors.Is(err, ErrFit) {
		t.Errorf("err %v, want ErrFit", err)
	}
	// Depths with too few parents are left out.
	if _, err := FitCutoffs(paperProfile(), 5000); !errors.Is(err, ErrFit) {
		t.Errorf("minParents 5000: err %v, want ErrFit", err)
	}
}

// TestFitCutoffsCdxgen fits the cutoffs to cdxgen data, whose host and
// path trees are drawn with the paper's Table 8 mean children, and checks
// that the path fit comes back near the paper's constants.
//
// How near, and why these tolerances: the linear-space path fit is the one
// that reproduces the reference's 24.546 and 1.429 from Table 8 itself
// (TestFitCutoffsPaperTable8), so it is held to them; the log-space fit is
// held to the log-space fit of Table 8 (18.816, 1.086). At 300,000 lines
// (about 300 hosts, 8 s of test) seeds 1, 2 and 3 gave linear a 24.41,
// 23.44, 29.55 and k 1.412, 1.383, 1.627, log a 18.97, 18.06, 20.99 and k
// 1.087, 1.053, 1.148: P1's mean over a few hundred heavy-tailed hosts
// moves by about 10 % from seed to seed. The tolerances are twice that
// spread: a within 20 % and k within 0.2 (linear), a within 15 % and k
// within 0.1 (log). Seed 1 is the one tested (deterministic output).
//
// The host layer is not held to anything here: 300 hosts give under 20
// parents per host depth, and its fit is noise (seed 1: a 4.3, k −0.39,
// R² 0.42). internal/bench/profile reports the host fit at 16 M lines.
func TestFitCutoffsCdxgen(t *testing.T) {
	if raceEnabled {
		t.Skip("a statistical test of 300,000 generated lines, single-goroutine: minutes under the race detector; run without -race")
	}
	var buf bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 300000, Seed: 1}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("cdxgen", &buf, nil)}, &ProfileOptions{NoCompaction: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := FitCutoffs(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Path.Points {
		t.Logf("P%d: mean children %.2f over %d parents", q.Depth, q.MeanChildren, q.Parents)
	}
	for _, q := range f.Host.Points {
		t.Logf("H%d: mean children %.2f over %d parents", q.Depth, q.MeanChildren, q.Parents)
	}
	t.Logf("log space: host a %.3f k %.3f (±%.3f, R² %.3f); path a %.3f k %.3f (±%.3f, R² %.3f)", f.Host.A, f.Host.K, f.Host.KStdErr, f.Host.R2, f.Path.A, f.Path.K, f.Path.KStdErr, f.Path.R2)
	t.Logf("linear space: host a %.3f k %.3f; path a %.3f k %.3f", f.HostLinear.A, f.HostLinear.K, f.PathLinear.A, f.PathLinear.K)
	if math.Abs(f.PathLinear.A-24.546) > 0.20*24.546 || math.Abs(f.PathLinear.K-1.429) > 0.2 {
		t.Errorf("linear-space path fit a %.3f k %.3f, want within 20 %% of 24.546 and 0.2 of 1.429", f.PathLinear.A, f.PathLinear.K)
	}
	if math.Abs(f.Path.A-18.816) > 0.15*18.816 || math.Abs(f.Path.K-1.086) > 0.1 {
		t.Errorf("log-space path fit a %.3f k %.3f, want within 15 %% of 18.816 and 0.1 of 1.086", f.Path.A, f.Path.K)
	}
	if f.Path.R2 < 0.9 {
		t.Errorf("log-space path fit R² %.3f, want 0.9 or more", f.Path.R2)
	}
}

// TestFitCutoffsRejectsUnfittable: a depth listed twice, or mean children
// so large that the fit is not finite, is an error naming layer and depth.
func TestFitCutoffsRejectsUnfittable(t *testing.T) {
	p := paperProfile()
	p.PathDepth = append(p.PathDepth, p.PathDepth[3])
	_, err := FitCutoffs(p, 0)
	if !errors.Is(err, ErrFitInput) || err.Error() != "paths mementomap: depth rows cannot be fitted: depth 3 listed twice" {
		t.Errorf("duplicate P3: %v", err)
	}
	// Two rows of one depth alone would fit with a NaN slope and r² 1.
	p = paperProfile()
	p.HostDepth = []DepthStats{{Depth: 3, Parents: 10, MeanChildren: 8}, {Depth: 3, Parents: 10, MeanChildren: 9}}
	if _, err := FitCutoffs(p, 0); !errors.Is(err, ErrFitInput) || !strings.Contains(err.Error(), "hosts") || !strings.Contains(err.Error(), "depth 3") {
		t.Errorf("H3 twice: %v", err)
	}
	p = paperProfile()
	p.PathDepth = p.PathDepth[:3]
	p.PathDepth[1].MeanChildren = math.MaxFloat64
	p.PathDepth[2].MeanChildren = 1e-320
	f, err := FitCutoffs(p, 0)
	if !errors.Is(err, ErrFitInput) || !strings.Contains(err.Error(), "paths") {
		t.Errorf("extreme mean children: %v (fit %+v)", err, f.Path)
	}
	p = paperProfile()
	p.HostDepth[4].MeanChildren = math.Inf(1)
	if _, err := FitCutoffs(p, 0); !errors.Is(err, ErrFitInput) || !strings.Contains(err.Error(), "depth 5: mean children +Inf") {
		t.Errorf("+Inf mean children: %v", err)
	}
}
