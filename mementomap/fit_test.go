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

// depthRow is a row of Table 8 as Profile writes it: prefixes.n the count
// nearest mean·parents, and mean_children that count ÷ parents.
func depthRow(depth int, parents int64, mean float64) DepthStats {
	r := DepthStats{Depth: depth, Parents: parents}
	if parents > 0 {
		r.Prefixes.N = uint64(math.Round(mean * float64(parents)))
		r.MeanChildren = float64(r.Prefixes.N) / float64(parents)
	}
	return r
}

// paperProfile holds the mean children per depth of the paper's Table 8
// (Arquivo.pt; internal/spec/MEMENTOMAP.md), with the parents its counts give.
func paperProfile() *ArchiveProfile {
	p := &ArchiveProfile{Index: IndexStats{HxPxKeys: 1 << 40}}
	host := map[int]float64{2: 2287.98, 3: 8.53, 4: 8.95, 5: 7.77, 6: 6.28, 7: 3.42, 8: 4.55}
	for d := 1; d <= 8; d++ {
		p.HostDepth = append(p.HostDepth, depthRow(d, 1000, host[d]))
	}
	path := []float64{25.00, 7.25, 4.96, 3.26, 3.29, 2.70, 2.48, 2.09, 2.01}
	p.PathDepth = append(p.PathDepth, DepthStats{Depth: 0})
	for i, m := range path {
		p.PathDepth = append(p.PathDepth, depthRow(i+1, 1000, m))
	}
	return p
}

func TestFitCutoffsExactPowerLaw(t *testing.T) {
	// Mean children exactly 20·(i+1)^−1.2 at host levels 1..6 (H3..H8)
	// and 30·(i+1)^−1.5 at path levels 0..8 (P1..P9): the fit is exact
	// but for the rounding of mean·parents to a count (parents 10⁹).
	p := &ArchiveProfile{Index: IndexStats{HxPxKeys: 1 << 50}}
	for d := 1; d <= 9; d++ {
		m := 0.0
		if d >= 2 {
			m = 20 * math.Pow(float64(d-1), -1.2)
		}
		p.HostDepth = append(p.HostDepth, depthRow(d, 1e9, m))
	}
	for d := 0; d <= 9; d++ {
		m := 0.0
		if d >= 1 {
			m = 30 * math.Pow(float64(d), -1.5)
		}
		p.PathDepth = append(p.PathDepth, depthRow(d, 1e9, m))
	}
	// H2 carries a wild value: it is not fitted.
	p.HostDepth[1] = depthRow(2, 1e9, 5000)
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
		if math.Abs(c.got.A-c.a) > 1e-6 || math.Abs(c.got.K-c.k) > 1e-6 || math.Abs(c.got.R2-1) > 1e-9 || c.got.RMSE > 1e-6 {
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
	if math.Abs(h[1]-20*math.Pow(2, -1.2)) > 1e-6 || math.Abs(pc[0]-30) > 1e-6 {
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
	f, err := FitCutoffs(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Each layer on its own: the hosts are fitted, the paths are not.
	if err := f.Host.Check(); err != nil || f.Host.Unfitted != "" {
		t.Errorf("host fit %+v: %v; want a fit beside unfitted paths", f.Host, err)
	}
	if err := f.Path.Check(); !errors.Is(err, ErrFit) || !errors.Is(err, ErrPoorFit) || !strings.Contains(err.Error(), "1 depths between 1 and") {
		t.Errorf("path fit: %v; want ErrFit naming the depths", err)
	}
	if err := f.Check(); err == nil || err.Error() != "mementomap: poor fit for compaction cutoffs: paths: not fitted: too few depths to fit a power law: "+f.Path.Unfitted || !errors.Is(err, ErrFit) {
		t.Errorf("fit check %v; want the paths refused", err)
	}
	// Hosts with too few depths leave the paths fitted (the host layer
	// gave up both before).
	p = paperProfile()
	p.HostDepth = p.HostDepth[:3] // H1, H2, H3: one depth to fit
	if f, err = FitCutoffs(p, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Path.Check(); err != nil || f.Path.A == 0 {
		t.Errorf("path fit %+v: %v; want a fit beside unfitted hosts", f.Path, err)
	}
	if err := f.Host.Check(); !errors.Is(err, ErrFit) || f.HostLinear.Unfitted == "" {
		t.Errorf("host fit: %v (linear %+v); want ErrFit", err, f.HostLinear)
	}
	// Depths with too few parents are left out.
	if f, err = FitCutoffs(paperProfile(), 5000); err != nil || !errors.Is(f.Host.Check(), ErrFit) || !errors.Is(f.Path.Check(), ErrFit) {
		t.Errorf("minParents 5000: %v, %v, %v; want both layers ErrFit", err, f.Host.Check(), f.Path.Check())
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

// TestFitCutoffsRejectsBadRows: rows that no profile holds (a depth
// listed twice or out of range, negative counts, mean children that are
// not prefixes.n ÷ parents, such as 1e300 or +Inf, counts above the HxPx
// keys) are an ErrFitInput naming the JSON field, before any fit.
func TestFitCutoffsRejectsBadRows(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(p *ArchiveProfile)
		want string
	}{
		{"P3 twice", func(p *ArchiveProfile) { p.PathDepth = append(p.PathDepth, p.PathDepth[3]) },
			"path_depth[10] (P3).depth 3 listed twice"},
		{"H3 twice alone", func(p *ArchiveProfile) { p.HostDepth = []DepthStats{depthRow(3, 10, 8), depthRow(3, 10, 9)} },
			"host_depth[1] (H3).depth 3 listed twice"},
		{"H0", func(p *ArchiveProfile) { p.HostDepth[0].Depth = 0 }, "host_depth[0] (H0).depth 0 is outside 1 to 32"},
		{"P33", func(p *ArchiveProfile) { p.PathDepth[9].Depth = 33 }, "path_depth[9] (P33).depth 33 is outside 0 to 32"},
		{"negative parents", func(p *ArchiveProfile) { p.PathDepth[2].Parents = -4 }, "path_depth[2] (P2).parents -4 is negative"},
		{"negative mean", func(p *ArchiveProfile) { p.HostDepth[3].MeanChildren = -7.77 }, "host_depth[3] (H4).mean_children -7.77 is not a finite number of 0 or more"},
		{"+Inf mean", func(p *ArchiveProfile) { p.HostDepth[4].MeanChildren = math.Inf(1) }, "host_depth[4] (H5).mean_children +Inf is not a finite number"},
		{"NaN mean", func(p *ArchiveProfile) { p.PathDepth[1].MeanChildren = math.NaN() }, "path_depth[1] (P1).mean_children NaN"},
		{"1e300 mean", func(p *ArchiveProfile) {
			for i := range p.HostDepth {
				p.HostDepth[i].MeanChildren = 1e300
			}
		}, "host_depth[0] (H1).mean_children 1e+300 is not prefixes.n ÷ parents (0 ÷ 1000 = 0)"},
		{"mean without parents", func(p *ArchiveProfile) { p.PathDepth[0].MeanChildren = 3 }, "path_depth[0] (P0).mean_children 3 is not prefixes.n ÷ parents (0 ÷ 0 = 0)"},
		{"mean off by 1 %", func(p *ArchiveProfile) { p.PathDepth[4].MeanChildren *= 1.01 }, "path_depth[4] (P4).mean_children 3.2926 is not prefixes.n ÷ parents (3260 ÷ 1000 = 3.26)"},
		{"prefixes above keys", func(p *ArchiveProfile) { p.Index.HxPxKeys = 3000 }, "host_depth[1] (H2).prefixes.n 2287980 is more than index.hxpx_keys 3000"},
		{"parents above keys", func(p *ArchiveProfile) { p.Index.HxPxKeys = 999 }, "host_depth[0] (H1).parents 1000 is more than index.hxpx_keys 999"},
		{"negative keys", func(p *ArchiveProfile) { p.Index.HxPxKeys = -1 }, "index.hxpx_keys -1 is negative"},
	} {
		p := paperProfile()
		c.edit(p)
		_, err := FitCutoffs(p, 0)
		if !errors.Is(err, ErrFitInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrFitInput with %q", c.name, err, c.want)
		}
	}
	if err := paperProfile().CheckDepths(); err != nil {
		t.Errorf("the paper's rows: %v", err)
	}
}

// TestFitCheck: a fit with k ≤ 0, R² below MinFitR2 or a value that is
// not finite is refused as cutoffs (ErrPoorFit, naming the layer); the fits
// of the paper's Table 8 are taken.
func TestFitCheck(t *testing.T) {
	f, err := FitCutoffs(paperProfile(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); err != nil {
		t.Errorf("the paper's fit: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(f *CutoffFit)
		want string
	}{
		// The host fit of 300,000 cdxgen lines (TestFitCutoffsCdxgen).
		{"negative k", func(f *CutoffFit) { f.Host.K, f.Host.R2 = -0.39, 0.42 }, "mementomap: poor fit for compaction cutoffs: hosts: k = -0.390 (R² 0.420): cutoffs would not shrink with depth"},
		{"zero k", func(f *CutoffFit) { f.Path.K = 0 }, "mementomap: poor fit for compaction cutoffs: paths: k = 0.000"},
		{"low R²", func(f *CutoffFit) { f.Host.R2 = 0.246 }, "mementomap: poor fit for compaction cutoffs: hosts: R² = 0.246 (k = 0.682), below 0.50"},
		{"NaN k", func(f *CutoffFit) { f.Path.K = math.NaN() }, "mementomap: poor fit for compaction cutoffs: paths: a = 18.81626"},
		{"infinite a", func(f *CutoffFit) { f.Host.A = math.Inf(1) }, "mementomap: poor fit for compaction cutoffs: hosts: a = +Inf"},
		{"zero a", func(f *CutoffFit) { f.Path.A = 0 }, "mementomap: poor fit for compaction cutoffs: paths: a = 0, not above 0"},
	} {
		g := f
		c.edit(&g)
		err := g.Check()
		if !errors.Is(err, ErrPoorFit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrPoorFit with %q", c.name, err, c.want)
		}
	}
	g := f
	g.Host.K, g.Path.R2 = -1, 0.1
	if err := g.Check(); err == nil || !strings.Contains(err.Error(), "hosts: ") || !strings.Contains(err.Error(), "paths: ") {
		t.Errorf("both layers poor: %v, want both named", err)
	}
}
