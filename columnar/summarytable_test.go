package columnar

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/summary"
)

// sampleSummary summarizes the shipped index files (monthly or yearly).
func sampleSummary(t *testing.T, monthly bool) []byte {
	t.Helper()
	s := summary.New(&summary.Options{Monthly: monthly})
	for _, name := range sampledata.IndexFiles() {
		b, _ := sampledata.ReadFile(name)
		if err := s.ReadIndex(context.Background(), cdxj.NewStream(name, bytes.NewReader(b), nil), true); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if _, err := s.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestSummaryTableRoundTrip: every non-zero category counter of every
// summary line comes back as a row, the rows of a period sum to its
// n_total and s_total, and the month is NULL in a yearly summary.
func TestSummaryTableRoundTrip(t *testing.T) {
	for _, monthly := range []bool{false, true} {
		text := sampleSummary(t, monthly)
		var buf bytes.Buffer
		w := NewSummaryWriter(&buf, &Options{RowGroupRows: 7})
		if err := w.AddSummary(bytes.NewReader(text), "sample.summary"); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		type key struct {
			Key         string
			Year, Month int
			Category    string
		}
		want := map[key][2]int64{}
		totals := map[key][2]int64{}
		schemes := map[key][6]int64{} // the period columns
		lines, err := summary.ReadSummary(bytes.NewReader(text), "sample.summary")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			for _, p := range l.Periods {
				month := 0
				if monthly {
					month = int(p.Period) % 100
				}
				for c := summary.HTML; c <= summary.Other; c++ {
					n, s := p.Counters[summary.NHTML+int(c)], p.Counters[summary.SHTML+int(c)]
					if n != 0 || s != 0 {
						want[key{l.Key, p.Period.Year(), month, c.String()}] = [2]int64{n, s}
					}
				}
				totals[key{l.Key, p.Period.Year(), month, ""}] = [2]int64{p.Counters[summary.NTotal], p.Counters[summary.STotal]}
				schemes[key{l.Key, p.Period.Year(), month, ""}] = [6]int64{p.Counters[summary.NHTTP], p.Counters[summary.SHTTP],
					p.Counters[summary.NHTTPS], p.Counters[summary.SHTTPS], p.Counters[summary.NTotal], p.Counters[summary.STotal]}
			}
		}
		got := map[key][2]int64{}
		sums := map[key][2]int64{}
		var https int64
		r := parquet.NewGenericReader[SummaryRow](bytes.NewReader(buf.Bytes()))
		rows := make([]SummaryRow, 64)
		for {
			n, err := r.Read(rows)
			for _, row := range rows[:n] {
				if row.SummaryFile != "sample.summary" || (!monthly && row.Month != 0) {
					t.Errorf("row %+v", row)
				}
				got[key{row.Key, int(row.Year), int(row.Month), row.Category}] = [2]int64{row.Captures, row.Bytes}
				k := key{row.Key, int(row.Year), int(row.Month), ""}
				sums[k] = [2]int64{sums[k][0] + row.Captures, sums[k][1] + row.Bytes}
				if got, want := [6]int64{row.NHTTP, row.SHTTP, row.NHTTPS, row.SHTTPS, row.NTotal, row.STotal}, schemes[k]; got != want {
					t.Errorf("row %+v: period columns %v, want the summary's n_http s_http n_https s_https n_total s_total %v", row, got, want)
				}
				https += row.NHTTPS
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(want) == 0 {
			t.Fatal("the sample summary is empty")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("monthly=%v rows (-summary +table):\n%s", monthly, diff)
		}
		if https == 0 {
			t.Error("no https capture in the sample summary: the scheme columns go untested")
		}
		if diff := cmp.Diff(totals, sums); diff != "" {
			t.Errorf("monthly=%v totals (-n_total/s_total +row sums):\n%s", monthly, diff)
		}
		if int64(r.NumRows()) != w.Rows() {
			t.Errorf("%d rows in the file, %d written", r.NumRows(), w.Rows())
		}
	}
}

// A period with totals but no category counters (the original tool's count
// of a capture whose MIME type is not a string) keeps them in a row of
// category "".
func TestSummaryTableTotalsOnly(t *testing.T) {
	text := "example.com {\"2020\": {\"n_https\": 2, \"s_https\": 30, \"n_total\": 3, \"s_total\": 40}, \"2021\": {\"n_pdf\": 1, \"s_pdf\": 5, \"n_total\": 1, \"s_total\": 5}}\n"
	var buf bytes.Buffer
	w := NewSummaryWriter(&buf, nil)
	if err := w.AddSummary(strings.NewReader(text), "s"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[SummaryRow](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want := []SummaryRow{
		{SummaryFile: "s", Key: "example.com", Year: 2020, Category: "", NHTTPS: 2, SHTTPS: 30, NTotal: 3, STotal: 40},
		{SummaryFile: "s", Key: "example.com", Year: 2021, Category: "pdf", Captures: 1, Bytes: 5, NTotal: 1, STotal: 5},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
