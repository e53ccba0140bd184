package profilereport

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/report"
	"github.com/mementokit/mementokit/mementomap"
)

func TestReport(t *testing.T) {
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 5000, Seed: 2}).Write(&b); err != nil {
		t.Fatal(err)
	}
	p, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("gen", &b, nil)}, &mementomap.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := Report(Input{Profile: p, TopTLDs: 3})
	if err != nil {
		t.Fatal(err)
	}
	charts, tables := 0, 0
	for _, s := range pg.Sections {
		charts += len(s.Charts)
		tables += len(s.Tables)
		for _, c := range s.Charts {
			if c.Title == "" || c.X.Label == "" || c.Y.Label == "" || len(c.Series) == 0 || len(c.Series) > 8 {
				t.Errorf("chart %s: title %q, axes %q %q, %d series", c.ID, c.Title, c.X.Label, c.Y.Label, len(c.Series))
			}
		}
	}
	wantTables := 8 // Tables 2, 1, 4, 5, 6, 7, 8 (hosts), 8 (paths)
	if p.Fit != nil {
		wantTables++ // and the fit
	}
	if charts != 12 || tables != wantTables {
		t.Errorf("%d charts and %d tables, want 12 and %d", charts, tables, wantTables)
	}
	// Table 1 holds the top 3 TLDs and says how many there are.
	tld := pg.Sections[0].Tables[1]
	if len(tld.Rows) != 3 || !strings.Contains(tld.Note, "3 with most URI-Rs") {
		t.Errorf("Table 1: %d rows, note %q", len(tld.Rows), tld.Note)
	}
	var out bytes.Buffer
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
	// An empty index gives a page whose sections say what was not drawn.
	e, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("empty", strings.NewReader(""), nil)}, &mementomap.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg, err = Report(Input{Profile: e})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pg.Sections[1].Text, "Not drawn, for want of data") {
		t.Errorf("empty profile, mementos section: %q", pg.Sections[1].Text)
	}
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
}
