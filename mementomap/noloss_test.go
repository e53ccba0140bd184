package mementomap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/clustertest"
)

// independentCounts counts, per HxPx key, the lines of a SURT-keyed CDXJ
// index and their distinct full SURTs, with nothing of package cdxj: split
// on spaces, cut at '?'.
func independentCounts(t *testing.T, index []byte) map[string][2]int {
	t.Helper()
	counts := map[string][2]int{}
	urirs := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(index))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		key, _, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("line %q", sc.Text())
		}
		h, _, _ := strings.Cut(key, "?")
		c := counts[h]
		c[0]++
		if !urirs[key] {
			urirs[key] = true
			c[1]++
		}
		counts[h] = c
	}
	return counts
}

// mapCounts reads the data lines of a built map.
func mapCounts(t *testing.T, m string) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for _, l := range strings.Split(strings.TrimSuffix(m, "\n"), "\n") {
		if strings.HasPrefix(l, "!") {
			continue
		}
		k, f, _ := strings.Cut(l, " ")
		ms, rs, _ := strings.Cut(f, "/")
		mv, err1 := strconv.Atoi(ms)
		rv, err2 := strconv.Atoi(rs)
		if err1 != nil || err2 != nil {
			t.Fatalf("map line %q", l)
		}
		out[k] = [2]int{mv, rv}
	}
	return out
}

// No line that parses is missing from a map, whatever shape the index is
// kept in: the map's counts per HxPx key equal those of a full independent
// scan of the flat file, for the flat file, a pywb-shaped cluster (blocks of
// 5 lines without a final newline, read by its .idx and as one gzip part
// file) and a Common Crawl cluster.
func TestBuildLosesNoLine(t *testing.T) {
	var idx bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 20000, Seed: 7}).Write(&idx); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(idx.String(), "\n"), "\n")
	want := independentCounts(t, idx.Bytes())
	s := clustertest.Write(t, t.TempDir(), lines)
	clustertest.CheckMembers(t, s.PywbPart, (len(lines)+4)/5)
	for _, in := range s.Inputs() {
		t.Run(in.Name, func(t *testing.T) {
			ix, err := cdxj.Open(context.Background(), in.Path, &cdxj.OpenOptions{Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			var m bytes.Buffer
			st, err := Build(context.Background(), &m, []cdxj.Searcher{ix}, &BuildOptions{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if st.Records != int64(len(lines)) || st.Used != int64(len(lines)) || st.Bad != 0 {
				t.Errorf("stats %+v, want %d records all used", st, len(lines))
			}
			if diff := cmp.Diff(want, mapCounts(t, m.String())); diff != "" {
				t.Errorf("map counts (-independent scan +map):\n%s", diff)
			}
		})
	}
}

// With SkipBad, the bad lines are counted and named, and every other line
// is in the map.
func TestBuildSkipBadLosesNothingElse(t *testing.T) {
	good := []string{
		`com,example)/a 20200101000000 {"url": "http://example.com/a"}`,
		`com,example)/b 20200101000000 {"url": "http://example.com/b"}`,
	}
	in := good[0] + "\ncom,example)/x 2020XX {}\n" + good[1] + "\n"
	var m bytes.Buffer
	st, err := Build(context.Background(), &m, []cdxj.Searcher{cdxj.NewStream("in.cdxj", strings.NewReader(in), nil)}, &BuildOptions{SkipBad: true, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bad != 1 || len(st.BadExamples) != 1 || !strings.HasPrefix(st.BadExamples[0], "in.cdxj: line 2") {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(m.String(), `"skipped_lines":1`) || !strings.Contains(m.String(), "com,example)/a 1/1\ncom,example)/b 1/1\n") {
		t.Errorf("map %q", m.String())
	}
	_, err = Build(context.Background(), &m, []cdxj.Searcher{cdxj.NewStream("in.cdxj", strings.NewReader(in), nil)}, &BuildOptions{Now: fixedNow})
	if err == nil || !strings.Contains(err.Error(), "in.cdxj: line 2") {
		t.Errorf("without SkipBad: %v", err)
	}
}

// A cluster whose secondary index lost a line (its block's bytes are in no
// block listed) is refused, even under SkipBad and on several workers: a
// map without that block's keys would answer "absent" for URLs the
// archive holds.
func TestBuildRefusesMissingIdxLine(t *testing.T) {
	s := clustertest.Write(t, t.TempDir(), clustertest.SampleLines(t, 400))
	for _, in := range []struct{ name, idx string }{{"pywb cluster", s.PywbIdx}, {"Common Crawl cluster", s.CCIdx}} {
		t.Run(in.name, func(t *testing.T) {
			b, err := os.ReadFile(in.idx)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(b), "\n")
			mid := len(lines) / 2
			if err := os.WriteFile(in.idx, []byte(strings.Join(append(lines[:mid:mid], lines[mid+1:]...), "")), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2} {
				ix, err := cdxj.Open(context.Background(), in.idx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var m bytes.Buffer
				st, err := Build(context.Background(), &m, []cdxj.Searcher{ix}, &BuildOptions{SkipBad: true, Workers: workers, Now: fixedNow})
				ix.Close()
				if !errors.Is(err, cdxj.ErrZipNum) || !strings.Contains(err.Error(), in.idx+" line ") {
					t.Errorf("workers %d: err = %v (stats %+v), want cdxj.ErrZipNum naming %s and a line", workers, err, st, in.idx)
				}
			}
		})
	}
}
