package chart

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// A title naming several summaries is wider than a chart: it wraps at
// spaces onto two lines that each fit, losing no word; what does not fit
// in two lines ends in "…". (The title used to run off the right edge.)
func TestLongTitlesWrap(t *testing.T) {
	sty := style(bold, 15, ink)
	w := vg.Length(700)
	title := "Bytes per content type and year — openwayback_archive-org + cc_commoncrawl-org_from-cdxapi + ipwb_sample-1"
	lines := wrapText(sty, title, w, 2)
	if len(lines) != 2 || strings.Join(lines, " ") != title {
		t.Fatalf("wrapped into %q, want two lines that join back into the title", lines)
	}
	for _, l := range lines {
		if sty.Width(l) > w {
			t.Errorf("line %q is %v wide, more than %v", l, sty.Width(l), w)
		}
	}
	if got := wrapText(sty, "short title", w, 2); len(got) != 1 || got[0] != "short title" {
		t.Errorf("a short title: %q", got)
	}
	long := wrapText(sty, strings.Repeat(title+" ", 4), w, 2)
	if len(long) != 2 || !strings.HasSuffix(long[1], "…") || sty.Width(long[1]) > w {
		t.Errorf("a title too long for two lines: %q", long)
	}
	if one := wrapText(sty, strings.Repeat("x", 400), w, 2); len(one) != 1 || sty.Width(one[0]) > w {
		t.Errorf("one word wider than the chart: %q", one)
	}
}
