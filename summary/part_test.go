package summary

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/clustertest"
)

func summarizeWith(t *testing.T, workers int, o Options, path string) (string, Stats) {
	t.Helper()
	ix, err := cdxj.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	o.Workers = workers
	s := New(&o)
	if err := s.ReadIndex(context.Background(), ix, true); err != nil {
		t.Fatalf("%d workers: %v", workers, err)
	}
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), s.Stats()
}

// TestReadIndexWorkersIdentical: ReadIndex on 1, 2, 3 and 8 workers
// writes the same summary, note of skipped lines included, with the same
// stats, on generated and real inputs (flat, both cluster shapes); the
// generated ones are really cut.
func TestReadIndexWorkersIdentical(t *testing.T) {
	old := minPartBytes
	minPartBytes = 4 << 10
	defer func() { minPartBytes = old }()
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 8000, Seed: 11}).Write(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// Two bad lines (key and timestamp only) that keep the order.
	for _, i := range []int{len(lines) / 3, 2 * len(lines) / 3} {
		f := strings.SplitN(lines[i], " ", 3)
		for strings.HasPrefix(lines[i-1], f[0]+" "+f[1]) {
			i++
			f = strings.SplitN(lines[i], " ", 3)
		}
		lines[i] = f[0] + " " + f[1]
	}
	gen := clustertest.Write(t, t.TempDir(), lines)
	real := clustertest.Write(t, t.TempDir(), clustertest.SampleLines(t, 2195))
	for _, c := range []struct {
		name string
		path string
		o    Options
		cut  bool
	}{
		{"generated flat", gen.Flat, Options{}, true},
		{"generated flat by host, monthly", gen.Flat, Options{Keys: KeyHost, Monthly: true}, true},
		{"generated pywb cluster", gen.PywbIdx, Options{}, true},
		{"generated Common Crawl cluster", gen.CCDir, Options{Compact: true}, true},
		{"real flat", real.Flat, Options{}, false},
		{"real pywb part file", real.PywbPart, Options{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, wst := summarizeWith(t, 1, c.o, c.path)
			if wst.Keys < 3 || wst.Counted < 100 {
				t.Fatalf("summary too small: %+v", wst)
			}
			if c.path == gen.Flat && (wst.BadLines != 2 || !strings.HasPrefix(want, `!meta {"skipped_lines":2`)) {
				t.Errorf("bad lines %d, summary %.100q", wst.BadLines, want)
			}
			for _, w := range []int{2, 3, 8} {
				got, gst := summarizeWith(t, w, c.o, c.path)
				if got != want {
					t.Errorf("%d workers: summary differs from 1 worker's (%d vs %d bytes)", w, len(got), len(want))
				}
				if gst.Counted != wst.Counted || gst.NotOK != wst.NotOK || gst.Keys != wst.Keys || gst.BadLines != wst.BadLines || gst.NoLength != wst.NoLength || strings.Join(gst.BadExamples, "|") != strings.Join(wst.BadExamples, "|") {
					t.Errorf("%d workers: stats %+v, 1 worker %+v", w, gst, wst)
				}
			}
			if c.cut {
				ix, err := cdxj.Open(context.Background(), c.path, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer ix.Close()
				parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ix}, 3)
				if err != nil || len(parts) < 2 {
					t.Errorf("not cut: %d parts, %v", len(parts), err)
				}
			}
		})
	}
}

// TestSummarizePartCombine: partial summaries of a plan's parts, written
// one by one and combined, give the summary of the whole index.
func TestSummarizePartCombine(t *testing.T) {
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 6000, Seed: 12}).Write(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "index.cdxj")
	os.WriteFile(p, b.Bytes(), 0o644)
	want, _ := summarizeWith(t, 1, Options{}, p)
	ix, err := cdxj.Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ix}, 4)
	if err != nil || len(parts) < 3 {
		t.Fatalf("%d parts, %v", len(parts), err)
	}
	c := NewCombiner(nil)
	for _, part := range parts {
		var out bytes.Buffer
		if _, err := SummarizePart(context.Background(), &out, ix, part, nil, false); err != nil {
			t.Fatal(err)
		}
		if err := c.AddSummary(&out, part.String()); err != nil {
			t.Fatal(err)
		}
	}
	var got bytes.Buffer
	if _, err := c.WriteTo(&got); err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Errorf("combined partial summaries differ from the summary (%d vs %d bytes)", got.Len(), len(want))
	}
}

// TestReadIndexCountsBlankLines: blank lines of an index (inside, a
// trailing one, "\r\n" ones) stop no read, strict or not, are not bad
// lines and leave the summary as it is without them (no note line); they
// are counted in Stats.BlankLines on any number of workers.
func TestReadIndexCountsBlankLines(t *testing.T) {
	old := minPartBytes
	minPartBytes = 4 << 10
	defer func() { minPartBytes = old }()
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 4000, Seed: 12}).Write(&b); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.cdxj")
	blank := filepath.Join(dir, "blank.cdxj")
	os.WriteFile(plain, b.Bytes(), 0o644)
	lines := strings.SplitAfter(b.String(), "\n")
	var bl strings.Builder
	n := int64(0)
	for i, l := range lines {
		bl.WriteString(l)
		if i%600 == 300 {
			bl.WriteString([]string{"\n", "\r\n"}[i%2])
			n++
		}
	}
	bl.WriteString("\n")
	n++
	os.WriteFile(blank, []byte(bl.String()), 0o644)
	want, _ := summarizeWith(t, 1, Options{}, plain)
	for _, w := range []int{1, 3} {
		got, st := summarizeWith(t, w, Options{}, blank)
		if got != want || st.BlankLines != n || st.BadLines != 0 {
			t.Errorf("%d workers: blank lines %d (want %d), bad lines %d; summary as without them: %v", w, st.BlankLines, n, st.BadLines, got == want)
		}
	}
	ix, err := cdxj.Open(context.Background(), blank, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	s := New(&Options{Workers: 1})
	if err := s.ReadIndex(context.Background(), ix, false); err != nil || s.Stats().BlankLines != n {
		t.Errorf("strict read: %v, %d blank lines", err, s.Stats().BlankLines)
	}
}
