package mementomap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/clustertest"
	"github.com/mementokit/mementokit/surt"
)

// lowPartBytes lets Build cut small test files into parts.
func lowPartBytes(t *testing.T, n int64) {
	old := minPartBytes
	minPartBytes = n
	t.Cleanup(func() { minPartBytes = old })
}

func openAll(t *testing.T, paths ...string) []cdxj.Searcher {
	t.Helper()
	var ins []cdxj.Searcher
	for _, p := range paths {
		ix, err := cdxj.Open(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		ins = append(ins, ix)
	}
	return ins
}

func buildWith(t *testing.T, workers int, o BuildOptions, paths ...string) (string, BuildStats) {
	t.Helper()
	o.Workers, o.Now, o.TempDir = workers, fixedNow, t.TempDir()
	var out bytes.Buffer
	st, err := Build(context.Background(), &out, openAll(t, paths...), &o)
	if err != nil {
		t.Fatalf("%d workers: %v", workers, err)
	}
	return out.String(), st
}

// writeGenerated writes n cdxgen lines to a file and returns its path.
func writeGenerated(t *testing.T, n int64, seed uint64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gen.cdxj")
	if err := os.WriteFile(p, []byte(strings.Join(genLines(t, n, seed), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func genLines(t *testing.T, n int64, seed uint64) []string {
	t.Helper()
	var idx bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: n, Seed: seed}).Write(&idx); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(idx.String(), "\n"), "\n")
}

// genManyHosts is about n sorted generated lines from many hosts: cdxgen
// draws each domain's tree whole, so one small index holds few hosts (12 in
// 8,000 lines) and few places where Plan may cut; small indexes of several
// seeds, merged in byte order, hold about twenty times as many.
func genManyHosts(t *testing.T, n int64, seed uint64) []string {
	t.Helper()
	const runs = 20
	var lines []string
	for i := uint64(0); i < runs; i++ {
		lines = append(lines, genLines(t, n/runs, seed+i)...)
	}
	slices.Sort(lines)
	return lines
}

var shapesOnce struct {
	sync.Once
	dir       string
	real, gen clustertest.Shapes
}

// shapes writes real index lines (few hosts) and generated ones (many) in
// every shape: flat, pywb cluster, Common Crawl cluster; once for all the
// tests of the package (removed by TestMain).
func shapes(t *testing.T) (real, gen clustertest.Shapes) {
	s := &shapesOnce
	s.Do(func() {
		dir, err := os.MkdirTemp("", "mementomap-shapes-")
		if err != nil {
			t.Fatal(err)
		}
		s.dir = dir
		os.Mkdir(filepath.Join(dir, "real"), 0o755)
		os.Mkdir(filepath.Join(dir, "gen"), 0o755)
		s.real = clustertest.Write(t, filepath.Join(dir, "real"), clustertest.SampleLines(t, 2195))
		s.gen = clustertest.Write(t, filepath.Join(dir, "gen"), genManyHosts(t, 8000, 3))
	})
	if s.gen.Flat == "" {
		t.Fatal("the test indexes could not be written")
	}
	return s.real, s.gen
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shapesOnce.dir != "" {
		os.RemoveAll(shapesOnce.dir)
	}
	os.Exit(code)
}

// TestBuildWorkersIdentical: Build on 1, 2, 3 and 8 workers writes the
// same bytes and the same counts, on generated and real inputs (a flat
// file, both cluster shapes, several inputs with shared keys), with and
// without filters and under a memory limit that spills runs.
func TestBuildWorkersIdentical(t *testing.T) {
	lowPartBytes(t, 4<<10)
	s, g := shapes(t)
	cases := []struct {
		name  string
		o     BuildOptions
		paths []string
	}{
		{"generated", BuildOptions{}, []string{g.Flat}},
		{"generated, baseline filters, spilling", BuildOptions{StatusClasses: []int{2}, MIMETypes: []string{"text/html"}, MemoryLimit: 64 << 10}, []string{g.Flat}},
		{"generated pywb cluster", BuildOptions{}, []string{g.PywbIdx}},
		{"generated Common Crawl cluster", BuildOptions{ExcludeRobots: true}, []string{g.CCDir}},
		{"real flat", BuildOptions{}, []string{s.Flat}},
		{"real pywb cluster", BuildOptions{}, []string{s.PywbIdx}},
		{"real Common Crawl cluster", BuildOptions{ExcludeRobots: true}, []string{s.CCDir}},
		{"several inputs sharing keys", BuildOptions{}, []string{s.Flat, s.PywbPart, g.Flat, g.CCIdx, g.PywbDir}},
		{"rekeyed", BuildOptions{Rekey: true}, []string{g.Flat}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wst := buildWith(t, 1, c.o, c.paths...)
			if wst.Keys < 10 {
				t.Fatalf("only %d keys: the test input is too small", wst.Keys)
			}
			for _, w := range []int{2, 3, 8} {
				got, gst := buildWith(t, w, c.o, c.paths...)
				if got != want {
					t.Errorf("%d workers: map differs from 1 worker's (%d vs %d bytes)", w, len(got), len(want))
				}
				if gst.Records != wst.Records || gst.Used != wst.Used || gst.Keys != wst.Keys || gst.URIRs != wst.URIRs || gst.Filtered != wst.Filtered {
					t.Errorf("%d workers: stats %+v, 1 worker %+v", w, gst, wst)
				}
			}
		})
	}
}

// TestPlanCutsParts: Plan really cuts the test inputs (else the test
// above would prove nothing), and its parts hold every line once.
func TestPlanCutsParts(t *testing.T) {
	_, g := shapes(t)
	for _, p := range []string{g.Flat, g.PywbIdx, g.CCIdx} {
		ix := openAll(t, p)[0].(cdxj.Index)
		parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ix}, 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) < 2 {
			t.Errorf("%s: %d parts, want at least 2 of 8", p, len(parts))
		}
		var whole, cut []string
		for rec, err := range ix.Records(cdxj.Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			whole = append(whole, string(rec.Line()))
		}
		for _, part := range parts {
			for rec, err := range cdxj.PartRecords(ix, part) {
				if err != nil {
					t.Fatal(err)
				}
				cut = append(cut, string(rec.Line()))
			}
		}
		if strings.Join(whole, "\n") != strings.Join(cut, "\n") {
			t.Errorf("%s: the parts hold %d lines, the index %d (or in another order)", p, len(cut), len(whole))
		}
	}
}

// TestBuildPartConcat: the partial maps of a plan, built one by one as an
// engine would (each part on a freshly opened index), concatenate into
// the bytes Build writes; a missing, repeated or overlapping part is an
// error, not a map.
func TestBuildPartConcat(t *testing.T) {
	s, g := shapes(t)
	o := BuildOptions{ArchiveID: "https://example.org/", Name: "test", Now: fixedNow, SkipBad: true}
	for _, p := range []string{g.Flat, s.Flat, g.PywbDir, g.CCIdx, g.PywbPart} {
		ix := openAll(t, p)[0].(cdxj.Index)
		want, _ := buildWith(t, 1, o, p)
		parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ix}, 5)
		if err != nil {
			t.Fatal(err)
		}
		var partials []io.Reader
		var raw []string
		for _, part := range parts {
			wix := openAll(t, part.Source)[0].(cdxj.Index)
			var b bytes.Buffer
			if _, err := BuildPart(context.Background(), &b, wix, part, &o); err != nil {
				t.Fatal(err)
			}
			partials = append(partials, bytes.NewReader(b.Bytes()))
			raw = append(raw, b.String())
		}
		var out bytes.Buffer
		st, err := Concat(context.Background(), &out, partials, &o)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if out.String() != want {
			t.Errorf("%s: Concat of %d parts differs from Build", p, len(parts))
		}
		if st.Keys != int64(strings.Count(want, "\n")-4) {
			t.Errorf("%s: Concat counted %d keys", p, st.Keys)
		}
		if len(raw) < 2 {
			if !strings.HasSuffix(p, ".gz") && p != s.Flat {
				t.Errorf("%s: not cut", p)
			}
			continue
		}
		readers := func(ss ...string) []io.Reader {
			var rs []io.Reader
			for _, s := range ss {
				rs = append(rs, strings.NewReader(s))
			}
			return rs
		}
		if _, err := Concat(context.Background(), io.Discard, readers(raw[1:]...), &o); !errors.Is(err, ErrParts) {
			t.Errorf("%s: a plan without its first part: %v", p, err)
		}
		if _, err := Concat(context.Background(), io.Discard, readers(raw[0], raw[0]), &o); !errors.Is(err, ErrParts) {
			t.Errorf("%s: a part twice: %v", p, err)
		}
	}
}

// TestBuildPartUnsorted: a part whose keys are out of byte-wise order is
// refused by BuildPart (SkipBad or not) with an error wrapping
// cdxj.ErrUnsorted that names the file and the line, while Build sorts
// the same file.
func TestBuildPartUnsorted(t *testing.T) {
	p := filepath.Join(t.TempDir(), "unsorted.cdxj")
	in := "com,a)/ 20200101000000 {\"url\": \"http://a.com/\"}\n" +
		"com,c)/ 20200101000000 {\"url\": \"http://c.com/\"}\n" +
		"com,b)/ 20200101000000 {\"url\": \"http://b.com/\"}\n" +
		"com,d)/ 20200101000000 {\"url\": \"http://d.com/\"}\n"
	if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := openAll(t, p)[0].(cdxj.Index)
	parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ix}, 1)
	if err != nil || len(parts) != 1 {
		t.Fatalf("plan: %d parts, %v", len(parts), err)
	}
	for _, skip := range []bool{false, true} {
		_, err := BuildPart(context.Background(), io.Discard, ix, parts[0], &BuildOptions{SkipBad: skip, Now: fixedNow, TempDir: t.TempDir()})
		if !errors.Is(err, cdxj.ErrUnsorted) || !strings.Contains(err.Error(), p+": line 3:") || !strings.Contains(err.Error(), `"com,b)/"`) {
			t.Errorf("SkipBad %v: err = %v, want cdxj.ErrUnsorted naming %s line 3 and its key", skip, err, p)
		}
	}
	got, _ := buildWith(t, 1, BuildOptions{}, p)
	if d := cmp.Diff(lines("com,a)/ 1/1", "com,b)/ 1/1", "com,c)/ 1/1", "com,d)/ 1/1"), dataLines(got)); d != "" {
		t.Errorf("Build of the same file (-want +got):\n%s", d)
	}
}

// TestBuildPartTimestampsWithinKey: the module's one sort rule is
// cdxj.SortKey (key, then timestamp), and a build depends on its keys
// alone (cdxj.KeyOrder). Lines whose keys are in order but whose
// timestamps go backwards inside a key are refused by the ZipNum writer
// (the whole rule, cdxj.ErrUnsorted) and built by BuildPart, cut into
// parts inside that key too, into the map Build writes.
func TestBuildPartTimestampsWithinKey(t *testing.T) {
	dir := t.TempDir()
	var in []string
	for i := range 40 {
		host := fmt.Sprintf("com,h%02d)/", i/10)
		ts := 20201231000000 - int64(i%10)*1000000 // going backwards
		in = append(in, fmt.Sprintf("%s %d {\"url\": \"http://h%02d.com/\", \"mime\": \"text/html\", \"status\": \"200\"}", host, ts, i/10))
	}
	w, err := cdxj.CreateCluster(dir, "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLine([]byte(in[0])); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLine([]byte(in[1])); !errors.Is(err, cdxj.ErrUnsorted) {
		t.Errorf("ClusterWriter: a timestamp going backwards inside a key: %v, want cdxj.ErrUnsorted", err)
	}
	w.Close()
	p := filepath.Join(dir, "ts.cdxj")
	if err := os.WriteFile(p, []byte(strings.Join(in, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := BuildOptions{Now: fixedNow, TempDir: t.TempDir()}
	want, _ := buildWith(t, 1, o, p)
	if d := cmp.Diff(lines("com,h00)/ 10/1", "com,h01)/ 10/1", "com,h02)/ 10/1", "com,h03)/ 10/1"), dataLines(want)); d != "" {
		t.Fatalf("Build (-want +got):\n%s", d)
	}
	ix := openAll(t, p)[0].(cdxj.Index)
	for _, n := range []int{1, 3, 7} {
		var parts []cdxj.Part
		// Cut by hand at line starts, inside keys: Plan cuts between keys.
		size := int64(0)
		var starts []int64
		for _, l := range in {
			starts = append(starts, size)
			size += int64(len(l)) + 1
		}
		for k := range n {
			a, b := starts[k*len(in)/n], size
			if k+1 < n {
				b = starts[(k+1)*len(in)/n]
			}
			parts = append(parts, cdxj.Part{Source: p, Kind: cdxj.PartBytes, Start: a, End: b, Seq: k, Of: n})
		}
		if err := ix.(*cdxj.File).SetLegends(context.Background(), parts); err != nil {
			t.Fatal(err)
		}
		var partials []io.Reader
		for _, part := range parts {
			var b bytes.Buffer
			if _, err := BuildPart(context.Background(), &b, ix, part, &o); err != nil {
				t.Fatalf("%d parts: BuildPart %d: %v", n, part.Seq, err)
			}
			partials = append(partials, bytes.NewReader(b.Bytes()))
		}
		var out bytes.Buffer
		if _, err := Concat(context.Background(), &out, partials, &o); err != nil {
			t.Fatalf("%d parts: Concat: %v", n, err)
		}
		if out.String() != want {
			t.Errorf("%d parts: Concat differs from Build:\n%s\nwant\n%s", n, out.String(), want)
		}
	}
}

// TestConcatOverlap: partial maps of two inputs with shared keys are
// refused by Concat, with both keys named.
func TestConcatOverlap(t *testing.T) {
	s := clustertest.Write(t, t.TempDir(), clustertest.SampleLines(t, 300))
	ins := openAll(t, s.Flat, s.CCIdx)
	parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ins[0].(cdxj.Index), ins[1].(cdxj.Index)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 {
		t.Fatalf("%d parts", len(parts))
	}
	var rs []io.Reader
	for _, p := range parts {
		var b bytes.Buffer
		if _, err := BuildPart(context.Background(), &b, ins[p.Input].(cdxj.Index), p, nil); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, &b)
	}
	_, err = Concat(context.Background(), io.Discard, rs, nil)
	if !errors.Is(err, ErrPartsOverlap) || !strings.Contains(err.Error(), "which sorts before") {
		t.Fatalf("Concat of overlapping parts: %v", err)
	}
}

// concatFiles builds each of paths as one part (BuildPart) and returns
// Concat of the partial maps.
func concatFiles(t *testing.T, paths ...string) (string, BuildStats, error) {
	t.Helper()
	ins := openAll(t, paths...)
	var rs []io.Reader
	for i, in := range ins {
		parts, err := cdxj.Plan(context.Background(), []cdxj.Index{in.(cdxj.Index)}, 1)
		if err != nil {
			t.Fatal(err)
		}
		parts[0].Input, parts[0].Seq, parts[0].Of = i, i, len(ins)
		var pm bytes.Buffer
		if _, err := BuildPart(context.Background(), &pm, in.(cdxj.Index), parts[0], &BuildOptions{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, &pm)
	}
	var out bytes.Buffer
	st, err := Concat(context.Background(), &out, rs, &BuildOptions{Now: fixedNow})
	return out.String(), st, err
}

// writeCut writes lines cut at the line numbers cuts into files, and
// returns their paths.
func writeCut(t *testing.T, lines []string, cuts ...int) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, start := range append([]int{0}, cuts...) {
		end := len(lines)
		if i < len(cuts) {
			end = cuts[i]
		}
		p := filepath.Join(dir, fmt.Sprintf("cut-%d.cdxj", i))
		if err := os.WriteFile(p, []byte(strings.Join(lines[start:end], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestConcatSplitKey: partial maps of a sorted index cut into files
// between two captures of one HxPx key (of one URI-R, or of two URLs that
// differ only in their query; a middle file holding only that key) join
// into the map Build writes of the files, byte for byte, with the key's
// URI-Rs counted once each; files whose URI-Rs of the shared key do not
// follow one another are refused with ErrPartsSplitKey naming the key.
func TestConcatSplitKey(t *testing.T) {
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 4000, Seed: 3}).Write(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(b.String(), "\n"), "\n")
	field := func(i int) string { return strings.Fields(lines[i])[0] }
	key := func(i int) string { return surt.HxPx(field(i)) }
	// inURIR: two captures of one URI-R; inKey: two URI-Rs of one key;
	// run: three lines or more of one URI-R (a middle file of one key).
	inURIR, inKey, run := -1, -1, -1
	for i := 500; i < len(lines)-2; i++ {
		switch {
		case field(i-1) == field(i) && field(i) == field(i+1) && run < 0:
			run = i
		case field(i-1) == field(i) && inURIR < 0:
			inURIR = i
		case field(i-1) != field(i) && key(i-1) == key(i) && inKey < 0:
			inKey = i
		}
	}
	if inURIR < 0 || inKey < 0 || run < 0 {
		t.Fatalf("the generated lines lack a cut inside a URI-R (%d), between two URI-Rs of one key (%d) or in a run (%d)", inURIR, inKey, run)
	}
	// interleaved: a cut inside the captures of a URI-R with a query
	// ("pt,x)/a?id=1") after a line of its host whose key sorts after the
	// URI-R's ("pt,x)/a5/b", '5' < '?'): the two files' key ranges
	// interleave, and the URI-R's key is in both.
	interleaved := -1
	for i, hostStart := 1, 0; i < len(lines) && interleaved < 0; i++ {
		if cdxj.Authority([]byte(field(i))) != nil && string(cdxj.Authority([]byte(field(i)))) != string(cdxj.Authority([]byte(field(i-1)))) {
			hostStart = i
		}
		if field(i-1) != field(i) || !strings.Contains(field(i), "?") {
			continue
		}
		for j := hostStart; j < i; j++ {
			if key(j) > key(i) {
				interleaved = i
				break
			}
		}
	}
	if interleaved < 0 {
		t.Fatal("the generated lines lack a cut inside a URI-R with a query after a greater key of its host")
	}
	for _, tc := range []struct {
		name string
		cuts []int
	}{
		{"inside one URI-R's captures", []int{inURIR}},
		{"between two URI-Rs of one key", []int{inKey}},
		{"a middle file of one key", []int{run, run + 1}},
		{"all three", []int{inURIR, run, run + 1, inKey}},
		{"key ranges interleaved", []int{interleaved}},
		{"all four", []int{inURIR, run, run + 1, inKey, interleaved}},
	} {
		slices.Sort(tc.cuts)
		paths := writeCut(t, lines, tc.cuts...)
		want, wst := buildWith(t, 1, BuildOptions{}, paths...)
		got, st, err := concatFiles(t, paths...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != want {
			t.Errorf("%s: the joined map differs from Build's:\n%s", tc.name, cmp.Diff(want, got))
		}
		if st.Keys != wst.Keys || st.URIRs != wst.URIRs || st.Used != wst.Used {
			t.Errorf("%s: stats %+v, Build's %+v", tc.name, st, wst)
		}
	}

	// The later file begins with a URI-R of the key before the last one of
	// the earlier file: not sorted one after the other.
	i := inKey
	swapped := slices.Clone(lines)
	swapped[i-1], swapped[i] = swapped[i], swapped[i-1]
	_, _, err := concatFiles(t, writeCut(t, swapped, i)...)
	if !errors.Is(err, ErrPartsSplitKey) || !errors.Is(err, ErrPartsOverlap) {
		t.Fatalf("Concat of parts whose URI-Rs of one key do not follow: %v", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("%q", key(i))) {
		t.Errorf("the error %q does not name the key %s", err, key(i))
	}
}

// TestBuildWorkersFirstError: a bad line in a later part and one in an
// earlier part: the parallel build reports the earlier one, as one worker
// does, and under SkipBad both count.
func TestBuildWorkersFirstError(t *testing.T) {
	lowPartBytes(t, 4<<10)
	lines := genLines(t, 3000, 2)
	lines[len(lines)/5] = "garbage-early"
	lines[4*len(lines)/5] = "garbage"
	p := filepath.Join(t.TempDir(), "bad.cdxj")
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	var first string
	var examples []string
	for _, w := range []int{1, 2, 8} {
		o := BuildOptions{Workers: w, Now: fixedNow}
		_, err := Build(context.Background(), io.Discard, openAll(t, p), &o)
		var pe *cdxj.ParseError
		if !errors.As(err, &pe) || pe.Offset != int64(len(strings.Join(lines[:len(lines)/5], "\n"))+1) || pe.Line != int64(len(lines)/5+1) {
			t.Errorf("%d workers: %v, want the error of the first bad line", w, err)
		}
		if w == 1 {
			first = err.Error()
		} else if err.Error() != first {
			t.Errorf("%d workers: error %q, 1 worker %q", w, err, first)
		}
		o.SkipBad = true
		out, st := buildWith(t, w, o, p)
		if st.Bad != 2 || !strings.Contains(out, `"skipped_lines":2`) {
			t.Errorf("%d workers: Bad %d, map %q", w, st.Bad, out[:200])
		}
		if w == 1 {
			examples = st.BadExamples
		} else if !slices.Equal(st.BadExamples, examples) {
			t.Errorf("%d workers: bad lines %q, 1 worker %q", w, st.BadExamples, examples)
		}
	}
}

// TestBuildPartLegendChange: a file whose legend changes midway is built
// right whatever the number of workers (the parts after the change would
// be read with the old layout: Build reads the file whole).
func TestBuildPartLegendChange(t *testing.T) {
	lowPartBytes(t, 1<<10)
	var b strings.Builder
	b.WriteString(" CDX N b a m s k r M S V g\n")
	for i := range 200 {
		fmt.Fprintf(&b, "com,a%03d)/ 20200101000000 http://a%03d.com/ text/html 200 X - - 100 1 f.warc.gz\n", i, i)
	}
	b.WriteString(" CDX N b a s m k r M S V g\n") // status and MIME swapped
	for i := range 200 {
		fmt.Fprintf(&b, "com,b%03d)/ 20200101000000 http://b%03d.com/ %d text/html X - - 100 1 f.warc.gz\n", i, i, 200+i%2*204)
	}
	p := filepath.Join(t.TempDir(), "legends.cdx")
	os.WriteFile(p, []byte(b.String()), 0o644)
	o := BuildOptions{StatusClasses: []int{2}}
	want, wst := buildWith(t, 1, o, p)
	if wst.Used != 300 {
		t.Fatalf("1 worker used %d records, want 300", wst.Used)
	}
	for _, w := range []int{2, 3, 8} {
		if got, _ := buildWith(t, w, o, p); got != want {
			t.Errorf("%d workers: map differs", w)
		}
	}
}

// TestKeyer: the Keyer's keys, grouped, give Build's map lines.
func TestKeyer(t *testing.T) {
	_, s := shapes(t)
	o := BuildOptions{ExcludeRevisits: true}
	want, _ := buildWith(t, 1, o, s.Flat)
	k := NewKeyer(&o)
	m := map[string]int{}
	r := map[string]map[string]bool{}
	for rec, err := range openAll(t, s.Flat)[0].Records(cdxj.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		hx, u, err := k.Key(rec)
		if err != nil {
			t.Fatal(err)
		}
		if hx == nil {
			continue
		}
		m[string(hx)]++
		if r[string(hx)] == nil {
			r[string(hx)] = map[string]bool{}
		}
		r[string(hx)][string(u)] = true
	}
	n := 0
	for _, l := range strings.Split(want, "\n") {
		if l == "" || l[0] == '!' {
			continue
		}
		n++
		key, v, _ := strings.Cut(l, " ")
		if got := fmt.Sprintf("%d/%d", m[key], len(r[key])); got != v {
			t.Errorf("%s: Keyer gives %s, Build %s", key, got, v)
		}
	}
	if n != len(m) || n < 100 {
		t.Errorf("Build wrote %d keys, the Keyer found %d", n, len(m))
	}
	if st := k.Stats(); st.Filtered == 0 {
		t.Errorf("no revisit filtered: %+v", st)
	}
}

// rekeyLines is cdxgen.Rekey, failing t on its error.
func rekeyLines(t *testing.T, lines []string, pick func(i int) int) []string {
	t.Helper()
	out, err := cdxgen.Rekey(lines, pick)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConcatRekeyed: records whose index keys are replaced by the
// canonical SURTs of their URLs (their URI-Rs sort anywhere) in files cut
// anywhere: Concat of the partial maps gives Build's bytes, each URI-R of
// a key counted once however many parts hold it, whether replaced or at
// its index key.
func TestConcatRekeyed(t *testing.T) {
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "f1.cdxj"), filepath.Join(dir, "f2.cdxj")
	os.WriteFile(f1, []byte("com,a)/ 20200101000000 {\"url\":\"http://a.com/\"}\ncom,a)/b 20200101000000 {\"url\":\"http://a.com/b\"}\n"), 0o644)
	os.WriteFile(f2, []byte("com,a)/c 20200101000000 {\"url\":\"http://a.com/\"}\n"), 0o644)
	want, wst := buildWith(t, 1, BuildOptions{}, f1, f2)
	if !strings.Contains(want, "\ncom,a)/ 2/1\n") {
		t.Fatalf("Build of the two files:\n%s", want)
	}
	got, st, err := concatFiles(t, f1, f2)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || st.URIRs != wst.URIRs || st.Keys != wst.Keys {
		t.Errorf("Concat differs from Build (URI-Rs %d, Build's %d):\n%s", st.URIRs, wst.URIRs, cmp.Diff(want, got))
	}

	lines := genLines(t, 3000, 5)
	for i := range lines {
		lines[i] += "\n"
	}
	n := len(lines)
	hostile := rekeyLines(t, lines, func(i int) int {
		switch i % 11 {
		case 2:
			return (i*37 + 5) % n // anywhere
		case 5:
			return max(i-1, 0) // the line before: a URI-R at its index key in the same or the part before
		case 8:
			return min(i+2, n-1) // a line after
		}
		return -1
	})
	for _, cuts := range [][]int{{n / 2}, {n / 3, 2 * n / 3}, {100, 101, 700, 1500, 1501, 2200, 2900}, {6, 7, 8, 9, 10, 2999}} {
		paths := writeCut(t, hostile, cuts...)
		want, wst := buildWith(t, 1, BuildOptions{}, paths...)
		if wst.Mismatched == 0 {
			t.Fatal("no record was re-keyed")
		}
		got, st, err := concatFiles(t, paths...)
		if err != nil {
			t.Fatalf("cut at %v: %v", cuts, err)
		}
		if got != want || st.URIRs != wst.URIRs {
			t.Errorf("cut at %v: Concat counts %d URI-Rs, Build %d:\n%s", cuts, st.URIRs, wst.URIRs, cmp.Diff(want, got))
		}
	}
}

// TestConcatRekeyedRereads: Concat reads a part's input again only for a
// key that a re-keyed record may share with another part. A record
// re-keyed to a key of its own part (com,b)/x with the URL of com,b)/)
// needs no second reading: Concat succeeds with the inputs gone. One
// re-keyed to a key of an earlier file needs it, and with that file gone
// Concat fails naming the key and the part.
func TestConcatRekeyedRereads(t *testing.T) {
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "f1.cdxj"), filepath.Join(dir, "f2.cdxj")
	build := func(f2text string) []io.Reader {
		os.WriteFile(f1, []byte("com,a)/ 20200101000000 {\"url\":\"http://a.com/\"}\n"), 0o644)
		os.WriteFile(f2, []byte(f2text), 0o644)
		ins := openAll(t, f1, f2)
		var rs []io.Reader
		for i, in := range ins {
			parts, err := cdxj.Plan(context.Background(), []cdxj.Index{in.(cdxj.Index)}, 1)
			if err != nil {
				t.Fatal(err)
			}
			parts[0].Input, parts[0].Seq, parts[0].Of = i, i, len(ins)
			var pm bytes.Buffer
			if _, err := BuildPart(context.Background(), &pm, in.(cdxj.Index), parts[0], &BuildOptions{Now: fixedNow}); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, &pm)
		}
		os.Remove(f1)
		os.Remove(f2)
		return rs
	}
	var out bytes.Buffer
	rs := build("com,b)/ 20200101000000 {\"url\":\"http://b.com/\"}\ncom,b)/x 20200101000000 {\"url\":\"http://b.com/\"}\n")
	if _, err := Concat(context.Background(), &out, rs, &BuildOptions{Now: fixedNow}); err != nil {
		t.Fatalf("a key re-keyed inside its own part: %v", err)
	}
	if d := cmp.Diff(lines("com,a)/ 1/1", "com,b)/ 2/1"), dataLines(out.String())); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	rs = build("com,a)/c 20200101000000 {\"url\":\"http://a.com/\"}\n")
	_, err := Concat(context.Background(), io.Discard, rs, &BuildOptions{Now: fixedNow})
	if err == nil || !strings.Contains(err.Error(), `key "com,a)/"`) || !strings.Contains(err.Error(), "f1.cdxj") {
		t.Errorf("a key re-keyed from another part, its input gone: %v", err)
	}
}

// TestBuildCountsBlankLines: blank lines of an index (a trailing one,
// some inside, "\r\n" ones) do not stop a build, SkipBad or not, and are
// not bad lines: Build counts them (BuildStats.Blank, !meta
// "blank_lines") whatever the number of workers, each partial map of a
// plan counts its own, and Concat sums them into the map Build writes.
func TestBuildCountsBlankLines(t *testing.T) {
	lowPartBytes(t, 4<<10)
	lines := genLines(t, 3000, 3)
	var b strings.Builder
	const blanks = 3000/500 + 1
	for i, l := range lines {
		b.WriteString(l + "\n")
		if i%500 == 250 {
			b.WriteString([]string{"\n", "\r\n"}[i%2])
		}
	}
	b.WriteString("\n") // a trailing blank line
	p := filepath.Join(t.TempDir(), "blank.cdxj")
	os.WriteFile(p, []byte(b.String()), 0o644)
	var want string
	for _, w := range []int{1, 2, 8} {
		out, st := buildWith(t, w, BuildOptions{}, p)
		if st.Blank != blanks || st.Bad != 0 || !strings.Contains(out, fmt.Sprintf(`"blank_lines":%d`, blanks)) || strings.Contains(out, "skipped_lines") {
			t.Errorf("%d workers: Blank %d, Bad %d, map %q", w, st.Blank, st.Bad, out[:min(len(out), 300)])
		}
		if w == 1 {
			want = out
		} else if out != want {
			t.Errorf("%d workers: the map differs from 1 worker's", w)
		}
	}
	ix := openAll(t, p)[0].(cdxj.Index)
	parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ix}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 3 {
		t.Fatalf("%d parts", len(parts))
	}
	o := BuildOptions{Now: fixedNow}
	var partials []io.Reader
	var sum int64
	for _, part := range parts {
		var pm bytes.Buffer
		st, err := BuildPart(context.Background(), &pm, ix, part, &o)
		if err != nil {
			t.Fatal(err)
		}
		sum += st.Blank
		partials = append(partials, bytes.NewReader(pm.Bytes()))
	}
	var out bytes.Buffer
	st, err := Concat(context.Background(), &out, partials, &o)
	if err != nil {
		t.Fatal(err)
	}
	if sum != blanks || st.Blank != blanks || out.String() != want {
		t.Errorf("%d parts counted %d blank lines, Concat %d, want %d; map as Build's: %v", len(parts), sum, st.Blank, blanks, out.String() == want)
	}
}
