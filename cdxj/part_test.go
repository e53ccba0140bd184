package cdxj

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hxpx is a key's HxPx key: the key up to its first '?'.
func hxpx(key string) string {
	if i := strings.IndexByte(key, '?'); i >= 0 {
		return key[:i]
	}
	return key
}

// randomSURT makes a SURT key of a real shape from a small alphabet, so
// that hosts, paths and queries share prefixes often: hosts with ports
// and hyphens, paths with '/', '.', '-', ',' and queries.
func randomSURT(r *rand.Rand) string {
	labels := []string{"com", "pt", "a", "ab", "a-b", "b", "x", "www", "x1"}
	var b strings.Builder
	n := 1 + r.IntN(3)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(labels[r.IntN(len(labels))])
	}
	if r.IntN(8) == 0 {
		b.WriteString(":8080")
	}
	b.WriteByte(')')
	segs := []string{"", "a", "a.b", "a-b", "b", "a,b", "%20", "index.html"}
	for range r.IntN(4) {
		b.WriteByte('/')
		b.WriteString(segs[r.IntN(len(segs))])
	}
	if r.IntN(3) == 0 {
		b.WriteString([]string{"?", "?q", "?q=1", "?a&b", "?/x"}[r.IntN(5)])
	}
	return b.String()
}

func writeLines(t *testing.T, lines []string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index.cdxj")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanKeepsHxPxKeys is the property of Plan's cut rule (Authority): on
// byte-wise sorted SURT indexes of random shape, cut into random numbers
// of parts, every line is in exactly one part, in order, and every HxPx
// key of a part sorts before every HxPx key of the next part (so no key
// is on both sides). The same indexes as ZipNum clusters of small blocks
// keep the property too.
func TestPlanKeepsHxPxKeys(t *testing.T) {
	cuts, inBlock := 0, 0
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 7))
		var lines []string
		for range 50 + r.IntN(400) {
			k := randomSURT(r)
			for range 1 + r.IntN(3) {
				lines = append(lines, fmt.Sprintf("%s 2020%02d01000000 {\"url\": \"http://x/\", \"status\": \"200\"}", k, 1+r.IntN(12)))
			}
		}
		slices.Sort(lines)
		path := writeLines(t, lines)
		ixs := []Index{}
		f, err := OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ixs = append(ixs, f)
		if seed%3 == 0 {
			// Small blocks, and blocks larger than the hosts, so that
			// cuts fall inside blocks.
			lpb := 1 + int(seed%7)
			if seed%2 == 0 {
				lpb = 40 + int(seed)*5
			}
			dir := t.TempDir()
			w, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: lpb})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				w.WriteLine([]byte(l))
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			c, err := OpenCluster(filepath.Join(dir, "c.idx"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ixs = append(ixs, c)
		}
		for _, ix := range ixs {
			n := 2 + r.IntN(30)
			parts, err := Plan(context.Background(), []Index{ix}, n)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) > n {
				t.Fatalf("seed %d: %d parts for n %d", seed, len(parts), n)
			}
			cuts += len(parts) - 1
			for _, p := range parts[1:] {
				if p.StartLine > 0 {
					inBlock++
				}
			}
			var got []string
			prevMax := ""
			for i, p := range parts {
				if p.Seq != i || p.Of != len(parts) {
					t.Fatalf("seed %d: part %d is %+v", seed, i, p)
				}
				lo, hi := "", ""
				for rec, err := range PartRecords(ix, p) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(rec.Line()))
					h := hxpx(string(rec.Key()))
					if lo == "" || h < lo {
						lo = h
					}
					if h > hi {
						hi = h
					}
				}
				if i > 0 && lo != "" && lo <= prevMax {
					t.Fatalf("seed %d, %s: part %d has HxPx key %q, part before it %q", seed, SourceName(ix), i, lo, prevMax)
				}
				if hi != "" {
					prevMax = hi
				}
			}
			if !slices.Equal(got, lines) {
				t.Fatalf("seed %d, %s: the parts hold %d lines, the index %d", seed, SourceName(ix), len(got), len(lines))
			}
		}
	}
	if cuts < 100 || inBlock < 20 {
		t.Errorf("only %d cuts over all indexes, %d inside blocks: the property was hardly tested", cuts, inBlock)
	}
}

// hostLines returns sorted CDXJ lines of hosts h000 ... with per lines
// each, their keys under several paths and queries.
func hostLines(hosts, per int) []string {
	var lines []string
	for h := range hosts {
		for i := range per {
			lines = append(lines, fmt.Sprintf("com,h%03d)/p%d?q=%d 20200101%06d {\"url\": \"http://h%03d.com/p%d?q=%d\"}", h, i%4, i, i, h, i%4, i))
		}
	}
	slices.Sort(lines)
	return lines
}

func writeCluster(t *testing.T, lines []string, opt *ClusterOptions) *Cluster {
	t.Helper()
	dir := t.TempDir()
	w, err := CreateCluster(dir, "c", opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCluster(filepath.Join(dir, "c.idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestPlanClusterInsideBlocks: a cluster of one block of 400 hosts is cut
// into the parts asked for, inside the block, at host changes; the parts
// hold every line once, in order; a bad line in a part that starts inside
// a block is named by its line in the block.
func TestPlanClusterInsideBlocks(t *testing.T) {
	lines := hostLines(400, 5)
	lines[1234] = "com,h246)/p9"
	c := writeCluster(t, lines, &ClusterOptions{LinesPerBlock: 10000})
	parts, err := Plan(context.Background(), []Index{c}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 20 {
		t.Fatalf("%d parts, want 20: %v", len(parts), parts)
	}
	var got []string
	var bad *ParseError
	for i, p := range parts {
		if p.Kind != PartBlocks || (i > 0 && p.StartLine == 0) || p.Start != 0 {
			t.Fatalf("part %d: %+v, want one starting inside block 0", i, p)
		}
		first := ""
		for rec, err := range PartRecords(c, p) {
			if err != nil {
				if !errors.As(err, &bad) {
					t.Fatal(err)
				}
				got = append(got, lines[1234])
				continue
			}
			got = append(got, string(rec.Line()))
			if first == "" {
				first = string(rec.Key())
			}
		}
		// Every part after the first begins with a host's first line.
		if i > 0 && !strings.Contains(first, "/p0?q=0") {
			t.Errorf("part %d (%s) begins with %q, not at a host's first line", i, p, first)
		}
	}
	if !slices.Equal(got, lines) {
		t.Fatalf("the parts hold %d lines, the cluster %d", len(got), len(lines))
	}
	if bad == nil || bad.Line != 1235 || !strings.Contains(bad.Error(), "block at byte 0+") {
		t.Errorf("bad line: %v, want line 1235 of block 0", bad)
	}
	if s := parts[1].String(); !strings.Contains(s, fmt.Sprintf("blocks 0 line %d-0 line %d", parts[1].StartLine+1, parts[1].EndLine+1)) {
		t.Errorf("String() = %q", s)
	}
	// A part that does not fit: its end before its start inside a block.
	for _, err := range PartRecords(c, Part{Kind: PartBlocks, Start: 0, End: 0, StartLine: 9, EndLine: 3}) {
		if !errors.Is(err, ErrPart) {
			t.Errorf("backwards part: %v", err)
		}
	}
}

// TestPlanCostFollowsParts: asking for far more parts than an input has
// places to cut costs the cuts found, not the parts asked for (a loop
// over 2^40 targets would not end): a file and a cluster of one host are
// one part, of three hosts three parts.
func TestPlanCostFollowsParts(t *testing.T) {
	for _, hosts := range []int{1, 3} {
		lines := hostLines(hosts, 3000)
		f, err := OpenFile(writeLines(t, lines), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c := writeCluster(t, lines, &ClusterOptions{LinesPerBlock: 700})
		for _, ix := range []Index{f, c} {
			parts, err := Plan(context.Background(), []Index{ix}, 1<<40)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) != hosts {
				t.Errorf("%d hosts in %s: %d parts %v", hosts, SourceName(ix), len(parts), parts)
			}
		}
	}
}

// TestPlanOneAuthority: the keys of one host are never cut, however many
// parts are asked for ("com,x)/a", "com,x)/a/b", "com,x)/a?q": a, a/b, a).
func TestPlanOneAuthority(t *testing.T) {
	var lines []string
	for i := range 300 {
		for _, k := range []string{"com,x)/a", "com,x)/a/b", "com,x)/a?q"} {
			lines = append(lines, fmt.Sprintf("%s 2020%04d {}", k, i))
		}
	}
	slices.Sort(lines)
	f, err := OpenFile(writeLines(t, lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, err := Plan(context.Background(), []Index{f}, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || parts[0].Kind != PartBytes || parts[0].End != f.Size() {
		t.Errorf("parts %+v, want one of the whole file", parts)
	}
}

// TestPartRecordsErrors: a part's bad line names the file and its byte
// offset; a part that does not fit its index is refused.
func TestPartRecordsErrors(t *testing.T) {
	var lines []string
	for i := range 400 {
		lines = append(lines, fmt.Sprintf("com,h%03d)/ 20200101000000 {}", i))
	}
	lines[300] = "junk"
	path := writeLines(t, lines)
	f, err := OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, err := Plan(context.Background(), []Index{f}, 4)
	if err != nil || len(parts) != 4 {
		t.Fatalf("%d parts, %v", len(parts), err)
	}
	at := int64(len(strings.Join(lines[:300], "\n")) + 1)
	var found *ParseError
	for _, p := range parts {
		for _, err := range PartRecords(f, p) {
			if err != nil && !errors.As(err, &found) {
				t.Fatal(err)
			}
		}
	}
	if found == nil || found.Offset != at || found.Line != 301 || !strings.Contains(found.Error(), fmt.Sprintf("%s: line 301:", path)) {
		t.Errorf("error %v, want one naming line 301 (byte %d)", found, at)
	}
	for _, p := range []Part{
		{Kind: PartBytes, Start: 0, End: f.Size() + 1},
		{Kind: PartBlocks, Start: 0, End: 1},
		{Kind: "lines"},
	} {
		for _, err := range PartRecords(f, p) {
			if !errors.Is(err, ErrPart) {
				t.Errorf("part %+v: %v", p, err)
			}
			break
		}
	}
	// A gzip file is one part, read whole.
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(strings.Join(lines, "\n")))
	zw.Close()
	gz := filepath.Join(t.TempDir(), "x.cdxj.gz")
	os.WriteFile(gz, b.Bytes(), 0o644)
	g, err := OpenFile(gz, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	parts, err = Plan(context.Background(), []Index{g}, 4)
	if err != nil || len(parts) != 1 || parts[0].Kind != PartWhole {
		t.Fatalf("gzip file: parts %+v, %v", parts, err)
	}
	n := 0
	for _, err := range PartRecords(g, parts[0]) {
		if err == nil {
			n++
		}
	}
	if n != 399 {
		t.Errorf("gzip part: %d records, want 399", n)
	}
}

// legendChanges is a sorted classic CDX file whose legend changes twice
// midway (status and MIME swapped, then back), with a UTF-8 byte order
// mark before its first legend, which has no leading space; in each
// stretch the status is 200 or 404 and the MIME type text/html.
func legendChanges(per int) string {
	var b strings.Builder
	b.WriteString("\xef\xbb\xbfCDX N b a m s k r M S V g\n")
	row := func(host string, i int, swapped bool) {
		st := 200 + i%2*204
		if swapped {
			fmt.Fprintf(&b, "com,%s%04d)/ 20200101000000 http://%s%04d.com/ %d text/html X - - 100 1 f.warc.gz\n", host, i, host, i, st)
		} else {
			fmt.Fprintf(&b, "com,%s%04d)/ 20200101000000 http://%s%04d.com/ text/html %d X - - 100 1 f.warc.gz\n", host, i, host, i, st)
		}
	}
	for i := range per {
		row("a", i, false)
	}
	b.WriteString(" CDX N b a s m k r M S V g\n")
	for i := range per {
		row("b", i, true)
	}
	b.WriteString(" CDX N b a m s k r M S V g\n")
	for i := range per {
		row("c", i, false)
	}
	return b.String()
}

// TestSetLegends: parts of a file whose legend changes midway, given
// their legends by SetLegends, read the records a whole walk reads
// (status and MIME type of every line), at every number of parts; without
// the legends a part that holds a change ends with ErrPartLayout.
func TestSetLegends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "legends.cdx")
	if err := os.WriteFile(p, []byte(legendChanges(300)), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	f := ix.(*File)
	show := func(r *Record) string { return fmt.Sprintf("%s %d %s", r.Key(), r.Status(), r.MIME()) }
	var want []string
	for r, err := range f.Records(Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, show(r))
	}
	if len(want) != 900 || !strings.HasSuffix(want[400], " 200 text/html") && !strings.HasSuffix(want[400], " 404 text/html") {
		t.Fatalf("whole walk: %d records, record 400 %q", len(want), want[400])
	}
	layoutErrs := 0
	for _, n := range []int{2, 3, 7, 20, 64} {
		parts, err := Plan(context.Background(), []Index{f}, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) < min(n, 3) {
			t.Fatalf("%d parts asked: %d made", n, len(parts))
		}
		for _, pt := range parts {
			for _, err := range PartRecords(f, pt) {
				if errors.Is(err, ErrPartLayout) {
					layoutErrs++
				}
			}
		}
		if err := f.SetLegends(context.Background(), parts); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, pt := range parts {
			if !pt.HasLegend || (pt.Start == 0) != (pt.Legend == "") {
				t.Fatalf("%d parts: part %s: legend %q (set %v)", n, pt, pt.Legend, pt.HasLegend)
			}
			for r, err := range PartRecords(f, pt) {
				if err != nil {
					t.Fatalf("%d parts: part %s: %v", n, pt, err)
				}
				got = append(got, show(r))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d parts: the parts' records differ from the whole walk's", n)
		}
	}
	if layoutErrs == 0 {
		t.Error("no part without its legend ended with ErrPartLayout")
	}
}

// sortKey is a key with its first '?' made the least byte, as a MementoMap
// build sorts it.
func sortKey(key string) string {
	if i := strings.IndexByte(key, '?'); i >= 0 {
		return key[:i] + "\x00" + key[i+1:]
	}
	return key
}

// TestPlanKeyCutsSortKeys is the property of PlanKeyCuts' cut rule: on
// byte-wise sorted SURT indexes of random shape, of a few hosts, cut into
// random numbers of parts, every line is in exactly one part, in order,
// and every key of a part, its first '?' taken as the least byte, sorts
// before every key of the next part; many cuts fall inside the run of one
// Authority, where Plan does not cut.
func TestPlanKeyCutsSortKeys(t *testing.T) {
	cuts, inside := 0, 0
	for seed := range uint64(80) {
		r := rand.New(rand.NewPCG(seed, 8))
		var lines []string
		for range 50 + r.IntN(600) {
			k := randomSURT(r)
			if r.IntN(4) > 0 {
				// Most lines on one host, so that its run spans targets.
				_, path, _ := strings.Cut(k, ")")
				k = fmt.Sprintf("com,x)/%d%s", r.IntN(60), path)
			}
			for range 1 + r.IntN(3) {
				lines = append(lines, fmt.Sprintf("%s 2020%02d01000000 {\"url\": \"http://x/\", \"status\": \"200\"}", k, 1+r.IntN(12)))
			}
		}
		slices.Sort(lines)
		f, err := OpenFile(writeLines(t, lines), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 2 + r.IntN(20)
		parts, err := PlanKeyCuts(context.Background(), []Index{f}, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) > n {
			t.Fatalf("seed %d: %d parts for n %d", seed, len(parts), n)
		}
		var got []string
		prevMax, prevAuth := "", ""
		for i, p := range parts {
			if p.Seq != i || p.Of != len(parts) || p.Kind != PartBytes {
				t.Fatalf("seed %d: part %d is %+v", seed, i, p)
			}
			lo, hi := "", ""
			first := true
			for rec, err := range PartRecords(f, p) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(rec.Line()))
				k := sortKey(string(rec.Key()))
				if first && i > 0 {
					cuts++
					if string(Authority(rec.Line())) == prevAuth {
						inside++
					}
				}
				first = false
				if lo == "" || k < lo {
					lo = k
				}
				hi = max(hi, k)
				prevAuth = string(Authority(rec.Line()))
			}
			if i > 0 && lo != "" && lo <= prevMax {
				t.Fatalf("seed %d: part %d has sort key %q, the part before it %q", seed, i, lo, prevMax)
			}
			if hi != "" {
				prevMax = hi
			}
		}
		if !slices.Equal(got, lines) {
			t.Fatalf("seed %d: the parts hold %d lines, the index %d", seed, len(got), len(lines))
		}
	}
	if cuts < 200 || inside < 100 {
		t.Errorf("only %d cuts, %d inside one Authority's run: the property was hardly tested", cuts, inside)
	}
}

// TestPlanKeyCutsOneHost: a file of one host is cut by PlanKeyCuts into the
// parts asked for, each within a line or so of its target's share; one
// whose only keys are a path, its longer neighbour and its query
// ("com,x)/a", "com,x)/a/b", "com,x)/a?q") is not cut, since no cut there
// keeps the sort keys in order.
func TestPlanKeyCutsOneHost(t *testing.T) {
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf("com,x)/p%05d 20200101000000 {}", i))
	}
	f, err := OpenFile(writeLines(t, lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, err := PlanKeyCuts(context.Background(), []Index{f}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 4 {
		t.Fatalf("%d parts, want 4", len(parts))
	}
	line := int64(len(lines[0]) + 1)
	for i, p := range parts {
		if want := f.Size() * int64(i) / 4; p.Start < want || p.Start > want+line {
			t.Errorf("part %d starts at %d, want within a line after %d", i, p.Start, want)
		}
	}
	if parts, err := Plan(context.Background(), []Index{f}, 4); err != nil || len(parts) != 1 {
		t.Errorf("Plan: %d parts (%v), want 1", len(parts), err)
	}
	lines = lines[:0]
	for i := range 300 {
		for _, k := range []string{"com,x)/a", "com,x)/a/b", "com,x)/a?q"} {
			lines = append(lines, fmt.Sprintf("%s 2020%04d {}", k, i))
		}
	}
	slices.Sort(lines)
	g, err := OpenFile(writeLines(t, lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if parts, err := PlanKeyCuts(context.Background(), []Index{g}, 50); err != nil || len(parts) != 1 {
		t.Errorf("a path, its neighbour and its query: %d parts (%v), want 1", len(parts), err)
	}
}
