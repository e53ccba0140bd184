package pipeline

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/summary"
	"github.com/mementokit/mementokit/surt"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Prism logs every job's progress at Info; a failing test says enough.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	beam.Init()
	os.Exit(m.Run())
}

var updatedAt = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// generatedLines returns n sorted CDXJ lines of cdxgen (without line ends).
func generatedLines(t *testing.T, n int64, seed uint64) []string {
	t.Helper()
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: n, Seed: seed}).Write(&b); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// splitFiles writes lines into k files of about equal size, each cut
// between two lines of different SURT authorities, and returns their
// paths in key order.
func splitFiles(t *testing.T, dir string, lines []string, k int) []string {
	t.Helper()
	var paths []string
	start := 0
	for i := 1; i <= k; i++ {
		end := len(lines)
		if i < k {
			end = len(lines) * i / k
			for end < len(lines) && bytes.Equal(cdxj.Authority([]byte(lines[end-1])), cdxj.Authority([]byte(lines[end]))) {
				end++
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("index-%02d.cdxj", i))
		if err := os.WriteFile(p, []byte(strings.Join(lines[start:end], "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		start = end
	}
	return paths
}

// writeCluster writes lines as a ZipNum cluster in the Common Crawl
// layout (cluster.idx beside cdx-00000.gz ...) under dir and returns dir.
func writeCluster(t *testing.T, dir string, lines []string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := cdxj.CreateCluster(dir, "cdx", &cdxj.ClusterOptions{LinesPerBlock: 20, BlocksPerPart: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "cdx.idx"), filepath.Join(dir, "cluster.idx")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// reference builds the map, compacted map and summary of inputs in one
// process, with the library's single-process calls.
func reference(t *testing.T, inputs []string, c Config) (m, compacted, sum []byte) {
	t.Helper()
	ctx := context.Background()
	var srcs []cdxj.Searcher
	for _, in := range inputs {
		ix, err := cdxj.Open(ctx, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		srcs = append(srcs, ix)
	}
	o := c.Build.Options(t.TempDir())
	o.Workers = 0
	var mb bytes.Buffer
	if _, err := mementomap.Build(ctx, &mb, srcs, o); err != nil {
		t.Fatal(err)
	}
	var cb bytes.Buffer
	if _, err := mementomap.Compact(&cb, bytes.NewReader(mb.Bytes()), c.Compact.Options(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	s := summary.New(c.Summary.Options())
	for _, src := range srcs {
		if err := s.ReadIndex(ctx, src, c.Summary.SkipBad); err != nil {
			t.Fatal(err)
		}
	}
	var sb bytes.Buffer
	if _, err := s.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	return mb.Bytes(), cb.Bytes(), sb.Bytes()
}

func maxInputSize(t *testing.T, inputs []string) int64 {
	t.Helper()
	var m int64
	for _, in := range inputs {
		ix, err := cdxj.Open(context.Background(), in, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := StoredSize(ix)
		ix.Close()
		if err != nil {
			t.Fatal(err)
		}
		m = max(m, n)
	}
	return m
}

func TestPipelineEqualsSingleProcess(t *testing.T) {
	lines := generatedLines(t, 30000, 3)
	dir := t.TempDir()
	multi := splitFiles(t, filepath.Join(dir), lines, 3)
	cluster := writeCluster(t, filepath.Join(dir, "cc", "indexes"), lines)
	for _, in := range []struct {
		name   string
		inputs []string // as given to the pipeline
		opened []string // as opened by the reference
	}{
		{"multi-file index by glob", []string{filepath.Join(dir, "index-*.cdxj")}, multi},
		{"Common Crawl cluster folder", []string{cluster}, []string{cluster}},
	} {
		c := Config{
			Build:   BuildSpec{ArchiveID: "https://archive.example/", Name: "generated", UpdatedAt: updatedAt},
			Compact: CompactSpec{HostFactor: 0.5, PathFactor: 0.5},
			Summary: SummarySpec{},
		}
		wantMap, wantCompact, wantSum := reference(t, in.opened, c)
		if bytes.Equal(wantMap, wantCompact) {
			t.Fatal("compaction changed nothing: the test would prove nothing")
		}
		size := maxInputSize(t, in.opened)
		for _, shards := range []int{1, 3, 8} {
			t.Run(fmt.Sprintf("%s/%d shards", in.name, shards), func(t *testing.T) {
				out := t.TempDir()
				c := c
				c.Inputs = in.inputs
				c.MapOutput = filepath.Join(out, "archive.map")
				c.CompactOutput = filepath.Join(out, "archive-compact.map")
				c.SummaryOutput = filepath.Join(out, "archive.summary")
				c.ShardBytes = (size + int64(shards) - 1) / int64(shards)
				c.CompactPieces = shards
				p, err := NewPlan(context.Background(), &c)
				if err != nil {
					t.Fatal(err)
				}
				// Plan cuts each input into at most shards parts, only
				// between authorities; with more than one it must cut.
				if (shards == 1 && len(p.Parts) != len(in.opened)) || (shards > 1 && len(p.Parts) < 2*len(in.opened)) || len(p.Parts) > shards*len(in.opened) {
					t.Fatalf("%d parts planned for %d shards of %d inputs", len(p.Parts), shards, len(in.opened))
				}
				rep, err := Run(context.Background(), "prism", p)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range []struct {
					path string
					want []byte
				}{{c.MapOutput, wantMap}, {c.CompactOutput, wantCompact}, {c.SummaryOutput, wantSum}} {
					got, err := os.ReadFile(o.path)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, o.want) {
						t.Errorf("%s (%d parts): %d bytes differ from the single-process build's %d\n%s", filepath.Base(o.path), len(p.Parts), len(got), len(o.want), firstDiff(got, o.want))
					}
				}
				m, ok := rep.Output(kindMap)
				if !ok || m.Build == nil || m.Build.Records != int64(len(lines)) || m.Build.Used == 0 {
					t.Errorf("report of the map: %+v", m)
				}
				if _, err := os.Stat(p.TempDir); !os.IsNotExist(err) {
					t.Errorf("the temporary folder %s is left behind (%v)", p.TempDir, err)
				}
				ents, _ := os.ReadDir(out)
				if len(ents) != 3 {
					t.Errorf("the output folder holds %d entries, want the 3 outputs", len(ents))
				}
			})
		}
	}
}

// TestPipelineFailingPart: a part that fails (a bad line, without
// SkipBad) fails the pipeline with an error naming the part, and nothing
// is left at the output paths.
func TestPipelineFailingPart(t *testing.T) {
	lines := generatedLines(t, 6000, 5)
	bad := len(lines) * 2 / 3
	lines[bad] = lines[bad][:strings.IndexByte(lines[bad], ' ')] // one field: a line that does not parse
	dir := t.TempDir()
	in := filepath.Join(dir, "index.cdxj")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(in)
	out := t.TempDir()
	c := Config{
		Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), CompactOutput: filepath.Join(out, "c.map"),
		SummaryOutput: filepath.Join(out, "a.summary"), ShardBytes: st.Size()/3 + 1,
		Build: BuildSpec{UpdatedAt: updatedAt}, Compact: DefaultCompactSpec(),
	}
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) != 3 {
		t.Fatalf("%d parts, want 3", len(p.Parts))
	}
	_, err = Run(context.Background(), "prism", p)
	if err == nil {
		t.Fatal("the pipeline over a bad line succeeded")
	}
	checkFailure(t, err, p)
	// The bad line is in the third part, at its byte offset.
	var badPart cdxj.Part
	off := int64(0)
	for _, l := range lines[:bad] {
		off += int64(len(l)) + 1
	}
	for _, pt := range p.Parts {
		if pt.Start <= off && off < pt.End {
			badPart = pt
		}
	}
	if want := fmt.Sprintf("part %d of 3 (%s)", badPart.Seq, badPart); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %q", err, want)
	}
	if want := fmt.Sprintf("line %d:", bad+1); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not give the bad line's number (%q)", err, want)
	}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		t.Errorf("left at the outputs: %s", e.Name())
	}
	if _, err := os.Stat(p.TempDir); !os.IsNotExist(err) {
		t.Errorf("the temporary folder %s is left behind (%v)", p.TempDir, err)
	}
}

// TestPipelineUnsortedInputs: inputs given out of key order fail loudly,
// naming the keys, and write nothing.
func TestPipelineUnsortedInputs(t *testing.T) {
	lines := generatedLines(t, 3000, 9)
	dir := t.TempDir()
	files := splitFiles(t, dir, lines, 2)
	out := t.TempDir()
	c := Config{Inputs: []string{files[1], files[0]}, MapOutput: filepath.Join(out, "a.map"), Build: BuildSpec{UpdatedAt: updatedAt}}
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), "prism", p)
	if err == nil || !strings.Contains(err.Error(), "not each sorted and one after the other by SURT") {
		t.Fatalf("inputs out of order: error %v", err)
	}
	checkFailure(t, err, p)
	for _, f := range files {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not name the input %s", err, f)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d entries left at the outputs", len(ents))
	}
}

// TestPipelineInputsCutInsideKey: a sorted index cut into files between
// two captures of one URI-R, between two URLs of one HxPx key, and around
// a file that holds captures of one key only, gives the map, compacted map
// and summary of the single-process build of the files, byte for byte
// (URI-Rs counted once each), with 1, 3 and 8 shards; files whose URI-Rs
// of a shared key do not follow one another are refused, naming both
// files and the key.
func TestPipelineInputsCutInsideKey(t *testing.T) {
	lines := generatedLines(t, 6000, 9)
	field := func(i int) string { return lines[i][:strings.IndexByte(lines[i], ' ')] }
	key := func(i int) string { return surt.HxPx(field(i)) }
	inURIR, inKey, run := -1, -1, -1
	for i := 1000; i < len(lines)-2; i++ {
		switch {
		case field(i-1) == field(i) && field(i) == field(i+1) && run < 0 && i > inURIR+100:
			run = i
		case field(i-1) == field(i) && inURIR < 0:
			inURIR = i
		case field(i-1) != field(i) && key(i-1) == key(i) && inKey < 0 && i > run+100 && run > 0:
			inKey = i
		}
	}
	if inURIR < 0 || inKey < 0 || run < 0 {
		t.Fatalf("the generated lines lack a cut inside a URI-R (%d), between two URI-Rs of one key (%d) or in a run of one URI-R (%d)", inURIR, inKey, run)
	}
	cuts := []int{inURIR, run, run + 1, inKey}
	slices.Sort(cuts)
	dir := t.TempDir()
	var files []string
	for i, start := range append([]int{0}, cuts...) {
		end := len(lines)
		if i < len(cuts) {
			end = cuts[i]
		}
		files = append(files, writeLines(t, filepath.Join(dir, fmt.Sprintf("part-%d.cdxj", i)), lines[start:end]))
	}
	c := Config{
		Inputs:  files,
		Build:   BuildSpec{UpdatedAt: updatedAt},
		Compact: CompactSpec{HostFactor: 0.5, PathFactor: 0.5},
	}
	wantMap, wantCompact, wantSum := reference(t, files, c)
	size := maxInputSize(t, files)
	for _, shards := range []int{1, 3, 8} {
		out := t.TempDir()
		c := c
		c.MapOutput = filepath.Join(out, "a.map")
		c.CompactOutput = filepath.Join(out, "a-compact.map")
		c.SummaryOutput = filepath.Join(out, "a.summary")
		c.ShardBytes = (size + int64(shards) - 1) / int64(shards)
		c.CompactPieces = shards
		p, err := NewPlan(context.Background(), &c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), "prism", p); err != nil {
			t.Fatalf("%d shards: %v", shards, err)
		}
		for _, o := range []struct {
			path string
			want []byte
		}{{c.MapOutput, wantMap}, {c.CompactOutput, wantCompact}, {c.SummaryOutput, wantSum}} {
			got, err := os.ReadFile(o.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, o.want) {
				t.Errorf("%d shards, %s (%d parts): %d bytes differ from the single-process build's %d\n%s", shards, filepath.Base(o.path), len(p.Parts), len(got), len(o.want), firstDiff(got, o.want))
			}
		}
	}

	// Two files whose URI-Rs of the key they share do not follow one
	// another: the later begins before the earlier ends.
	swapped := slices.Clone(lines)
	swapped[inKey-1], swapped[inKey] = swapped[inKey], swapped[inKey-1]
	out := t.TempDir()
	a := writeLines(t, filepath.Join(dir, "swapped-a.cdxj"), swapped[:inKey])
	b := writeLines(t, filepath.Join(dir, "swapped-b.cdxj"), swapped[inKey:])
	sc := Config{Inputs: []string{a, b}, MapOutput: filepath.Join(out, "a.map"), Build: BuildSpec{UpdatedAt: updatedAt}}
	p, err := NewPlan(context.Background(), &sc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), "prism", p)
	if err == nil || !strings.Contains(err.Error(), "not sorted one after the other") {
		t.Fatalf("inputs whose URI-Rs of key %q do not follow: error %v", key(inKey), err)
	}
	for _, want := range []string{a, b, fmt.Sprintf("%q", key(inKey))} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	checkFailure(t, err, p)
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d entries left at the outputs", len(ents))
	}
}

// TestPipelineIndexCutInsideHost: a sorted index (cdxgen -n 20000 -seed
// 3) cut into four files inside SURT hosts: one cut inside the longest
// run of captures of one URI-R, one between two captures of a URI-R with
// a query after a line of its host whose key sorts after the URI-R's
// ("pt,com,manalio)/artigo5/..." before "pt,com,manalio)/artigo?id=1252",
// whose key "pt,com,manalio)/artigo" sorts first: the files' key ranges
// interleave), one at three quarters. On prism, with 64 KiB parts (18
// parts) and with 1 and 3 parts per file, the map, the compacted map and
// the summary are byte-identical to the single-process build.
func TestPipelineIndexCutInsideHost(t *testing.T) {
	lines := generatedLines(t, 20000, 3)
	field := func(i int) string { return lines[i][:strings.IndexByte(lines[i], ' ')] }
	key := func(i int) string { return surt.HxPx(field(i)) }
	host := func(i int) string { return string(cdxj.Authority([]byte(lines[i]))) }
	longest, at := 0, 0
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && field(j) == field(i) {
			j++
		}
		if j-i > longest {
			longest, at = j-i, i
		}
		i = j
	}
	interleaved := -1
	for i, hostStart := 1, 0; i < len(lines) && interleaved < 0; i++ {
		if host(i) != host(i-1) {
			hostStart = i
		}
		if i < len(lines)/3 || field(i-1) != field(i) || !strings.Contains(field(i), "?") {
			continue
		}
		for j := hostStart; j < i; j++ {
			if key(j) > key(i) {
				interleaved = i
				break
			}
		}
	}
	if longest < 100 || interleaved < 0 {
		t.Fatalf("the generated lines lack a long run of one URI-R (%d captures) or a URI-R with a query after a greater key of its host (%d)", longest, interleaved)
	}
	cuts := []int{at + longest/2, interleaved, len(lines) * 3 / 4}
	slices.Sort(cuts)
	t.Logf("cuts before lines %v: inside %d captures of %s; between two captures of %s", cuts, longest, field(at), field(interleaved))
	dir := t.TempDir()
	var files []string
	for i, start := range append([]int{0}, cuts...) {
		end := len(lines)
		if i < len(cuts) {
			end = cuts[i]
		}
		files = append(files, writeLines(t, filepath.Join(dir, fmt.Sprintf("part-%d.cdxj", i)), lines[start:end]))
	}
	c := Config{Inputs: files, Build: BuildSpec{UpdatedAt: updatedAt}, Compact: DefaultCompactSpec()}
	wantMap, wantCompact, wantSum := reference(t, files, c)
	size := maxInputSize(t, files)
	for _, shard := range []int64{64 << 10, size, (size + 2) / 3} {
		out := t.TempDir()
		c := c
		c.MapOutput = filepath.Join(out, "a.map")
		c.CompactOutput = filepath.Join(out, "a-compact.map")
		c.SummaryOutput = filepath.Join(out, "a.summary")
		c.ShardBytes = shard
		p, err := NewPlan(context.Background(), &c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), "prism", p); err != nil {
			t.Fatalf("parts of %d bytes: %v", shard, err)
		}
		for _, o := range []struct {
			path string
			want []byte
		}{{c.MapOutput, wantMap}, {c.CompactOutput, wantCompact}, {c.SummaryOutput, wantSum}} {
			got, err := os.ReadFile(o.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, o.want) {
				t.Errorf("parts of %d bytes, %s (%d parts): %d bytes differ from the single-process build's %d\n%s", shard, filepath.Base(o.path), len(p.Parts), len(got), len(o.want), firstDiff(got, o.want))
			}
		}
	}
}

// checkFailure checks that err is a *Failure whose message is one line
// that names no file of the temporary folder.
func checkFailure(t *testing.T, err error, p *Plan) {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("error %T %q is not a *Failure", err, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the error is %d lines:\n%s", strings.Count(err.Error(), "\n")+1, err)
	}
	if strings.Contains(err.Error(), p.TempDir) {
		t.Errorf("the error names a file of the temporary folder: %s", err)
	}
	if f.Runner == nil {
		t.Error("the failure does not keep the runner's error")
	}
}

// writeLines writes lines as a file (one line end each) and returns its
// path.
func writeLines(t *testing.T, path string, lines []string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPipelineUnsortedInsidePart: an input whose lines are out of order
// inside one part fails the pipeline, whatever the number of parts, naming
// the file and the line, and writes nothing.
func TestPipelineUnsortedInsidePart(t *testing.T) {
	lines := generatedLines(t, 6000, 11)
	// Swap two lines of different keys well inside the file.
	i := len(lines) / 2
	j := i + 1
	for strings.Fields(lines[j])[0] == strings.Fields(lines[i])[0] {
		j++
	}
	lines[i], lines[j] = lines[j], lines[i]
	in := writeLines(t, filepath.Join(t.TempDir(), "unsorted.cdxj"), lines)
	st, _ := os.Stat(in)
	for _, shards := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d shards", shards), func(t *testing.T) {
			out := t.TempDir()
			c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), SummaryOutput: filepath.Join(out, "a.summary"),
				ShardBytes: st.Size()/int64(shards) + 1, Build: BuildSpec{UpdatedAt: updatedAt, SkipBad: true}}
			p, err := NewPlan(context.Background(), &c)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), "prism", p)
			if err == nil || !strings.Contains(err.Error(), "out of byte-wise order") {
				t.Fatalf("an unsorted input: error %v, want one saying it is out of order", err)
			}
			// Line j+1 holds the key of line i+1, which sorts before the one
			// now on line i+1.
			if !strings.Contains(err.Error(), fmt.Sprintf("%s: line %d:", in, j+1)) {
				t.Errorf("error %q does not name %s line %d", err, in, j+1)
			}
			checkFailure(t, err, p)
			ents, _ := os.ReadDir(out)
			for _, e := range ents {
				t.Errorf("left at the outputs: %s", e.Name())
			}
		})
	}
}

// TestPipelineBrokenJSON: a CDXJ line whose JSON block is malformed fails
// the pipeline (naming the file and the line) without SkipBad, and is
// counted as a bad line with it, as in the single-process build.
func TestPipelineBrokenJSON(t *testing.T) {
	lines := generatedLines(t, 3000, 13)
	bad := len(lines) / 3
	lines[bad] = strings.TrimSuffix(lines[bad], "}") + `, "extra": "unterminated}`
	in := writeLines(t, filepath.Join(t.TempDir(), "broken.cdxj"), lines)
	st, _ := os.Stat(in)
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprintf("SkipBad %v", skip), func(t *testing.T) {
			out := t.TempDir()
			c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), ShardBytes: st.Size()/2 + 1,
				Build: BuildSpec{UpdatedAt: updatedAt, SkipBad: skip}}
			p, err := NewPlan(context.Background(), &c)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(context.Background(), "prism", p)
			if !skip {
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s: line %d", in, bad+1)) || !strings.Contains(err.Error(), "JSON") {
					t.Fatalf("error %v, want the JSON block of %s line %d named", err, in, bad+1)
				}
				checkFailure(t, err, p)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, _ := rep.Output(kindMap)
			if m.Build == nil || m.Build.Bad != 1 || m.Build.Records != int64(len(lines)) {
				t.Fatalf("report of the map: %+v, want 1 bad line of %d", m.Build, len(lines))
			}
			want, _, _ := reference(t, []string{in}, c)
			got, err := os.ReadFile(c.MapOutput)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the map differs from the single-process build's\n%s", firstDiff(got, want))
			}
		})
	}
}

// TestPipelineCommitAllOrNone: when one output cannot be put in place (a
// folder appeared at the compacted map's path during the run), none is:
// the file that was at the map's path before the run is left as it was,
// and the summary is not written.
func TestPipelineCommitAllOrNone(t *testing.T) {
	lines := generatedLines(t, 3000, 17)
	in := writeLines(t, filepath.Join(t.TempDir(), "index.cdxj"), lines)
	out := t.TempDir()
	c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), CompactOutput: filepath.Join(out, "c.map"),
		SummaryOutput: filepath.Join(out, "a.summary"), Build: BuildSpec{UpdatedAt: updatedAt}, Compact: DefaultCompactSpec()}
	old := []byte("the map of an earlier run\n")
	if err := os.WriteFile(c.MapOutput, old, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(c.CompactOutput, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), "prism", p)
	if err == nil || !strings.Contains(err.Error(), "compact output") {
		t.Fatalf("error %v, want the compact output named", err)
	}
	checkFailure(t, err, p)
	if got, err := os.ReadFile(c.MapOutput); err != nil || !bytes.Equal(got, old) {
		t.Errorf("the map path holds %d bytes (%v), want the earlier file back", len(got), err)
	}
	if _, err := os.Stat(c.SummaryOutput); !os.IsNotExist(err) {
		t.Errorf("the summary was written (%v)", err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 2 {
		for _, e := range ents {
			t.Logf("left: %s", e.Name())
		}
		t.Errorf("%d entries in the output folder, want the earlier map and the folder", len(ents))
	}
	// Without the folder in the way the same plan's outputs all appear.
	if err := os.RemoveAll(c.CompactOutput); err != nil {
		t.Fatal(err)
	}
	p, err = NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), "prism", p); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{c.MapOutput, c.CompactOutput, c.SummaryOutput} {
		if b, err := os.ReadFile(o); err != nil || len(b) == 0 || bytes.Equal(b, old) {
			t.Errorf("%s: %d bytes, %v", o, len(b), err)
		}
	}
}

// TestNewPlanOutputs: an output in a missing folder, an output that is a
// folder, and two outputs at one path are refused before anything runs,
// naming the output.
func TestNewPlanOutputs(t *testing.T) {
	in := writeLines(t, filepath.Join(t.TempDir(), "index.cdxj"), generatedLines(t, 100, 1))
	dir, fifoDir := t.TempDir(), t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifoDir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    Config
		want string
	}{
		{"missing folder", Config{MapOutput: filepath.Join(dir, "no", "a.map")}, "output " + filepath.Join(dir, "no", "a.map") + ": its folder"},
		{"a folder", Config{MapOutput: filepath.Join(dir, "a.map"), CompactOutput: dir}, "output " + dir + " is a folder"},
		{"twice", Config{MapOutput: filepath.Join(dir, "a.map"), SummaryOutput: filepath.Join(dir, ".", "a.map")}, "is also output"},
		{"a device", Config{MapOutput: filepath.Join(dir, "a.map"), CompactOutput: os.DevNull}, "output " + os.DevNull + " is not a regular file"},
		{"a pipe", Config{MapOutput: filepath.Join(fifoDir, "fifo")}, "output " + filepath.Join(fifoDir, "fifo") + " is not a regular file"},
	} {
		tc.c.Inputs = []string{in}
		if _, err := NewPlan(context.Background(), &tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries left in the folder", len(ents))
	}
}

func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.cdxj", "a.cdxj", "c.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	got, err := ExpandInputs([]string{filepath.Join(dir, "*.cdxj"), "https://index.example/cdx?x=*"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.cdxj"), filepath.Join(dir, "b.cdxj"), "https://index.example/cdx?x=*"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := ExpandInputs([]string{filepath.Join(dir, "*.gz")}); err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("a pattern that matches nothing: %v", err)
	}
}

func firstDiff(got, want []byte) string {
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %.200q, want %.200q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

// TestValidate: Config.Validate names the setting no run could use, and
// accepts the defaults.
func TestValidate(t *testing.T) {
	ok := Config{Inputs: []string{"a.cdxj"}, MapOutput: "a.map", Compact: DefaultCompactSpec()}
	if err := ok.Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	for want, edit := range map[string]func(*Config){
		"no inputs":            func(c *Config) { c.Inputs = nil },
		"no map output":        func(c *Config) { c.MapOutput = "" },
		"compaction pieces -3": func(c *Config) { c.CompactPieces = -3 },
		"status class 7":       func(c *Config) { c.Build.StatusClasses = []int{2, 7} },
		"host factor -1":       func(c *Config) { c.Compact.HostFactor = -1 },
		"shard size -1 bytes":  func(c *Config) { c.ShardBytes = -1 },
	} {
		c := ok
		edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// TestNewPlanOutputIsInput: an output that is an input (by its name, a
// glob's match, a symbolic link, or a part of an input cluster) is
// refused before anything runs, and the input is left as it was.
func TestNewPlanOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	lines := generatedLines(t, 2000, 9)
	in := writeLines(t, filepath.Join(dir, "index.cdxj"), lines)
	link := filepath.Join(dir, "link.map")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	cluster := writeCluster(t, filepath.Join(dir, "cc"), lines)
	blocks, _ := filepath.Glob(filepath.Join(cluster, "*.gz"))
	if len(blocks) == 0 {
		t.Fatal("the cluster has no part files")
	}
	before, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    Config
	}{
		{"map output", Config{Inputs: []string{in}, MapOutput: in}},
		{"compact output by glob", Config{Inputs: []string{filepath.Join(dir, "*.cdxj")}, MapOutput: filepath.Join(dir, "a.map"), CompactOutput: in}},
		{"summary output through a link", Config{Inputs: []string{in}, MapOutput: filepath.Join(dir, "a.map"), SummaryOutput: link}},
		{"cluster part in the input folder", Config{Inputs: []string{cluster}, MapOutput: blocks[0]}},
		{"cluster part of the input .idx", Config{Inputs: []string{filepath.Join(cluster, "cluster.idx")}, MapOutput: blocks[len(blocks)-1]}},
		{"cluster secondary index", Config{Inputs: []string{filepath.Join(cluster, "cluster.idx")}, MapOutput: filepath.Join(dir, "a.map"), SummaryOutput: filepath.Join(cluster, "cluster.idx")}},
	} {
		_, err := NewPlan(context.Background(), &tc.c)
		if err == nil || !strings.Contains(err.Error(), "is the input") {
			t.Errorf("%s: error %v, want \"output ... is the input ...\"", tc.name, err)
		}
	}
	if after, err := os.ReadFile(in); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the input changed (%v)", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*beam-*")); len(m) > 0 {
		t.Errorf("left: %v", m)
	}
}

// TestPipelineTempDirOwnFolder: with Config.TempDir the run works in a
// new folder of its own inside it and removes only that: the user's
// files there, named as the pipeline's shards are, survive a run that
// succeeds and one that fails.
func TestPipelineTempDirOwnFolder(t *testing.T) {
	lines := generatedLines(t, 2000, 21)
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "index.cdxj"), lines)
	td := filepath.Join(dir, "td")
	if err := os.Mkdir(td, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := []string{"map", "compact", "summary", "report.json", "map-00000", "failed-1-x", "previous-map"}
	for _, n := range mine {
		if err := os.WriteFile(filepath.Join(td, n), []byte("the user's "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), CompactOutput: filepath.Join(out, "c.map"),
		SummaryOutput: filepath.Join(out, "a.summary"), TempDir: td, Build: BuildSpec{UpdatedAt: updatedAt}, Compact: DefaultCompactSpec()}
	for _, fails := range []bool{false, true} {
		p, err := NewPlan(context.Background(), &c)
		if err != nil {
			t.Fatal(err)
		}
		if fails {
			// A folder at the compacted map's path fails the commit.
			if err := os.Remove(filepath.Join(out, "c.map")); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(out, "c.map", "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if filepath.Dir(p.TempDir) != td {
			t.Errorf("the run's folder %s is not inside %s", p.TempDir, td)
		}
		_, err = Run(context.Background(), "prism", p)
		if (err != nil) != fails {
			t.Fatalf("failing %v: %v", fails, err)
		}
		for _, n := range mine {
			if b, err := os.ReadFile(filepath.Join(td, n)); err != nil || string(b) != "the user's "+n+"\n" {
				t.Errorf("failing %v: the user's %s: %q, %v", fails, n, b, err)
			}
		}
		if ents, _ := os.ReadDir(td); len(ents) != len(mine) {
			t.Errorf("failing %v: %d entries in the temporary folder, want the user's %d", fails, len(ents), len(mine))
		}
	}
}

// TestCommitReplacesAtOnce: commit renames each output over the file at
// its path (the path never empty), and when a later output cannot be put
// in place the old file itself is back at the first path.
func TestCommitReplacesAtOnce(t *testing.T) {
	tmp, out := t.TempDir(), t.TempDir()
	final := filepath.Join(out, "a.map")
	if err := os.WriteFile(final, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oldFi, _ := os.Stat(final)
	newMap := filepath.Join(tmp, "map")
	os.WriteFile(newMap, []byte("new\n"), 0o644)
	newSum := filepath.Join(tmp, "summary")
	os.WriteFile(newSum, []byte("sum\n"), 0o644)
	blocked := filepath.Join(out, "a.summary")
	os.MkdirAll(filepath.Join(blocked, "x"), 0o755)
	outs := []Shard{{Kind: kindMap, Path: newMap}, {Kind: kindSummary, Path: newSum}}
	finals := map[string]string{kindMap: final, kindSummary: blocked}
	if _, err := commit(outs, finals, tmp); err == nil {
		t.Fatal("commit over a folder succeeded")
	}
	fi, err := os.Stat(final)
	if b, _ := os.ReadFile(final); err != nil || string(b) != "old\n" || !os.SameFile(fi, oldFi) {
		t.Errorf("the map path holds %q (%v), want the old file itself", b, err)
	}
	os.RemoveAll(blocked)
	os.WriteFile(newMap, []byte("new\n"), 0o644)
	if _, err := commit(outs, finals, tmp); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(final); string(b) != "new\n" {
		t.Errorf("the map path holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(tmp, "previous-map")); string(b) != "old\n" {
		t.Errorf("the kept old map holds %q", b)
	}
}

// TestPipelineLockAndRunnerTemp: a plan locks its outputs' folder until
// Cleanup, so a second plan for the same folder fails naming it; and a run
// leaves nothing in TMPDIR (the runner's loopback worker file goes into
// the run's own folder and is removed with it).
func TestPipelineLockAndRunnerTemp(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "index.cdxj"), generatedLines(t, 500, 5))
	out := t.TempDir()
	c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), Build: BuildSpec{UpdatedAt: updatedAt}}
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	other := c
	other.MapOutput, other.SummaryOutput = filepath.Join(out, "b.map"), filepath.Join(t.TempDir(), "b.summary")
	if _, err := NewPlan(context.Background(), &other); err == nil || !strings.Contains(err.Error(), "output folder "+out+" is in use") {
		t.Fatalf("a second plan for %s: %v, want the folder named as in use", out, err)
	}
	p.Cleanup()

	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	p, err = NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatalf("a plan after Cleanup: %v", err)
	}
	if _, err := Run(context.Background(), "prism", p); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		t.Errorf("TMPDIR after the run: %v, %v; want it empty", ents, err)
	}
	if got := os.Getenv("TMPDIR"); got != tmp {
		t.Errorf("TMPDIR after the run is %q, want %q restored", got, tmp)
	}
	// The lock went with the run: the folder can be planned again.
	p, err = NewPlan(context.Background(), &other)
	if err != nil {
		t.Fatalf("a plan after the run: %v", err)
	}
	p.Cleanup()
}

// legendChanges is a sorted classic CDX file of 3*per lines whose legend
// changes twice midway (status and MIME type swapped, then back), as two
// or three CDX files joined give; a third of the statuses are not 2xx.
func legendChanges(per int) string {
	var b strings.Builder
	row := func(host string, i int, swapped bool) {
		st := []int{200, 404, 302}[i%3]
		if swapped {
			fmt.Fprintf(&b, "com,%s%04d)/ 20200101000000 http://%s%04d.com/ %d text/html X - - 100 1 f.warc.gz\n", host, i, host, i, st)
		} else {
			fmt.Fprintf(&b, "com,%s%04d)/p 20200101000000 http://%s%04d.com/p text/html %d X - - 100 1 f.warc.gz\n", host, i, host, i, st)
		}
	}
	b.WriteString(" CDX N b a m s k r M S V g\n")
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

// TestPipelineLegendChange: a file whose legend changes midway, cut into
// 4 KiB parts, gives the map, compacted map and summary of the
// single-process build: each part is read with the legend in force where
// it starts.
func TestPipelineLegendChange(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "joined.cdx")
	if err := os.WriteFile(in, []byte(legendChanges(400)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Config{Inputs: []string{in}, ShardBytes: 4 << 10,
		Build:   BuildSpec{StatusClasses: []int{2}, UpdatedAt: updatedAt},
		Compact: DefaultCompactSpec()}
	wantMap, wantCompact, wantSum := reference(t, c.Inputs, c)
	out := t.TempDir()
	c.MapOutput = filepath.Join(out, "a.map")
	c.CompactOutput = filepath.Join(out, "a-compact.map")
	c.SummaryOutput = filepath.Join(out, "a.summary")
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) < 20 {
		t.Fatalf("%d parts of 4 KiB: the legend changes would fall inside one part", len(p.Parts))
	}
	rep, err := Run(context.Background(), "prism", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		path string
		want []byte
	}{{c.MapOutput, wantMap}, {c.CompactOutput, wantCompact}, {c.SummaryOutput, wantSum}} {
		got, err := os.ReadFile(o.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, o.want) {
			t.Errorf("%s (%d parts): differs from the single-process build's\n%s", filepath.Base(o.path), len(p.Parts), firstDiff(got, o.want))
		}
	}
	// 2xx: the 200s of the three stretches, 134 of each 400 lines.
	if m, _ := rep.Output(kindMap); m.Build == nil || m.Build.Used != 402 || m.Build.Bad != 0 {
		t.Errorf("report of the map: %+v", m.Build)
	}
}

// TestNewPlanRemovesStale: a temporary folder of an earlier run that was
// killed (nothing holds its lock) is removed by the next plan and named in
// RemovedStale, beside the output and in a TempDir; a folder whose run
// still holds its lock, and a folder of another name, are kept.
func TestNewPlanRemovesStale(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, filepath.Join(dir, "index.cdxj"), generatedLines(t, 200, 5))
	out := t.TempDir()
	stale := filepath.Join(out, ".a.map.beam-123456")
	other := filepath.Join(out, ".b.map.beam-123456")
	for _, d := range []string{stale, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "sub", "map-00000"), []byte("x"), 0o644)
	}
	c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), Build: BuildSpec{UpdatedAt: updatedAt}}
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	p.Cleanup()
	if len(p.RemovedStale) != 1 || p.RemovedStale[0] != stale {
		t.Errorf("RemovedStale %q, want [%s]", p.RemovedStale, stale)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("%s is left (%v)", stale, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the folder of another output: %v", err)
	}

	tmp := t.TempDir()
	dead, live := filepath.Join(tmp, "mementomap-beam-1"), filepath.Join(tmp, "mementomap-beam-2")
	for _, d := range []string{dead, live} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := lockDir(live, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c.TempDir = tmp
	p, err = NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	p.Cleanup()
	if len(p.RemovedStale) != 1 || p.RemovedStale[0] != dead {
		t.Errorf("in TempDir: RemovedStale %q, want [%s]", p.RemovedStale, dead)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the folder of a live run: %v", err)
	}
}

// TestNewPlanRenameCheck: an output that cannot be renamed into place
// from the run's temporary folder (here another file system: a TempDir on
// /dev/shm, a tmpfs) fails NewPlan, naming the output, before any run;
// nothing is left in either folder.
func TestNewPlanRenameCheck(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "mementomap-beam-test-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	out := t.TempDir()
	var a, b syscall.Stat_t
	if syscall.Stat(shm, &a) != nil || syscall.Stat(out, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is on the file system of the test's folder")
	}
	in := writeLines(t, filepath.Join(t.TempDir(), "index.cdxj"), generatedLines(t, 200, 5))
	c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), TempDir: shm, Build: BuildSpec{UpdatedAt: updatedAt}}
	_, err = NewPlan(context.Background(), &c)
	if err == nil || !strings.Contains(err.Error(), "output "+c.MapOutput+" cannot be put in place") || !strings.Contains(err.Error(), "another file system") ||
		!strings.Contains(err.Error(), "--temp-dir "+shm) {
		t.Fatalf("NewPlan: %v, want the output named as on another file system than --temp-dir", err)
	}
	// Without a temporary folder given, a compacted map on another file
	// system than the map: the two outputs' folders are named, not
	// --temp-dir.
	cc := c
	cc.TempDir, cc.CompactOutput = "", filepath.Join(shm, "a-compact.map")
	_, err = NewPlan(context.Background(), &cc)
	if err == nil || !strings.Contains(err.Error(), "output "+cc.CompactOutput+" cannot be put in place") ||
		!strings.Contains(err.Error(), "its folder "+shm+" is on another file system than the folder "+out+" of the map output") ||
		!strings.Contains(err.Error(), "write every output on one file system") || strings.Contains(err.Error(), "temp-dir") {
		t.Fatalf("NewPlan with the compacted map on another file system: %v, want both folders named and no --temp-dir", err)
	}
	for _, d := range []string{shm, out} {
		if ents, _ := os.ReadDir(d); len(ents) != 0 {
			t.Errorf("%s holds %d entries after the failed plan", d, len(ents))
		}
	}
	// The lock went with the failed plan.
	c.TempDir = ""
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	p.Cleanup()
}

// TestPreview: Preview plans the parts NewPlan plans while another plan
// holds the output folder, and makes and locks nothing.
func TestPreview(t *testing.T) {
	in := writeLines(t, filepath.Join(t.TempDir(), "index.cdxj"), generatedLines(t, 2000, 5))
	out := t.TempDir()
	c := Config{Inputs: []string{in}, MapOutput: filepath.Join(out, "a.map"), ShardBytes: 16 << 10, Build: BuildSpec{UpdatedAt: updatedAt}}
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	v, err := Preview(context.Background(), &c)
	if err != nil {
		t.Fatalf("Preview while a plan holds the folder: %v", err)
	}
	if len(v.Parts) != len(p.Parts) || len(v.Parts) < 2 || v.TempDir != "" {
		t.Errorf("Preview: %d parts, temporary folder %q; NewPlan: %d parts", len(v.Parts), v.TempDir, len(p.Parts))
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("the output folder holds %d entries, want NewPlan's temporary folder only", len(ents))
	}
	if _, err := Run(context.Background(), "prism", v); err == nil {
		t.Error("a Preview plan ran")
	}
}

// TestNewPlanConfigPointer: a nil Config is the zero one, refused for
// want of a map output, and NewPlan and Preview leave the Config given as
// it was (the plan holds a copy with the defaults filled in).
func TestNewPlanConfigPointer(t *testing.T) {
	for _, f := range []func(context.Context, *Config) (*Plan, error){NewPlan, Preview} {
		if _, err := f(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no map output path") {
			t.Errorf("a nil Config: %v, want the zero Config's error", err)
		}
	}
	in := writeLines(t, filepath.Join(t.TempDir(), "index.cdxj"), generatedLines(t, 200, 5))
	c := Config{Inputs: []string{in}, MapOutput: filepath.Join(t.TempDir(), "a.map")}
	want := c
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	if p.ShardBytes != DefaultShardBytes || p.Build.UpdatedAt.IsZero() {
		t.Errorf("the plan's defaults: ShardBytes %d, UpdatedAt %v", p.ShardBytes, p.Build.UpdatedAt)
	}
	if c.ShardBytes != want.ShardBytes || !c.Build.UpdatedAt.Equal(want.Build.UpdatedAt) {
		t.Errorf("NewPlan changed the Config given: ShardBytes %d, UpdatedAt %v", c.ShardBytes, c.Build.UpdatedAt)
	}
}

// TestStoredSize: a plain file's size, and a cluster's compressed block
// lengths summed as its cluster.idx lists them.
func TestStoredSize(t *testing.T) {
	lines := generatedLines(t, 3000, 4)
	dir := t.TempDir()
	file := writeLines(t, filepath.Join(dir, "index.cdxj"), lines)
	cluster := writeCluster(t, filepath.Join(dir, "cc", "indexes"), lines)
	idx, err := os.ReadFile(filepath.Join(cluster, "cluster.idx"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks int64
	for _, l := range strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 4 {
			t.Fatalf("cluster.idx line %q", l)
		}
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			t.Fatalf("cluster.idx line %q: %v", l, err)
		}
		blocks += n
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want int64
	}{{file, fi.Size()}, {cluster, blocks}} {
		ix, err := cdxj.Open(context.Background(), tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := StoredSize(ix)
		ix.Close()
		if err != nil || got != tc.want || got == 0 {
			t.Errorf("StoredSize(%s) = %d, %v; want %d", tc.path, got, err, tc.want)
		}
	}
}

// rekeyed is cdxgen.Rekey, failing t on its error.
func rekeyed(t *testing.T, lines []string, pick func(i int) int) []string {
	t.Helper()
	out, err := cdxgen.Rekey(lines, pick)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runMap runs the pipeline of c (its map only) on prism with parts of
// about size/shards bytes and returns the map's bytes and its report.
func runMap(t *testing.T, c Config, size int64, shards int) ([]byte, *Report, *Plan) {
	t.Helper()
	c.MapOutput = filepath.Join(t.TempDir(), "a.map")
	c.ShardBytes = max(1, (size+int64(shards)-1)/int64(shards))
	p, err := NewPlan(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), "prism", p)
	if err != nil {
		t.Fatalf("%d shards: %v", shards, err)
	}
	got, err := os.ReadFile(c.MapOutput)
	if err != nil {
		t.Fatal(err)
	}
	return got, rep, p
}

// TestPipelineRekeyedAcrossParts: records whose index keys the build
// replaces by the canonical SURTs of their URLs, in parts other than the
// one that holds their URI-R at its index key (a file f2 whose line
// "com,a)/c" has the URL http://a.com/, which f1 holds at "com,a)/"; a
// generated index with one line in four re-keyed, cut into files inside
// hosts): on prism with 1, 3 and 8 shards the map is byte-identical to
// mementomap.Build's, each URI-R counted once.
func TestPipelineRekeyedAcrossParts(t *testing.T) {
	dir := t.TempDir()
	f1 := writeLines(t, filepath.Join(dir, "f1.cdxj"), []string{`com,a)/ 20200101000000 {"url":"http://a.com/"}`, `com,a)/b 20200101000000 {"url":"http://a.com/b"}`})
	f2 := writeLines(t, filepath.Join(dir, "f2.cdxj"), []string{`com,a)/c 20200101000000 {"url":"http://a.com/"}`})
	c := Config{Inputs: []string{f1, f2}, Build: BuildSpec{UpdatedAt: updatedAt}}
	want, _, _ := reference(t, c.Inputs, c)
	if !bytes.Contains(want, []byte("\ncom,a)/ 2/1\n")) {
		t.Fatalf("the single-process map:\n%s", want)
	}
	got, rep, _ := runMap(t, c, maxInputSize(t, c.Inputs), 1)
	if !bytes.Equal(got, want) {
		t.Errorf("two files: the map differs from the single-process build's\n%s", firstDiff(got, want))
	}
	if m, _ := rep.Output(kindMap); m.Build == nil || m.Build.URIRs != 2 || m.Build.Mismatched != 1 {
		t.Errorf("two files: the report counts %+v, want 2 URI-Rs and 1 re-keyed line", m.Build)
	}

	lines := generatedLines(t, 4000, 7)
	n := len(lines)
	hostile := rekeyed(t, lines, func(i int) int {
		switch i % 8 {
		case 1:
			return (i*37 + 11) % n // anywhere
		case 4:
			return max(i-3, 0) // a line before: the same part, or the one before
		case 6:
			return min(i+5, n-1) // a line after
		}
		return -1
	})
	var files []string
	cuts := []int{n / 5, n/5 + 1, n / 2, 3 * n / 4}
	for i, start := range append([]int{0}, cuts...) {
		end := n
		if i < len(cuts) {
			end = cuts[i]
		}
		files = append(files, writeLines(t, filepath.Join(dir, fmt.Sprintf("hostile-%d.cdxj", i)), hostile[start:end]))
	}
	c = Config{Inputs: files, Build: BuildSpec{UpdatedAt: updatedAt}}
	want, _, _ = reference(t, files, c)
	size := maxInputSize(t, files)
	for _, shards := range []int{1, 3, 8} {
		got, rep, p := runMap(t, c, size, shards)
		if !bytes.Equal(got, want) {
			t.Errorf("%d shards (%d parts): the map differs from the single-process build's\n%s", shards, len(p.Parts), firstDiff(got, want))
		}
		if m, _ := rep.Output(kindMap); m.Build == nil || m.Build.Mismatched < int64(n/8) {
			t.Errorf("%d shards: the report counts %+v re-keyed lines, want %d or more", shards, m.Build, n/8)
		}
	}
}
