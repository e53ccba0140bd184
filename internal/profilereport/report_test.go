package profilereport

import (
	"bytes"
	"context"
	"math"
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

// The mean-children chart draws both reference cutoffs of Table 8, host and
// path, and the written page names both.
func TestMeanChildrenReferences(t *testing.T) {
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 5000, Seed: 2}).Write(&b); err != nil {
		t.Fatal(err)
	}
	p, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("gen", &b, nil)}, &mementomap.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := MeanChildrenChart(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]func(x float64) float64{
		"hosts, reference 16.33·(i+1)^−0.71": func(x float64) float64 { return 16.329 * math.Pow(x+1, -0.714) },
		"paths, reference 24.55·(i+1)^−1.43": func(x float64) float64 { return 24.546 * math.Pow(x+1, -1.429) },
	}
	for _, s := range c.Series {
		f, ok := want[s.Name]
		if !ok {
			continue
		}
		delete(want, s.Name)
		if len(s.Points) == 0 {
			t.Errorf("%s: no points", s.Name)
		}
		for _, q := range s.Points {
			if math.Abs(q.Y-f(q.X)) > 1e-9 {
				t.Errorf("%s at %v: %v, want %v", s.Name, q.X, q.Y, f(q.X))
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("series missing: %v", want)
	}
	pg, err := Report(Input{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hosts, reference 16.33·(i+1)^−0.71", "paths, reference 24.55·(i+1)^−1.43"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("page does not name %q", name)
		}
	}
}
