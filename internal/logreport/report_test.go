package logreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/aggregator/accesslog"
	"github.com/mementokit/mementokit/internal/report"
)

func TestReport(t *testing.T) {
	st := &accesslog.Stats{Files: 1, Lines: 10, Lookups: 8, Archives: []accesslog.ArchiveCounts{
		{Archive: "ia", Requests: 4, Hits: 1, Misses: 2, Errors: 1},
		{Archive: "bl", Requests: 4, Skipped: 3, Dormant: 1, Slept: 1},
	}}
	ov := &accesslog.Overlap{Bins: []string{"Zero", "Ones", "Tens"}, Cells: [][]int64{{-1, 5, 1}, {7, 2, 0}}, Archived: 9, Requested: 8, Both: 2}
	pg, err := Report(Input{Stats: st, Overlap: ov, DistinctURIRs: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Sections) != 2 || len(pg.Sections[0].Charts) != 1 || len(pg.Sections[1].Charts) != 1 {
		t.Fatalf("sections %+v", pg.Sections)
	}
	a := pg.Sections[0].Charts[0]
	if a.Series[0].Values[0] != 0.25 || a.Series[3].Values[1] != 0.75 {
		t.Errorf("Table 3 chart %+v", a.Series)
	}
	f := pg.Sections[1].Charts[0]
	if strings.Join(f.Categories, "|") != "never asked|asked 1–9|asked 10–99" || f.Series[0].Name != "not archived" ||
		f.Series[1].Name != "mementos 1–9" || f.Series[0].Values[0] != 0 || f.Series[1].Values[0] != 7 {
		t.Errorf("Figure 4 chart %q %+v", f.Categories, f.Series)
	}
	tb := pg.Sections[1].Tables[0]
	if tb.Rows[0][1] != "" || tb.Rows[0][2] != "5" || tb.Rows[1][1] != "7" {
		t.Errorf("Figure 4 table %q", tb.Rows)
	}
	var out bytes.Buffer
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
	// Logs without outcomes and no index: one section that says so.
	pg, err = Report(Input{Stats: &accesslog.Stats{Lookups: 1}})
	if err != nil || len(pg.Sections) != 1 || !strings.Contains(pg.Sections[0].Text, "name no archive outcome") {
		t.Errorf("%v %+v", err, pg)
	}
	if _, err := Report(Input{}); err == nil {
		t.Error("no stats accepted")
	}
	if binLabel(4, "z", "asked") != "asked 1k–10k" {
		t.Error(binLabel(4, "z", "asked"))
	}
}
