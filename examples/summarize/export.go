package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mementokit/mementokit/columnar"
	"github.com/mementokit/mementokit/internal/cli"
)

// export writes summaries as one Parquet summary table (package columnar):
// one row per summary file, key, period and MIME category. The table goes
// to a temporary file beside OUT, renamed onto it when complete.
func (e *env) export(args []string) error {
	fs := e.newFlags("export", "One row per summary file, key, year (and month), MIME category: captures and bytes, with the period's n_http, s_http, n_https, s_https, n_total and s_total.")
	out := fs.String("o", "", "the Parquet file to write")
	rowGroup := fs.Int("row-group", columnar.DefaultRowGroupRows, "rows per row group")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *out == "" || *out == "-" {
		return cli.Usagef("export needs -o OUT.parquet")
	}
	if *rowGroup < 1 {
		return cli.Usagef("-row-group must be positive")
	}
	for _, in := range files {
		if a, err1 := os.Stat(in); err1 == nil {
			if b, err2 := os.Stat(*out); err2 == nil && os.SameFile(a, b) {
				return cli.Usagef("-o %s is also an input", *out)
			}
		}
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(*out); err == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := columnar.NewSummaryWriter(f, &columnar.Options{RowGroupRows: *rowGroup})
	if err := e.eachFile(files, func(name string, r io.Reader) error { return w.AddSummary(r, name) }); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), *out); err != nil {
		return err
	}
	done = true
	fmt.Fprintf(e.stderr, "summarize export: wrote %d rows from %d summaries to %s\n", w.Rows(), len(files), *out)
	return nil
}
