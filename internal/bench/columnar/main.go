// Command columnar (internal/bench/columnar) measures the Parquet export of
// package columnar against the MementoMap build on the same index, and the
// size of the table against the gzip CDXJ:
//
//	go run ./internal/bench/columnar                # 16 M CDXJ lines (minutes)
//	go run ./internal/bench/columnar -n 200000      # a quick run
//
// It generates a sorted SURT-keyed CDXJ index with internal/cdxgen (the
// lines `go run ./examples/cdxgen -n N` writes), gzips it (level 6, as
// gzip(1) does), then runs each phase in a child process with GOMAXPROCS=1,
// so that its CPU time and peak resident memory are its own:
//
//   - build: mementomap.Build of the baseline map (the reference);
//   - scan: every record read and its JSON block checked (cdxj.Open,
//     Record.CheckJSON), what build and export both pay;
//   - convert: scan plus columnar.Converter.Row for every record, the
//     export's work before Parquet;
//   - export: columnar.Create and Table.ReadIndex over cdxj.Open, one Parquet file;
//   - export-year: the same partitioned by year;
//   - read: columnar.ReadRows over the exported file (every row decoded).
//
// The figure to compare is CPU per line; the target is export within twice
// build's. Export's CPU less convert's is what writing Parquet costs (the
// package's column writers: dictionaries, encodings, compression, page
// bounds and the page buffer files); convert's less scan's is what
// deriving the columns costs.
// Sizes are reported in bytes and per line.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/columnar"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/mementomap"
)

func main() { benchutil.Main(run) }

type config struct {
	*benchutil.Flags
	rowGroup int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := benchutil.NewFlagSet("Parquet export (package columnar) against mementomap build on one generated index, and the table's size against gzip CDXJ.", stderr)
	c := config{Flags: benchutil.AddFlags(fs, 16_000_000)}
	fs.IntVar(&c.rowGroup, "rowgroup", 0, "rows per row group (0: columnar.DefaultRowGroupRows)")
	return c.Run(fs, args, "columnar-bench-", stdout, stderr, func() error { return runPhase(ctx, c, stdout) },
		func(w *bufio.Writer, logf func(string, ...any)) error {
			p := func(name string) string { return filepath.Join(c.Dir, name) }

			// 1. Data: the index and its gzip form.
			if _, err := os.Stat(p("index.cdxj")); err != nil {
				logf("generating %d CDXJ lines (seed %d) in %s", c.N, c.Seed, c.Dir)
				if _, err := benchutil.WriteFile(p("index.cdxj"), func(f io.Writer) (cdxgen.Stats, error) {
					return cdxgen.New(cdxgen.Config{Lines: c.N, Seed: c.Seed}).Write(f)
				}); err != nil {
					return err
				}
			}
			if _, err := os.Stat(p("index.cdxj.gz")); err != nil {
				logf("gzip -6 of the index")
				if err := gzipFile(p("index.cdxj"), p("index.cdxj.gz")); err != nil {
					return err
				}
			}
			lines, err := countLines(p("index.cdxj"))
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "# Parquet export benchmark\n\nindex: %d CDXJ lines (cdxgen seed %d); Go %s, %s/%s, %d CPUs on the machine; each phase runs with GOMAXPROCS=1\n\n",
				lines, c.Seed, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())

			// 2. Measured phases.
			fmt.Fprintf(w, "| phase | lines | wall | CPU | CPU per line | lines/s (CPU) | peak RSS |\n|---|---|---|---|---|---|---|\n")
			cpu := map[string]time.Duration{}
			for _, ph := range []string{"build", "scan", "convert", "export", "export-year", "read"} {
				logf("phase %s", ph)
				r, err := child(ctx, c, ph)
				if err != nil {
					return fmt.Errorf("phase %s: %w", ph, err)
				}
				cpu[ph] = r.CPU
				fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %.0f MiB |\n", ph, r.Items,
					r.Wall.Round(time.Millisecond), r.CPU.Round(time.Millisecond), perLine(r.CPU, r.Items), benchutil.Rate(r.Items, r.CPU), float64(r.MaxRSS)/(1<<20))
				if r.Note != "" {
					fmt.Fprintf(w, "|   | %s | | | | | |\n", r.Note)
				}
				w.Flush()
			}
			if cpu["build"] > 0 {
				fmt.Fprintf(w, "\nexport CPU / build CPU: %.2f (target: at most 2)\n", float64(cpu["export"])/float64(cpu["build"]))
				fmt.Fprintf(w, "export CPU per line: scan %s, deriving the columns %s, writing Parquet %s\n",
					perLine(cpu["scan"], lines), perLine(cpu["convert"]-cpu["scan"], lines), perLine(cpu["export"]-cpu["convert"], lines))
			}

			// 3. Sizes.
			fmt.Fprintf(w, "\n| file | bytes | bytes per line | vs gzip CDXJ |\n|---|---|---|---|\n")
			gz := size(p("index.cdxj.gz"))
			yearSize, _ := treeSize(p("year"))
			for _, f := range []struct {
				name string
				n    int64
			}{{"index.cdxj", size(p("index.cdxj"))}, {"index.cdxj.gz", gz}, {"index.parquet", size(p("index.parquet"))}, {"year/ (partitioned)", yearSize}} {
				fmt.Fprintf(w, "| %s | %d | %.1f | %.2f |\n", f.name, f.n, float64(f.n)/float64(lines), float64(f.n)/float64(gz))
			}
			return nil
		})
}

func perLine(d time.Duration, n int64) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f ns", float64(d.Nanoseconds())/float64(n))
}

func size(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

func treeSize(dir string) (int64, error) {
	files, err := columnar.Files(dir)
	var n int64
	for _, f := range files {
		n += size(f)
	}
	return n, err
}

func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		m, err := f.Read(buf)
		n += int64(bytes.Count(buf[:m], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func gzipFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = benchutil.WriteFile(dst, func(w io.Writer) (int64, error) {
		zw, _ := gzip.NewWriterLevel(w, 6)
		n, err := io.Copy(zw, in)
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
		return n, err
	})
	return err
}

// result is what a phase child reports (JSON on its stdout); the parent
// adds the child's rusage.
type result struct {
	benchutil.Measured
	Items int64
	Note  string
}

func child(ctx context.Context, c config, phase string) (result, error) {
	var r result
	err := benchutil.RunPhase(ctx, &r, phase, c.Dir, "-rowgroup", fmt.Sprint(c.rowGroup))
	return r, err
}

func runPhase(ctx context.Context, c config, stdout io.Writer) (err error) {
	stop, err := benchutil.StartCPUProfile(c.CPUProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stop()) }()
	p := func(name string) string { return filepath.Join(c.Dir, name) }
	var r result
	t0 := time.Now()
	switch c.Phase {
	case "build":
		f, err := cdxj.Open(ctx, p("index.cdxj"), nil)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := benchutil.WriteFile(p("base.ukvs"), func(w io.Writer) (mementomap.BuildStats, error) {
			return mementomap.Build(ctx, w, []cdxj.Searcher{f}, &mementomap.BuildOptions{ArchiveID: "https://arquivo.pt/", Name: "bench"})
		})
		if err != nil {
			return err
		}
		r = result{Items: st.Records, Note: fmt.Sprintf("%d HxPx keys", st.Keys)}
	case "scan", "convert":
		f, err := cdxj.Open(ctx, p("index.cdxj"), nil)
		if err != nil {
			return err
		}
		defer f.Close()
		conv := columnar.NewConverter(nil)
		var row columnar.Row
		var n int64
		for rec, err := range f.Records(cdxj.Query{}) {
			if err == nil {
				if c.Phase == "scan" {
					err = rec.CheckJSON()
				} else {
					err = conv.Row(&row, rec, "index.cdxj")
				}
			}
			if err != nil {
				return err
			}
			n++
		}
		r = result{Items: n}
	case "export", "export-year":
		out, part := p("index.parquet"), columnar.NoPartition
		if c.Phase == "export-year" {
			out, part = p("year"), columnar.ByYear
			os.RemoveAll(out)
		}
		f, err := cdxj.Open(ctx, p("index.cdxj"), nil)
		if err != nil {
			return err
		}
		defer f.Close()
		t, err := columnar.Create(out, &columnar.Options{RowGroupRows: c.rowGroup, Partition: part})
		if err != nil {
			return err
		}
		defer t.Close()
		if err := t.ReadIndex(ctx, f, "index.cdxj", false); err != nil {
			return err
		}
		if err := t.Commit(); err != nil {
			return err
		}
		st := t.Stats()
		r = result{Items: st.Rows, Note: fmt.Sprintf("%d files", st.Files)}
	case "read":
		var n int64
		for _, err := range columnar.ReadRows(p("index.parquet")) {
			if err != nil {
				return err
			}
			n++
		}
		r = result{Items: n}
	default:
		return fmt.Errorf("unknown phase %q", c.Phase)
	}
	r.Wall = time.Since(t0)
	return json.NewEncoder(stdout).Encode(r)
}
