package mementomap

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// PowerLawFit is a power law a·(i+1)^(−k) fitted to the mean children per
// depth of one layer (the paper's Table 8 and its cutoffs; see
// [FitCutoffs]).
type PowerLawFit struct {
	A float64 `json:"a"`
	K float64 `json:"k"`
	// R2 is the coefficient of determination of the fit in log space
	// (1 is a perfect fit; 0 no better than a constant), RMSE the root mean
	// square of its residuals ln(observed) − ln(fitted): 0.1 means the
	// points lie about 10 % off the curve.
	R2   float64 `json:"r2"`
	RMSE float64 `json:"rmse"`
	// KStdErr is the standard error of K from the regression's residuals
	// (√(SSE/(n−2) ÷ Σ(ln x − mean)²), 0 with two points): K ± 2·KStdErr
	// is about a 95 % interval if the points scatter at random around a
	// power law. Log space only.
	KStdErr float64 `json:"k_stderr,omitempty"`
	// Points are the depths fitted.
	Points []FitPoint `json:"points"`
	// Unfitted says why the layer could not be fitted at all ("1 depths
	// between 3 and 8 with 1 or more parents": fewer than two depths), ""
	// for a fit; A, K, R2 and RMSE are then 0. [PowerLawFit.Check] refuses
	// such a layer, wrapping ErrFit.
	Unfitted string `json:"unfitted,omitempty"`
}

// FitPoint is one depth of a fit.
type FitPoint struct {
	Depth int `json:"depth"` // the children's depth (H3, P1, …)
	// Level is the compaction level i of their parents (host: Depth−2,
	// path: Depth−1), whose cutoff is a·(Level+1)^(−k).
	Level        int     `json:"level"`
	MeanChildren float64 `json:"mean_children"`
	Parents      int64   `json:"parents"`
	Fitted       float64 `json:"fitted"`
}

// CutoffFit is the fit of both layers: Host and Path in log space (the
// cutoffs [CompactOptions.WithFit] takes), HostLinear and PathLinear by
// least squares of the mean children themselves (linear space, which
// weighs the shallow depths with many children most), for comparison with
// the reference tool's constants.
type CutoffFit struct {
	Host       PowerLawFit `json:"host"`
	Path       PowerLawFit `json:"path"`
	HostLinear PowerLawFit `json:"host_linear"`
	PathLinear PowerLawFit `json:"path_linear"`
}

// ErrFit reports a profile with too few depths to fit a power law: two
// are needed with mean children above zero.
var ErrFit = errors.New("mementomap: too few depths to fit a power law")

// ErrFitInput reports depth rows that cannot be fitted: a depth listed
// twice, a mean children that is not finite, or a fit whose a, k, r² or
// RMSE is not finite (mean children too large for float64). The error
// names the layer and the depth.
var ErrFitInput = errors.New("mementomap: depth rows cannot be fitted")

// MinFitR2 is the least coefficient of determination (log space) of a
// fit that [PowerLawFit.Check] takes as cutoffs. Below it the depths
// scatter so much around the power law that its k is mostly noise: on
// cdxgen data shaped like Arquivo.pt (seed 1) the host fit has R² 0.42
// and k −0.39 at 300,000 lines (319 hosts), R² 0.25 and k 0.66 ± 0.66 at
// 1 M, R² 0.65 at 4 M and 0.78 at 16 M (17,123 hosts); the path fits have
// R² 0.94 or more from 300,000 lines on (internal/spec/MEMENTOMAP.md,
// "Fitting the cutoffs", gives a and k per size).
const MinFitR2 = 0.5

// ErrPoorFit reports a fit that is no basis for compaction cutoffs: a k of
// 0 or less (cutoffs that stay or grow with depth, where the paper's
// shrink), a value that is not finite, or an R² below [MinFitR2].
var ErrPoorFit = errors.New("mementomap: poor fit for compaction cutoffs")

// Check reports whether pl can serve as compaction cutoffs: nil, or
// ErrPoorFit (wrapped, giving the value) when the layer could not be
// fitted (Unfitted, wrapping ErrFit too: too few depths), when k ≤ 0, when
// a, k or R² is not finite or a ≤ 0, or when R² is below [MinFitR2].
func (pl *PowerLawFit) Check() error {
	switch {
	case pl.Unfitted != "":
		return &fitError{ErrPoorFit.Error() + ": not fitted: " + strings.TrimPrefix(ErrFit.Error(), "mementomap: ") + ": " + pl.Unfitted, []error{ErrPoorFit, ErrFit}}
	case bad(pl.A) || bad(pl.K) || bad(pl.R2):
		return fmt.Errorf("%w: a = %v, k = %v, R² = %v (not finite)", ErrPoorFit, pl.A, pl.K, pl.R2)
	case pl.A <= 0:
		return fmt.Errorf("%w: a = %.4g, not above 0", ErrPoorFit, pl.A)
	case pl.K <= 0:
		return fmt.Errorf("%w: k = %.3f (R² %.3f): cutoffs would not shrink with depth", ErrPoorFit, pl.K, pl.R2)
	case pl.R2 < MinFitR2:
		return fmt.Errorf("%w: R² = %.3f (k = %.3f), below %.2f: the depths do not follow a power law closely enough", ErrPoorFit, pl.R2, pl.K, MinFitR2)
	}
	return nil
}

// Check reports whether both layers that [CompactOptions.WithFit] takes
// (Host and Path, the log-space fits) can serve as cutoffs: nil, or the
// errors of [PowerLawFit.Check] in one line ("mementomap: poor fit for
// compaction cutoffs: hosts: …; paths: …"), naming each layer and
// wrapping their errors (so ErrPoorFit, and ErrFit for a layer not fitted).
func (f *CutoffFit) Check() error {
	he, pe := f.Host.Check(), f.Path.Check()
	detail := func(err error) string { return strings.TrimPrefix(err.Error(), ErrPoorFit.Error()+": ") }
	switch {
	case he != nil && pe != nil:
		return &fitError{ErrPoorFit.Error() + ": hosts: " + detail(he) + "; paths: " + detail(pe), []error{he, pe}}
	case he != nil:
		return &fitError{ErrPoorFit.Error() + ": hosts: " + detail(he), []error{he}}
	case pe != nil:
		return &fitError{ErrPoorFit.Error() + ": paths: " + detail(pe), []error{pe}}
	}
	return nil
}

// fitError is an error of a fit check that names the package once and
// wraps the errors it was made of.
type fitError struct {
	msg  string
	errs []error
}

func (e *fitError) Error() string   { return e.msg }
func (e *fitError) Unwrap() []error { return e.errs }

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// CheckDepths checks the rows [FitCutoffs] reads (HostDepth and PathDepth
// with the Index's HxPxKeys), as a profile read back from JSON may hold
// anything: each row's depth within 1 (hosts) or 0 (paths) to
// [ProfileMaxDepth] and listed once, parents and mean_children not
// negative, mean_children finite and equal to prefixes.n ÷ parents (0
// without parents, to a relative 1e−9), and no prefixes.n or parents
// above index.hxpx_keys (every prefix and every parent covers at least
// one HxPx key). A profile that [Profile] wrote passes. The error wraps
// ErrFitInput and names the field as JSON does:
// "host_depth[2] (H3).mean_children".
func (p *ArchiveProfile) CheckDepths() error {
	keys := p.Index.HxPxKeys
	if keys < 0 {
		return fmt.Errorf("%w: index.hxpx_keys %d is negative", ErrFitInput, keys)
	}
	for _, l := range []struct {
		field, name string
		lo          int
		rows        []DepthStats
	}{{"host_depth", "H", 1, p.HostDepth}, {"path_depth", "P", 0, p.PathDepth}} {
		seen := map[int]bool{}
		for i, r := range l.rows {
			at := fmt.Sprintf("%s[%d] (%s%d)", l.field, i, l.name, r.Depth)
			bound := func(what string, v uint64) error {
				if v > uint64(keys) {
					return fmt.Errorf("%w: %s.%s %d is more than index.hxpx_keys %d", ErrFitInput, at, what, v, keys)
				}
				return nil
			}
			switch {
			case r.Depth < l.lo || r.Depth > ProfileMaxDepth:
				return fmt.Errorf("%w: %s.depth %d is outside %d to %d", ErrFitInput, at, r.Depth, l.lo, ProfileMaxDepth)
			case seen[r.Depth]:
				return fmt.Errorf("%w: %s.depth %d listed twice", ErrFitInput, at, r.Depth)
			case r.Parents < 0:
				return fmt.Errorf("%w: %s.parents %d is negative", ErrFitInput, at, r.Parents)
			case bad(r.MeanChildren) || r.MeanChildren < 0:
				return fmt.Errorf("%w: %s.mean_children %v is not a finite number of 0 or more", ErrFitInput, at, r.MeanChildren)
			}
			seen[r.Depth] = true
			if err := bound("prefixes.n", r.Prefixes.N); err != nil {
				return err
			}
			if err := bound("parents", uint64(r.Parents)); err != nil {
				return err
			}
			want := 0.0
			if r.Parents > 0 {
				want = float64(r.Prefixes.N) / float64(r.Parents)
			}
			if math.Abs(r.MeanChildren-want) > 1e-9*want {
				return fmt.Errorf("%w: %s.mean_children %.6g is not prefixes.n ÷ parents (%d ÷ %d = %.6g)", ErrFitInput, at, r.MeanChildren, r.Prefixes.N, r.Parents, want)
			}
		}
	}
	return nil
}

// FitCutoffs fits the compaction cutoffs to an archive's tree
// (internal/spec/MEMENTOMAP.md, "Fitting the cutoffs"): for each layer, the
// power law a·(i+1)^(−k) by least squares in log space (ln m = ln a −
// k·ln(i+1), each depth weighing the same) to the mean children per
// parent, where i is the compaction level of the parents. Host depths H3
// to H(DefaultHostDepth+1) are fitted (H1 has the root for parent; rolling
// up under a TLD, H2, needs knowledge of each TLD), path depths P1 to
// P(DefaultPathDepth) (P0 has nothing to roll into); depths with fewer
// than minParents parents are left out (0 means 1). The reference tool's
// constants (host 16.329, 0.714; path 24.546, 1.429) are a fit on
// Arquivo.pt; its path constants are the least-squares fit in linear
// space of the paper's P1–P9 row, and its log-space fit is a = 18.8,
// k = 1.09; its host constants are near the log-space fit of H3–H8
// (16.40, 0.682). It returns ErrFit (wrapped, naming the layer) when a
// Each layer is fitted on its own: a layer with fewer than two depths to
// fit is returned unfitted (PowerLawFit.Unfitted says why, its linear fit
// too) beside the other layer's fit. It returns ErrFitInput (wrapped,
// naming the field) for rows that [ArchiveProfile.CheckDepths] refuses or
// that cannot be fitted. A fit it returns may still be no basis for
// cutoffs: [CutoffFit.Check] says so, per layer.
func FitCutoffs(p *ArchiveProfile, minParents int64) (CutoffFit, error) {
	if minParents <= 0 {
		minParents = 1
	}
	var f CutoffFit
	if err := p.CheckDepths(); err != nil {
		return f, err
	}
	for _, l := range []struct {
		name        string
		rows        []DepthStats
		lo, hi, off int
		log, linear *PowerLawFit
	}{
		{"hosts", p.HostDepth, 3, DefaultHostDepth + 1, 2, &f.Host, &f.HostLinear},
		{"paths", p.PathDepth, 1, DefaultPathDepth, 1, &f.Path, &f.PathLinear},
	} {
		pl, err := fitLayer(l.rows, l.lo, l.hi, l.off, minParents)
		if errors.Is(err, ErrFitInput) {
			return f, fmt.Errorf("%s %w", l.name, err)
		}
		if err != nil {
			pl = PowerLawFit{Points: pl.Points, Unfitted: err.Error()}
			*l.log, *l.linear = pl, pl
			continue
		}
		*l.log = pl
		*l.linear = linearFit(pl)
		if err := finite(*l.linear); err != nil {
			return f, fmt.Errorf("%s (linear fit) %w", l.name, err)
		}
	}
	return f, nil
}

func fitLayer(rows []DepthStats, lo, hi, levelOff int, minParents int64) (PowerLawFit, error) {
	var pl PowerLawFit
	seen := map[int]bool{}
	for _, r := range rows {
		if seen[r.Depth] {
			return pl, fmt.Errorf("%w: depth %d listed twice", ErrFitInput, r.Depth)
		}
		seen[r.Depth] = true
		if math.IsNaN(r.MeanChildren) || math.IsInf(r.MeanChildren, 0) {
			return pl, fmt.Errorf("%w: depth %d: mean children %v", ErrFitInput, r.Depth, r.MeanChildren)
		}
		if r.Depth < lo || r.Depth > hi || r.Parents < minParents || r.MeanChildren <= 0 {
			continue
		}
		pl.Points = append(pl.Points, FitPoint{Depth: r.Depth, Level: r.Depth - levelOff, MeanChildren: r.MeanChildren, Parents: r.Parents})
	}
	if len(pl.Points) < 2 {
		return pl, fmt.Errorf("%d depths between %d and %d with %d or more parents", len(pl.Points), lo, hi, minParents)
	}
	n := float64(len(pl.Points))
	var mx, my float64
	for _, q := range pl.Points {
		mx += math.Log(float64(q.Level + 1))
		my += math.Log(q.MeanChildren)
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for _, q := range pl.Points {
		x, y := math.Log(float64(q.Level+1))-mx, math.Log(q.MeanChildren)-my
		sxy += x * y
		sxx += x * x
		syy += y * y
	}
	slope := sxy / sxx
	pl.K = -slope
	pl.A = math.Exp(my - slope*mx)
	var sse float64
	for i := range pl.Points {
		q := &pl.Points[i]
		q.Fitted = pl.A * math.Pow(float64(q.Level+1), -pl.K)
		r := math.Log(q.MeanChildren) - math.Log(q.Fitted)
		sse += r * r
	}
	pl.RMSE = math.Sqrt(sse / n)
	pl.R2 = 1
	if syy > 0 {
		pl.R2 = 1 - sse/syy
	}
	if n > 2 {
		pl.KStdErr = math.Sqrt(sse / (n - 2) / sxx)
	}
	return pl, finite(pl)
}

// finite checks that a fit's a, k, r² and RMSE are finite numbers.
func finite(pl PowerLawFit) error {
	for _, v := range [...]struct {
		name string
		v    float64
	}{{"a", pl.A}, {"k", pl.K}, {"r2", pl.R2}, {"rmse", pl.RMSE}} {
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) {
			return fmt.Errorf("%w: depths %d to %d give %s = %v", ErrFitInput, pl.Points[0].Depth, pl.Points[len(pl.Points)-1].Depth, v.name, v.v)
		}
	}
	return nil
}

// linearFit fits a·x^(−k) to the points of lf by least squares of the
// values themselves: for a given k the best a is Σ y·x^(−k) ÷ Σ x^(−2k),
// and k is searched on a grid of 0.001 from −5 to 10 around which the
// error is then refined by golden section. R2 and RMSE are of the
// log-space residuals, as for the log-space fit, so that the two compare.
func linearFit(lf PowerLawFit) PowerLawFit {
	pts := lf.Points
	aFor := func(k float64) float64 {
		var num, den float64
		for _, q := range pts {
			x := math.Pow(float64(q.Level+1), -k)
			num += q.MeanChildren * x
			den += x * x
		}
		return num / den
	}
	sse := func(k float64) float64 {
		a := aFor(k)
		var s float64
		for _, q := range pts {
			r := q.MeanChildren - a*math.Pow(float64(q.Level+1), -k)
			s += r * r
		}
		return s
	}
	best, bestE := 0.0, math.Inf(1)
	for k := -5.0; k <= 10; k += 0.01 {
		if e := sse(k); e < bestE {
			best, bestE = k, e
		}
	}
	lo, hi := best-0.01, best+0.01
	const phi = 0.6180339887498949
	for range 60 {
		m1, m2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
		if sse(m1) < sse(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	out := PowerLawFit{K: (lo + hi) / 2}
	out.A = aFor(out.K)
	var my, syy, s float64
	for _, q := range pts {
		my += math.Log(q.MeanChildren)
	}
	my /= float64(len(pts))
	for _, q := range pts {
		f := out.A * math.Pow(float64(q.Level+1), -out.K)
		out.Points = append(out.Points, FitPoint{Depth: q.Depth, Level: q.Level, MeanChildren: q.MeanChildren, Parents: q.Parents, Fitted: f})
		r := math.Log(q.MeanChildren) - math.Log(f)
		s += r * r
		syy += (math.Log(q.MeanChildren) - my) * (math.Log(q.MeanChildren) - my)
	}
	out.RMSE = math.Sqrt(s / float64(len(pts)))
	out.R2 = 1
	if syy > 0 {
		out.R2 = 1 - s/syy
	}
	return out
}

// WithFit returns a copy of o with the host and path power laws of f (its a and k;
// the factors W_h and W_p and everything else as in o).
func (o CompactOptions) WithFit(f CutoffFit) *CompactOptions {
	o.HostAlpha, o.HostK = f.Host.A, nonzero(f.Host.K)
	o.PathAlpha, o.PathK = f.Path.A, nonzero(f.Path.K)
	return &o
}

// nonzero keeps a fitted k of exactly 0 (flat mean children) from being
// read as "the default" by CompactOptions.
func nonzero(k float64) float64 {
	if k == 0 {
		return math.SmallestNonzeroFloat64
	}
	return k
}
