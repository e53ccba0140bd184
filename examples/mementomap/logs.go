package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mementokit/mementokit/aggregator/accesslog"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/logreport"
	"github.com/mementokit/mementokit/internal/report"
	"github.com/mementokit/mementokit/timestamp"
)

// logsResult is what "mementomap logs" reports (its -json form).
type logsResult struct {
	Logs  []string        `json:"logs"`
	Stats accesslog.Stats `json:"stats"`
	// DistinctURIRs are the distinct URI-Rs looked up (by full SURT).
	DistinctURIRs int `json:"distinct_urirs"`
	// Overlap is Figure 4, with -index.
	Overlap *accesslog.Overlap `json:"overlap,omitempty"`
}

// logs reads access logs (package aggregator/accesslog) into a lookup list
// for eval and lookup, the paper's Table 3 and, against an index, Figure 4.
func (e *env) logs(args []string) error {
	fs, parse := e.indexFlags("logs", "LOG...")
	format := fs.String("format", "auto", "log format: auto (per file), common, combined, memgator or aggregator (this module's JSON log)")
	root := fs.String("root", "", "path prefix the aggregator answers under (its -root), removed from request targets")
	lookups := fs.String("lookups", "", "write the lookups, one a line in log order, to this file (for eval -lookups and lookup): \"URI-R DATETIME\" for a lookup that names a datetime, else \"URI-R\" (see -datetimes)")
	datetimes := fs.Bool("datetimes", true, "in -lookups, write \"URI-R DATETIME\" (14 digits) for each lookup that names a datetime, the input lookup and eval read back (lookup at that datetime in a map with a datetime key column; any other map and eval answer for the URI-R); -datetimes=false writes every lookup as its URI-R alone")
	var indexes []string
	fs.Func("index", "an `INDEX` of the archive for Figure 4 (repeatable; files, clusters, CDX servers as in build)", func(s string) error {
		indexes = append(indexes, s)
		return nil
	})
	asJSON := fs.Bool("json", false, "write the report as JSON instead of text")
	out := fs.String("o", "-", "report file ('-' for standard output)")
	htmlOut := fs.String("html", "", "also write a self-contained HTML report (Table 3, Figure 4 as a chart) to this file")
	maxBad := fs.Int("max-bad", 20, "bad and refused lines named in the report")
	opts := buildFlags(fs, false)
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef("logs: no log given (run with -h for usage)")
	}
	f, err := accesslog.ParseFormat(*format)
	if err != nil {
		return err
	}
	if err := checkDistinctOutputs("logs", "-o", *out, "-lookups", *lookups, "-html", *htmlOut); err != nil {
		return err
	}
	inputs := append(append([]string{}, fs.Args()...), indexes...)
	for _, o := range []string{*out, *lookups, *htmlOut} {
		if err := checkOutput("logs", o, inputs...); err != nil {
			return err
		}
	}
	bo, err := opts()
	if err != nil {
		return err
	}
	bo.Logger = e.log
	if *maxBad == 0 {
		*maxBad = -1
	}
	rd := accesslog.NewReader(&accesslog.Options{Format: f, Root: *root, MaxBadLines: *maxBad})
	q := accesslog.NewRequests()
	readAll := func(emit func(accesslog.Lookup) error) error {
		each := func(l accesslog.Lookup) error {
			q.Add(l.URIR)
			return emit(l)
		}
		for _, p := range fs.Args() {
			if p != "-" {
				if err := rd.ReadFile(e.ctx, p, each); err != nil {
					return err
				}
				continue
			}
			rc, err := cdxj.NewDecompressor(e.stdin)
			if err != nil {
				return fmt.Errorf("standard input: %w", err)
			}
			err = rd.Read(e.ctx, rc, "standard input", each)
			rc.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	if *lookups != "" {
		err = e.writeOutput(*lookups, func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<16)
			if err := readAll(func(l accesslog.Lookup) error {
				bw.WriteString(l.URIR)
				if *datetimes && !l.Datetime.IsZero() {
					bw.WriteByte(' ')
					bw.WriteString(timestamp.Format(l.Datetime))
				}
				return bw.WriteByte('\n')
			}); err != nil {
				return err
			}
			return bw.Flush()
		})
	} else {
		err = readAll(func(accesslog.Lookup) error { return nil })
	}
	if err != nil {
		return err
	}
	res := logsResult{Logs: fs.Args(), Stats: rd.Stats(), DistinctURIRs: q.Len()}
	if len(indexes) > 0 {
		ins, closeAll, err := e.openIndexes(indexes, "index")
		if err != nil {
			return err
		}
		res.Overlap, err = accesslog.ComputeOverlap(e.ctx, q, ins, &bo)
		closeAll()
		if err != nil {
			return err
		}
	}
	st := res.Stats
	if st.Bad+st.Refused > 0 {
		e.log.Warn("log lines not read as lookups", "bad", st.Bad, "refused", st.Refused, "first", firstBad(st.BadLines))
	}
	err = e.writeOutput(*out, func(w io.Writer) error {
		if *asJSON {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		return writeLogsText(w, &res)
	})
	if err != nil {
		return err
	}
	if *htmlOut != "" {
		pg, err := logreport.Report(logreport.Input{Stats: &res.Stats, Overlap: res.Overlap, DistinctURIRs: res.DistinctURIRs,
			Sources: append(fs.Args(), indexes...), Generator: "mementomap logs"})
		if err != nil {
			return err
		}
		if err := report.Save(*htmlOut, pg); err != nil {
			return err
		}
	}
	if st.Lookups == 0 {
		return fmt.Errorf("logs: no lookup in %s (%d lines: %d other records, %d bad, %d refused)",
			strings.Join(fs.Args(), ", "), st.Lines, st.Other, st.Bad, st.Refused)
	}
	return nil
}

func firstBad(b []accesslog.BadLine) string {
	if len(b) == 0 {
		return ""
	}
	return b[0].String()
}

// writeLogsText writes the report as tab-aligned text.
func writeLogsText(w io.Writer, r *logsResult) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	st := r.Stats
	formats := make([]string, len(st.Formats))
	for i, f := range st.Formats {
		formats[i] = string(f)
	}
	fmt.Fprintf(tw, "log files\t%d (%s)\nlines\t%d\nlookups\t%d\nwith a datetime\t%d\ndistinct URI-Rs\t%d\n",
		st.Files, strings.Join(formats, ", "), st.Lines, st.Lookups, st.WithDatetime, r.DistinctURIRs)
	if st.Searched+st.FromCache > 0 {
		fmt.Fprintf(tw, "searched\t%d\nfrom the cache\t%d\n", st.Searched, st.FromCache)
	}
	fmt.Fprintf(tw, "other records\t%d\nblank lines\t%d\nrefused lookups\t%d\nbad lines\t%d\n", st.Other, st.Blank, st.Refused, st.Bad)
	for _, b := range st.BadLines {
		fmt.Fprintf(tw, "  %s\n", b)
	}
	if n := st.Bad + st.Refused - int64(len(st.BadLines)); n > 0 {
		fmt.Fprintf(tw, "  ... and %d more\n", n)
	}
	if len(st.Archives) > 0 {
		tw.Flush()
		tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "\nTable 3: what each archive answered\narchive\trequests\thits\tmisses\terrors\tskipped by map\tdormant\tput to sleep\n")
		pct := func(n, d int64) string {
			if d == 0 {
				return fmt.Sprint(n)
			}
			return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(d))
		}
		for _, a := range st.Archives {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\n", a.Archive, a.Requests, pct(a.Hits, a.Requests), pct(a.Misses, a.Requests),
				pct(a.Errors, a.Requests), pct(a.Skipped, a.Requests), pct(a.Dormant, a.Requests), a.Slept)
		}
	}
	if ov := r.Overlap; ov != nil {
		fmt.Fprintf(tw, "\nFigure 4: URI-Rs by mementos held (rows) and lookups (columns)\narchived URI-Rs\t%d\nrequested URI-Rs\t%d\nboth\t%d\nuncanonical lookups\t%d\n",
			ov.Archived, ov.Requested, ov.Both, ov.Uncanonical)
		tw.Flush()
		tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprint(tw, "mementos \\ lookups")
		for c := range ov.Cells[0] {
			fmt.Fprintf(tw, "\t%s", ov.Bins[c])
		}
		fmt.Fprintln(tw)
		for m, row := range ov.Cells {
			fmt.Fprint(tw, ov.Bins[m])
			for _, v := range row {
				if v < 0 {
					fmt.Fprint(tw, "\t?")
				} else {
					fmt.Fprintf(tw, "\t%d", v)
				}
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}
