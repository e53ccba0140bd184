package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/columnar"
	"github.com/mementokit/mementokit/internal/cli"
)

func TestParquetOutput(t *testing.T) {
	dir := t.TempDir()
	cc := sample(t, dir, "cc_commoncrawl-org_from-cdxapi.cdxj")
	ia := sample(t, dir, "openwayback_archive-org.cdx")
	tests := []struct {
		name  string
		args  []string
		out   string
		files int
		org   string
		rows  int
		note  string
	}{
		{"by extension", []string{"-o", filepath.Join(dir, "a.parquet"), cc, ia}, "a.parquet", 1, "CC", 34 + 2144, "(1 Parquet file, "},
		{"-format", []string{"-format", "parquet", "-o", filepath.Join(dir, "b.pq"), cc, ia}, "b.pq", 1, "CC", 34 + 2144, "(1 Parquet file, "},
		{"by year", []string{"-partition", "year", "-o", filepath.Join(dir, "years"), cc, ia}, "years", 5, "CC", 34 + 2144, "(5 Parquet files, "}, // 2012-2014, 2017, 2025
		{"org regexp", []string{"-org-regexp", `^CC-(MAIN)-`, "-o", filepath.Join(dir, "c.parquet"), cc}, "c.parquet", 1, "MAIN", 34, "wrote 34 rows to "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runCmd(t, "", tt.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			files, err := columnar.Files(filepath.Join(dir, tt.out))
			if err != nil || len(files) != tt.files {
				t.Fatalf("%d files (%v), want %d", len(files), err, tt.files)
			}
			n := 0
			for r, err := range columnar.ReadRows(filepath.Join(dir, tt.out)) {
				if err != nil {
					t.Fatal(err)
				}
				if r.InputFile == cc && r.InputLine == 1 && r.Organization != tt.org {
					t.Errorf("organization %q, want %q", r.Organization, tt.org)
				}
				n++
			}
			if want := tt.rows; n != want || !strings.Contains(stderr, tt.note) {
				t.Errorf("%d rows, want %d; stderr %q", n, tt.rows, stderr)
			}
		})
	}
}

func TestParquetUsage(t *testing.T) {
	dir := t.TempDir()
	in := sample(t, dir, "cdxjindexer_post-append.cdxj")
	for _, args := range [][]string{
		{"-format", "parquet", in},
		{"-format", "parquet", "-o", "-", in},
		{"-sort", "-o", filepath.Join(dir, "x.parquet"), in},
		{"-partition", "month", "-o", filepath.Join(dir, "y"), in},
		{"-format", "orc", "-o", filepath.Join(dir, "z"), in},
		{"-org-regexp", "(", "-o", filepath.Join(dir, "w.parquet"), in},
		{"-org-regexp", "a", in},
		{"-o", in + ".parquet", "-row-group", "0", in},
	} {
		_, _, err := runCmd(t, "", args...)
		var ue cli.Usage
		if !errors.As(err, &ue) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	// A bad line stops the export with its place, and leaves no output.
	bad := filepath.Join(dir, "bad.cdxj")
	os.WriteFile(bad, []byte("com,a)/ 20200101000000 {\"url\": \"http://a/\"}\ncom,a)/ 20200101000000 {\"url\"=1}\n"), 0o644)
	out := filepath.Join(dir, "bad.parquet")
	// It reads as on the CDXJ path: "FILE:LINE:COLUMN: cause", the file named once.
	_, _, plain := runCmd(t, "", "-o", filepath.Join(dir, "bad.out.cdxj"), bad)
	_, _, err := runCmd(t, "", "-o", out, bad)
	if want := bad + ":2:30: "; plain == nil || err == nil || !strings.HasPrefix(err.Error(), want) || err.Error() != plain.Error() {
		t.Errorf("err = %v, want the CDXJ path's %v, starting %q", err, plain, want)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output exists after a failed export")
	}
	if _, stderr, err := runCmd(t, "", "-skip-bad", "-o", out, bad); err != nil || !strings.Contains(stderr, "skipped 1 bad line\n") {
		t.Errorf("-skip-bad: err %v, stderr %q", err, stderr)
	}
}
