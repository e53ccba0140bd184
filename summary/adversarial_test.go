package summary

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// truncatedGzip returns a gzip stream of text cut after half its bytes.
func truncatedGzip(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()[:b.Len()/2]
}

// Regression: a reader failing with io.ErrUnexpectedEOF (a truncated gzip
// member) made the compatibility reader loop for ever.
func TestCompatTruncatedGzipEnds(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 2000; i++ {
		text.WriteString("com,example)/ 20200101000000 {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"100\"}\n")
	}
	zr, err := gzip.NewReader(bytes.NewReader(truncatedGzip(t, text.String())))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	c := NewCompat(false, false, nil)
	go func() { done <- c.ReadFile("x.cdxj.gz", zr) }()
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("ReadFile error = %v, want io.ErrUnexpectedEOF", err)
		}
		if c.Stats().FailedFiles != 1 {
			t.Errorf("FailedFiles = %d, want 1", c.Stats().FailedFiles)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ReadFile did not return on a truncated gzip stream")
	}
}

// Regression: malformed counters were accepted (negative values, a period
// or counter given twice), and sums past int64 wrapped to negative values
// that Compact, Totals and Overlap then dropped silently.
func TestSummaryLineChecks(t *testing.T) {
	const max = `9223372036854775807`
	tests := []struct {
		name    string
		task    string // combine, totals, totals-noyear, overlap
		in      string
		wantErr string // "" for success; else a substring, after "in.sum:LINE: "
	}{
		{"negative counter", "combine", `a {"2020": {"n_total": -3}}` + "\n", `in.sum:1: counter n_total of period 2020 is negative`},
		{"period twice", "combine", `a {"2020": {"n_total": 1}, "2020": {"n_total": 2}}` + "\n", `in.sum:1: period 2020 given twice`},
		{"counter twice", "combine", `a {"2020": {"n_total": 1, "n_total": 5}}` + "\n", `in.sum:1: counter n_total given twice in period 2020`},
		{"combine overflow", "combine", `x {"2020": {"n_total": ` + max + `}}` + "\n" + `x {"2020": {"n_total": 1}}` + "\n", `in.sum:2: key "x" period 2020: summary: counter sum overflows int64`},
		{"combine max fits", "combine", `x {"2020": {"n_total": ` + max + `}}` + "\n" + `x {"2021": {"n_total": 1}}` + "\n", ""},
		{"totals noyear overflow", "totals-noyear", `x {"2020": {"n_total": ` + max + `}, "2021": {"n_total": 1}}` + "\n", `in.sum:1: key "x": summary: counter sum overflows int64`},
		{"overlap overflow", "overlap", `x {"2020": {"n_total": ` + max + `}}` + "\n" + `x {"2020": {"n_total": 1}}` + "\n", `in.sum:2: key "x" period 2020: summary: counter sum overflows int64`},
		{"overlap fine", "overlap", `x {"2020": {"n_total": 1}}` + "\n" + `x {"2020": {"n_total": 1}}` + "\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch tc.task {
			case "combine":
				err = NewCombiner(nil).AddSummary(strings.NewReader(tc.in), "in.sum")
			case "totals-noyear":
				err = WriteTotals(io.Discard, strings.NewReader(tc.in), "in.sum", &TotalsOptions{NoYear: true})
			case "overlap":
				_, err = Overlap([]string{"in.sum"}, []io.Reader{strings.NewReader(tc.in)}, nil)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Name != "in.sum" {
				t.Errorf("error %v is not a *ParseError naming in.sum", err)
			}
		})
	}
}

// Regression: a read error (a truncated .gz index) came back without the
// file name or position.
func TestReadErrorNamesInput(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 3000; i++ {
		text.WriteString("com,example)/ 20200101000000 {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"100\", \"filename\": \"IA-1.warc.gz\"}\n")
	}
	z := truncatedGzip(t, text.String())
	tests := []struct {
		name string
		read func(io.Reader) error
	}{
		{"summarizer", func(r io.Reader) error { return New(nil).ReadIndex(r, "idx.cdxj.gz", true) }},
		{"daily", func(r io.Reader) error { return NewDaily(nil).ReadIndex(r, "idx.cdxj.gz", true) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			zr, err := gzip.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.read(zr)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v, want io.ErrUnexpectedEOF", err)
			}
			if !strings.HasPrefix(err.Error(), "idx.cdxj.gz: after line ") {
				t.Errorf("error %q does not name the file and line", err)
			}
		})
	}
}
