package columnar

import (
	"bytes"
	"context"
	"io"
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
			}
		}
		got := map[key][2]int64{}
		sums := map[key][2]int64{}
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
		if diff := cmp.Diff(totals, sums); diff != "" {
			t.Errorf("monthly=%v totals (-n_total/s_total +row sums):\n%s", monthly, diff)
		}
		if int64(r.NumRows()) != w.Rows() {
			t.Errorf("%d rows in the file, %d written", r.NumRows(), w.Rows())
		}
	}
}
