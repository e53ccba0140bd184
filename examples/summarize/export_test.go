package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/mementokit/mementokit/columnar"
	"github.com/mementokit/mementokit/internal/cli"
)

func TestExport(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "a.cdxj")
	os.WriteFile(idx, []byte(sampleCDXJ), 0o644)
	sum, _, err := runCmd(t, "-fullhost", idx)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "a.summary")
	os.WriteFile(in, []byte(sum), 0o644)
	out := filepath.Join(dir, "s.parquet")
	_, stderr, err := runCmd(t, "export", "-o", out, in)
	if err != nil || !strings.Contains(stderr, "wrote 2 rows") {
		t.Fatalf("err %v, stderr %q", err, stderr)
	}
	rows, err := parquet.ReadFile[columnar.SummaryRow](out)
	if err != nil {
		t.Fatal(err)
	}
	want := []columnar.SummaryRow{
		{SummaryFile: in, Key: "news.bbc.co.uk", Year: 2020, Category: "html", Captures: 1, Bytes: 100, NHTTPS: 1, SHTTPS: 100, NTotal: 1, STotal: 100},
		{SummaryFile: in, Key: "www.bbc.co.uk", Year: 2021, Category: "image", Captures: 1, Bytes: 10, NHTTP: 1, SHTTP: 10, NTotal: 1, STotal: 10},
	}
	if len(rows) != 2 || rows[0] != want[0] || rows[1] != want[1] {
		t.Errorf("rows = %+v, want %+v", rows, want)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".s.parquet.tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	// A bad summary line fails the export and leaves no output.
	bad := filepath.Join(dir, "bad.summary")
	os.WriteFile(bad, []byte("example.com {\"2020\": {\"n_html\": x}}\n"), 0o644)
	out2 := filepath.Join(dir, "bad.parquet")
	if _, _, err := runCmd(t, "export", "-o", out2, bad); err == nil || !strings.Contains(err.Error(), "bad.summary") {
		t.Errorf("bad summary: err = %v, want one naming bad.summary", err)
	}
	if _, err := os.Stat(out2); !errors.Is(err, os.ErrNotExist) {
		t.Error("output left after a failed export")
	}
	for _, args := range [][]string{{"export", in}, {"export", "-o", "-", in}, {"export", "-o", out}, {"export", "-o", in, in}} {
		var ue cli.Usage
		if _, _, err := runCmd(t, args...); !errors.As(err, &ue) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
}
