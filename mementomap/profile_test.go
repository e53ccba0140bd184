package mementomap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/surt"
)

// profileIndex is a hand-made index whose profile is worked out by hand in
// TestProfileHandMade. Nine URI-Rs, twelve captures:
//
//	R1 com,example)/          2010 200, 2011 200, 2011 404
//	R2 com,example)/a         2010 200
//	R3 com,example)/a/b       2012 301
//	R4 com,example)/a/b?x=1   2012 200
//	R5 com,example)/a-b       2011 200 (sorts between /a and /a/b)
//	R6 com,example,mail)/c    2010 200
//	R7 org,test)/             2012 200
//	R8 pt,gov,portal)/x/y/z   2012 500
//	R9 1,0,0,127)/            2010 200, 2012 200 (an IP host)
//
// The lines are out of order on purpose: Profile sorts.
const profileIndex = `com,example)/ 20100101000000 {"url": "http://example.com/", "status": "200"}
com,example)/ 20110101000000 {"url": "http://example.com/", "status": "200"}
com,example)/ 20110601000000 {"url": "http://example.com/", "status": "404"}
com,example)/a 20100315000000 {"url": "http://example.com/a", "status": "200"}
com,example)/a/b 20120101000000 {"url": "http://example.com/a/b", "status": "301"}
com,example)/a/b?x=1 20120101000000 {"url": "http://example.com/a/b?x=1", "status": "200"}
com,example)/a-b 20110101000000 {"url": "http://example.com/a-b", "status": "200"}
pt,gov,portal)/x/y/z 20121231235959 {"url": "http://portal.gov.pt/x/y/z", "status": "500"}
com,example,mail)/c 20100101000000 {"url": "http://mail.example.com/c", "status": "200"}
org,test)/ 20120101000000 {"url": "http://test.org/", "status": "200"}
1,0,0,127)/ 20100101000000 {"url": "http://127.0.0.1/", "status": "200"}
1,0,0,127)/ 20120101000000 {"url": "http://127.0.0.1/", "status": "200"}
`

func profileString(t *testing.T, o ProfileOptions, idx ...string) *ArchiveProfile {
	t.Helper()
	var ins []cdxj.Searcher
	for _, s := range idx {
		ins = append(ins, cdxj.NewStream("in", strings.NewReader(s), nil))
	}
	p, err := Profile(context.Background(), ins, &o)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	return p
}

var approx = cmpopts.EquateApprox(0, 1e-9)

func TestProfileHandMade(t *testing.T) {
	p := profileString(t, ProfileOptions{Top: 3}, profileIndex)

	// Table 2. HxPx keys: the query of R4 is cut, so R3 and R4 share
	// com,example)/a/b: 8 keys. Hosts: 127.0.0.1, example.com,
	// mail.example.com, test.org, portal.gov.pt; domains: example.com
	// (two hosts), test.org, portal.gov.pt (the IP host has none).
	wantIndex := IndexStats{Lines: 12, URIMs: 12, URIRs: 9, HxPxKeys: 8, Hosts: 5, IPHosts: 1,
		Domains: 3, TLDs: 3,
		First: new(time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)), Last: new(time.Date(2012, 12, 31, 23, 59, 59, 0, time.UTC)),
		IndexBytes: int64(len(profileIndex)),
		// The baseline map's lines (see the compaction below).
		MapBytes: int64(len(baselineOfProfileIndex)),
	}
	if diff := cmp.Diff(wantIndex, p.Index); diff != "" {
		t.Errorf("Table 2 (-want +got):\n%s", diff)
	}

	// Table 1: com holds R1..R6 (6 URI-Rs, 3+1+1+1+1+1 = 8 URI-Ms); org
	// R7 (1, 1); pt R8 (1, 1); the IP host R9 is in no TLD. Shares are of
	// all URI-Rs and URI-Ms.
	wantTLDs := []TLDShare{
		{"com", 6, 8, 6.0 / 9, 8.0 / 12},
		{"org", 1, 1, 1.0 / 9, 1.0 / 12},
		{"pt", 1, 1, 1.0 / 9, 1.0 / 12},
	}
	if diff := cmp.Diff(wantTLDs, p.TLDs, approx); diff != "" {
		t.Errorf("Table 1 (-want +got):\n%s", diff)
	}

	// Table 4. Mementos per URI-R: 1 ×7, 2 (R9), 3 (R1). N 9, sum 12,
	// mean 12/9, median the 5th value: 1. Deviations from 4/3: −1/3 (×7),
	// 2/3, 5/3; squares 7/9 + 4/9 + 25/9 = 4; variance 4/9, stddev 2/3.
	// Gini: Σ(2i−n−1)·x_i over x = 1,1,1,1,1,1,1,2,3 with weights
	// −8,−6,−4,−2,0,2,4,6,8: −14 + 12 + 24 = 22; 22 ÷ (9·12) = 22/108.
	// Pareto: the top 1 URI-R holds 3 (3/12 + 1/9 < 1), the top 2 hold 5
	// (5/12 + 2/9 < 1); t more of the 1s: (5+t)/12 + (2+t)/9 = 1 gives
	// t = 13/7, so the share is (2 + 13/7)/9 = 3/7 (holding 4/7).
	// Lorenz: (0,0), after the 1s (7/9, 7/12), after the 2 (8/9, 9/12), (1,1).
	wantMementos := MementoStats{
		Distribution: Distribution{N: 9, Sum: 12, Max: 3, Min: 1, Mean: 12.0 / 9, Median: 1, StdDev: 2.0 / 3},
		Inequality: Inequality{Gini: 22.0 / 108, ParetoShare: 3.0 / 7,
			Lorenz: []LorenzPoint{{0, 0}, {7.0 / 9, 7.0 / 12}, {8.0 / 9, 9.0 / 12}, {1, 1}}},
		Histogram: []CountFrequency{{1, 7}, {2, 1}, {3, 1}},
	}
	if diff := cmp.Diff(wantMementos, p.Mementos, approx); diff != "" {
		t.Errorf("Table 4 (-want +got):\n%s", diff)
	}

	// Table 5: R1 (3), R9 (2), then of the URI-Rs with one memento the
	// first met: com,example)/a.
	wantTop := []URIRCount{{"com,example)/", 3}, {"1,0,0,127)/", 2}, {"com,example)/a", 1}}
	if diff := cmp.Diff(wantTop, p.TopURIRs); diff != "" {
		t.Errorf("Table 5 (-want +got):\n%s", diff)
	}

	// Table 6. 2010: R1, R2, R6, R9 (all new), 4 captures, all 2xx.
	// 2011: R1 (seen) and R5 (new), 3 captures (2xx 2, 4xx 1).
	// 2012: R3, R4, R7, R8 new and R9 seen: 5 URI-Rs, 5 captures (2xx R4,
	// R7, R9; 3xx R3; 5xx R8). Running: URI-R+ 4, 5, 9; URI-Ms 4, 7, 12.
	wantYears := []YearStats{
		{Year: 2010, URIRs: 4, New: 4, URIMs: 4, CumURIRs: 4, CumURIMs: 4, DupShare: 0, Gamma: 1, CumGamma: 1, Status: [6]int64{2: 4}},
		{Year: 2011, URIRs: 2, New: 1, URIMs: 3, CumURIRs: 5, CumURIMs: 7, DupShare: 0.5, Gamma: 1.5, CumGamma: 7.0 / 5, Status: [6]int64{2: 2, 4: 1}},
		{Year: 2012, URIRs: 5, New: 4, URIMs: 5, CumURIRs: 9, CumURIMs: 12, DupShare: 0.2, Gamma: 1, CumGamma: 12.0 / 9, Status: [6]int64{2: 3, 3: 1, 5: 1}},
	}
	if diff := cmp.Diff(wantYears, p.Years, approx); diff != "" {
		t.Errorf("Table 6 (-want +got):\n%s", diff)
	}

	// Table 7. Hosts by labels: com,example and org,test 2;
	// com,example,mail and pt,gov,portal 3; 1,0,0,127 4. Domains:
	// example.com and test.org 2, portal.gov.pt 3. Keys by path depth:
	// 0: com,example)/, org,test)/, 1,0,0,127)/; 1: /a, /a-b, mail /c;
	// 2: /a/b; 3: /x/y/z.
	wantItems := []DepthItems{
		{Depth: 0, Keys: 3},
		{Depth: 1, Keys: 3},
		{Depth: 2, Domains: 2, Hosts: 2, Keys: 1},
		{Depth: 3, Domains: 1, Hosts: 2, Keys: 1},
		{Depth: 4, Hosts: 1},
	}
	if diff := cmp.Diff(wantItems, p.Items); diff != "" {
		t.Errorf("Table 7 (-want +got):\n%s", diff)
	}

	// Table 8, host layer, over the 8 keys.
	// H1: "1" 1 key, com 5, org 1, pt 1: Count 4, Sum 8, mean 2, median
	//     (1+1)/2, deviations −1,−1,−1,3: variance 12/4, stddev √3;
	//     RedQ (8−4)/8; one parent (the root) with 4 children.
	// H2: "1,0" 1, com,example 5, org,test 1, pt,gov 1: the same numbers;
	//     parents: the 4 TLDs with 1 child each.
	// H3: 1,0,0 / com,example,mail / pt,gov,portal, 1 key each: RedQ 0;
	//     parents "1,0", com,example, pt,gov.
	// H4: 1,0,0,127: 1 key, 1 parent.
	d := func(n, sum, max, min uint64, mean, median, sd float64) Distribution {
		return Distribution{N: n, Sum: sum, Max: max, Min: min, Mean: mean, Median: median, StdDev: sd}
	}
	ones := func(n uint64) Distribution { return d(n, n, 1, 1, 1, 1, 0) }
	wantHost := []DepthStats{
		{Depth: 1, Prefixes: d(4, 8, 5, 1, 2, 1, math.Sqrt(3)), RedQ: 0.5, Parents: 1, MeanChildren: 4, Children: d(1, 4, 4, 4, 4, 4, 0)},
		{Depth: 2, Prefixes: d(4, 8, 5, 1, 2, 1, math.Sqrt(3)), RedQ: 0.5, Parents: 4, MeanChildren: 1, Children: ones(4)},
		{Depth: 3, Prefixes: ones(3), RedQ: 0, Parents: 3, MeanChildren: 1, Children: ones(3)},
		{Depth: 4, Prefixes: ones(1), RedQ: 0, Parents: 1, MeanChildren: 1, Children: ones(1)},
	}
	// Path layer.
	// P0: the 5 hosts: com,example 4 keys, the others 1: Count 5, Sum 8,
	//     mean 1.6, median 1, deviations −0.6 (×4), 2.4: (4·0.36 +
	//     5.76)/5 = 1.44, stddev 1.2; RedQ (8−5)/8; no parents.
	// P1: com,example)/a (/a and /a/b: 2), com,example)/a-b, mail /c,
	//     portal /x: Count 4, Sum 5, mean 1.25, median 1, deviations
	//     −0.25 (×3), 0.75: 0.75/4, stddev √0.1875; RedQ (5−4)/8; parents
	//     com,example (2 children), mail, portal (1 each).
	// P2: /a/b and /x/y: Count 2, Sum 2; parents /a and /x.
	// P3: /x/y/z; parent /x/y.
	wantPath := []DepthStats{
		{Depth: 0, Prefixes: d(5, 8, 4, 1, 1.6, 1, 1.2), RedQ: 3.0 / 8},
		{Depth: 1, Prefixes: d(4, 5, 2, 1, 1.25, 1, math.Sqrt(0.1875)), RedQ: 1.0 / 8, Parents: 3, MeanChildren: 4.0 / 3,
			Children: d(3, 4, 2, 1, 4.0/3, 1, math.Sqrt(2.0/9))},
		{Depth: 2, Prefixes: ones(2), Parents: 2, MeanChildren: 1, Children: ones(2)},
		{Depth: 3, Prefixes: ones(1), Parents: 1, MeanChildren: 1, Children: ones(1)},
	}
	noCurves := cmpopts.IgnoreFields(DepthStats{}, "Global", "Incremental")
	if diff := cmp.Diff(wantHost, p.HostDepth, approx, noCurves); diff != "" {
		t.Errorf("Table 8, hosts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantPath, p.PathDepth, approx, noCurves); diff != "" {
		t.Errorf("Table 8, paths (-want +got):\n%s", diff)
	}

	// Figure 8, global reduction at H1: rolling up com (5 keys) leaves
	// 8−4 = 4 of 8 keys after 1 of 4 prefixes; the three single-key
	// prefixes remove nothing. Incremental at P1: rolling the 2 children
	// of com,example into one leaves 3 of 4 nodes after 1 of 3 parents.
	wantGlobal := []ReductionPoint{{0, 1}, {0.25, 0.5}, {1, 0.5}}
	if diff := cmp.Diff(wantGlobal, p.HostDepth[0].Global, approx); diff != "" {
		t.Errorf("Figure 8, global H1 (-want +got):\n%s", diff)
	}
	wantInc := []ReductionPoint{{0, 1}, {1.0 / 3, 0.75}, {1, 0.75}}
	if diff := cmp.Diff(wantInc, p.PathDepth[1].Incremental, approx); diff != "" {
		t.Errorf("Figure 8, incremental P1 (-want +got):\n%s", diff)
	}

	// Figure 9: nothing rolls up at the default cutoffs; the output ends
	// at the map's size, headers included.
	c := p.Compaction
	if c == nil {
		t.Fatal("no compaction run")
	}
	if c.Stats.InLines != 8 || c.Stats.OutLines != 8 || c.Stats.Rollups != 0 {
		t.Errorf("compaction stats %+v, want 8 lines in and out, no roll-up", c.Stats)
	}
	if last := c.Points[len(c.Points)-1]; last.InLines != 8 || last.OutBytes != int64(len(baselineOfProfileIndex)) {
		t.Errorf("last compaction point %+v, want 8 lines and %d bytes", last, len(baselineOfProfileIndex))
	}
}

// baselineOfProfileIndex is the baseline map of profileIndex (data lines).
const baselineOfProfileIndex = `1,0,0,127)/ 2/1
com,example)/ 3/1
com,example)/a 1/1
com,example)/a-b 1/1
com,example)/a/b 2/2
com,example,mail)/c 1/1
org,test)/ 1/1
pt,gov,portal)/x/y/z 1/1
`

// TestProfileBaselineIsBuild checks that the map lines Profile compacts
// are the lines Build writes.
// TestProfileIPHosts: IPv4 and IPv6 hosts, as SURT writes them, are
// counted once each as IP hosts and in no TLD; a TLD that IP hosts sort
// into the middle of is one row.
func TestProfileIPHosts(t *testing.T) {
	var idx strings.Builder
	for _, u := range []string{
		"http://0a.2/", "http://1.0.0.10/", "http://[2001:db8::1]/a", "http://[2001:db8::1]/b",
		"http://[::1]:8080/", "http://192.168.1.2:8080/", "http://9a.2/", "http://example.com/",
	} {
		k, err := surt.Canonicalize(u)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&idx, "%s 20200101000000 {\"url\": %q, \"status\": \"200\"}\n", k, u)
	}
	p := profileString(t, ProfileOptions{}, idx.String())
	if p.Index.Hosts != 7 || p.Index.IPHosts != 4 || p.Index.TLDs != 2 || p.Index.URIRs != 8 {
		t.Errorf("hosts %d, IP hosts %d, TLDs %d, URI-Rs %d; want 7, 4, 2, 8\n%s", p.Index.Hosts, p.Index.IPHosts, p.Index.TLDs, p.Index.URIRs, idx.String())
	}
	wantTLDs := []TLDShare{{"2", 2, 2, 2.0 / 8, 2.0 / 8}, {"com", 1, 1, 1.0 / 8, 1.0 / 8}}
	if diff := cmp.Diff(wantTLDs, p.TLDs, approx); diff != "" {
		t.Errorf("Table 1 (-want +got):\n%s", diff)
	}
}

func TestProfileBaselineIsBuild(t *testing.T) {
	m, _ := buildString(t, BuildOptions{}, profileIndex)
	if got := dataLines(m); got != baselineOfProfileIndex {
		t.Errorf("Build wrote\n%s\nwant\n%s", got, baselineOfProfileIndex)
	}
}

// TestProfileCompactionRollsUp follows a compaction at weights 0 (every
// node with a child rolls up) on the hand-made index: com,example)/a has
// a child (/a/b), so "com,example)/a/*" replaces /a and /a/b; then
// com,example has children at both layers, and the shallowest closing
// node wins.
func TestProfileCompactionRollsUp(t *testing.T) {
	co := CompactOptions{HostFactor: 0, PathFactor: 0}
	p := profileString(t, ProfileOptions{Compaction: &co}, profileIndex)
	var out strings.Builder
	want, err := Compact(&out, strings.NewReader(baselineOfProfileIndex), &co)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Compaction
	if c.Stats.OutLines != want.OutLines || c.Stats.Rollups != want.Rollups || c.Stats.OutBytes != want.OutBytes {
		t.Errorf("profile's compaction %+v, Compact's %+v", c.Stats, want)
	}
	if want.Rollups == 0 {
		t.Errorf("no roll-up at weight 0: %+v", want)
	}
	if last := c.Points[len(c.Points)-1]; last.OutBytes != int64(out.Len()) {
		t.Errorf("last point %+v, want %d bytes", last, out.Len())
	}
	// The output size drops somewhere: a roll-up replaced lines.
	drop := false
	for i := 1; i < len(c.Points); i++ {
		if c.Points[i].OutBytes < c.Points[i-1].OutBytes {
			drop = true
		}
	}
	if !drop {
		t.Errorf("the output size never drops: %+v", c.Points)
	}
}

// naiveProfile recomputes, with maps and sorts, what Profile computes in
// one streaming pass, from the keys the builder keeps (the filters and key
// handling are Build's, tested there).
type naiveProfile struct {
	mementos map[string]uint64       // per full SURT
	years    map[int]map[string]bool // URI-Rs per year
	first    map[string]int          // first year per URI-R
	keys     map[string]bool         // HxPx keys
}

func naiveOf(t *testing.T, o BuildOptions, ins []cdxj.Searcher) *naiveProfile {
	t.Helper()
	n := &naiveProfile{mementos: map[string]uint64{}, years: map[int]map[string]bool{}, first: map[string]int{}, keys: map[string]bool{}}
	b := newBuilder(o)
	var rec *cdxj.Record
	b.sink = func(k []byte, _ int) error {
		full := strings.Replace(string(k), "\x00", "?", 1)
		hx, _, _ := strings.Cut(full, "?")
		n.mementos[full]++
		n.keys[hx] = true
		y := rec.Year()
		if n.years[y] == nil {
			n.years[y] = map[string]bool{}
		}
		n.years[y][full] = true
		if f, ok := n.first[full]; !ok || y < f {
			n.first[full] = y
		}
		return nil
	}
	for _, in := range ins {
		for r, err := range in.Records(cdxj.Query{}) {
			if err == nil {
				rec = r
				err = b.record(r)
			}
			if err != nil {
				if err := b.bad(err); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return n
}

func naiveDistribution(vs []uint64) Distribution {
	slices.Sort(vs)
	var d Distribution
	if len(vs) == 0 {
		return d
	}
	d.N = uint64(len(vs))
	for _, v := range vs {
		d.Sum += v
	}
	d.Min, d.Max = vs[0], vs[len(vs)-1]
	d.Mean = float64(d.Sum) / float64(d.N)
	for _, v := range vs {
		d.StdDev += (float64(v) - d.Mean) * (float64(v) - d.Mean)
	}
	d.StdDev = math.Sqrt(d.StdDev / float64(d.N))
	d.Median = float64(vs[(len(vs)-1)/2]+vs[len(vs)/2]) / 2
	return d
}

// naiveLayer cuts every key at depth d of one layer: host labels split at
// ',', path segments at '/' after the ')' (a leading '/' dropped).
func naiveCut(key string, host bool, d int) (string, bool) {
	h, path, _ := strings.Cut(key, ")")
	if host {
		labels := strings.Split(h, ",")
		if len(labels) < d {
			return "", false
		}
		return strings.Join(labels[:d], ","), true
	}
	path = strings.TrimPrefix(path, "/")
	var segs []string
	if path != "" {
		segs = strings.Split(path, "/")
	}
	if len(segs) < d {
		return "", false
	}
	return h + ")/" + strings.Join(segs[:d], "/"), true
}

func (n *naiveProfile) depthRows(host bool) []DepthStats {
	var rows []DepthStats
	start := 0
	if host {
		start = 1
	}
	for d := start; ; d++ {
		sizes := map[string]uint64{}
		kids := map[string]map[string]bool{}
		for k := range n.keys {
			p, ok := naiveCut(k, host, d)
			if !ok {
				continue
			}
			sizes[p]++
			parent := "root"
			if d > start || host {
				parent, _ = naiveCut(k, host, d-1)
			}
			if !host && d == 0 {
				continue
			}
			if kids[parent] == nil {
				kids[parent] = map[string]bool{}
			}
			kids[parent][p] = true
		}
		if len(sizes) == 0 {
			return rows
		}
		var vs, cs []uint64
		for _, v := range sizes {
			vs = append(vs, v)
		}
		for _, c := range kids {
			cs = append(cs, uint64(len(c)))
		}
		r := DepthStats{Depth: d, Prefixes: naiveDistribution(vs), Children: naiveDistribution(cs), Parents: int64(len(kids))}
		r.RedQ = float64(r.Prefixes.Sum-r.Prefixes.N) / float64(len(n.keys))
		if r.Parents > 0 {
			r.MeanChildren = float64(r.Prefixes.N) / float64(r.Parents)
		}
		rows = append(rows, r)
	}
}

// TestProfileRealFiles profiles every shipped real index and checks it
// against the naive recomputation, Build and Compact.
func TestProfileRealFiles(t *testing.T) {
	for _, name := range sampledata.IndexFiles() {
		t.Run(name, func(t *testing.T) {
			data, err := sampledata.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			open := func() []cdxj.Searcher {
				return []cdxj.Searcher{cdxj.NewStream(name, bytes.NewReader(data), nil)}
			}
			bo := BuildOptions{SkipBad: true, Now: fixedNow}
			p, err := Profile(context.Background(), open(), &ProfileOptions{BuildOptions: bo})
			if err != nil {
				t.Fatal(err)
			}
			n := naiveOf(t, bo, open())
			var m bytes.Buffer
			bst, err := Build(context.Background(), &m, open(), &bo)
			if err != nil {
				t.Fatal(err)
			}
			ix := p.Index
			if ix.Lines != bst.Records || ix.URIMs != bst.Used || ix.URIRs != bst.URIRs || ix.HxPxKeys != bst.Keys ||
				ix.Bad != bst.Bad || ix.Filtered != bst.Filtered || ix.NonHTTP != bst.NonHTTP {
				t.Errorf("index %+v, build %+v", ix, bst)
			}
			if want := int64(len(dataLines(m.String()))); ix.MapBytes != want {
				t.Errorf("map bytes %d, the built map's data lines %d", ix.MapBytes, want)
			}
			if ix.URIRs == 0 {
				if p.Compaction != nil && p.Compaction.Stats.InLines != 0 {
					t.Errorf("compaction of nothing: %+v", p.Compaction.Stats)
				}
				return
			}
			var vs []uint64
			for _, v := range n.mementos {
				vs = append(vs, v)
			}
			if diff := cmp.Diff(naiveDistribution(vs), p.Mementos.Distribution, approx); diff != "" {
				t.Errorf("mementos per URI-R (-naive +profile):\n%s", diff)
			}
			// Gini from its definition, over the sorted values.
			var g, sum float64
			for i, v := range vs {
				g += float64(2*(i+1)-len(vs)-1) * float64(v)
				sum += float64(v)
			}
			if want := g / (float64(len(vs)) * sum); math.Abs(want-p.Mementos.Gini) > 1e-9 {
				t.Errorf("Gini %v, want %v", p.Mementos.Gini, want)
			}
			// Table 6.
			for _, y := range p.Years {
				var newR int64
				for u := range n.years[y.Year] {
					if n.first[u] == y.Year {
						newR++
					}
				}
				if y.URIRs != int64(len(n.years[y.Year])) || y.New != newR {
					t.Errorf("year %d: %d URI-Rs, %d new; naive %d, %d", y.Year, y.URIRs, y.New, len(n.years[y.Year]), newR)
				}
			}
			if len(p.Years) != len(n.years) {
				t.Errorf("%d years, naive %d", len(p.Years), len(n.years))
			}
			// Table 8.
			noCurves := cmpopts.IgnoreFields(DepthStats{}, "Global", "Incremental")
			if diff := cmp.Diff(n.depthRows(true), p.HostDepth, approx, noCurves); diff != "" {
				t.Errorf("host depths (-naive +profile):\n%s", diff)
			}
			if diff := cmp.Diff(n.depthRows(false), p.PathDepth, approx, noCurves); diff != "" {
				t.Errorf("path depths (-naive +profile):\n%s", diff)
			}
			// Figure 9: the same run as Compact on the built map.
			var out bytes.Buffer
			cst, err := Compact(&out, strings.NewReader(dataLines(m.String())), DefaultCompactOptions())
			if err != nil {
				t.Fatal(err)
			}
			if c := p.Compaction.Stats; c.InLines != cst.InLines || c.OutLines != cst.OutLines || c.Rollups != cst.Rollups || c.OutBytes != cst.OutBytes {
				t.Errorf("compaction %+v, Compact %+v", c, cst)
			}
			t.Logf("%d lines, %d URI-Rs, %d keys, %d hosts; Gini %.3f; compaction %d → %d lines",
				ix.Lines, ix.URIRs, ix.HxPxKeys, ix.Hosts, p.Mementos.Gini, cst.InLines, cst.OutLines)
		})
	}
}

// An empty index has no first or last capture: null in JSON, not the zero
// time 0001-01-01.
func TestProfileEmptyDatetimes(t *testing.T) {
	p := profileString(t, ProfileOptions{}, "")
	if p.Index.First != nil || p.Index.Last != nil {
		t.Errorf("empty index: first %v, last %v; want none", p.Index.First, p.Index.Last)
	}
	b, err := json.Marshal(p.Index)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"first":null,"last":null`) || strings.Contains(s, "0001-01-01") {
		t.Errorf("empty index JSON: %s", s)
	}
}
