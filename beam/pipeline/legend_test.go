package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPipelineHeadersAndLegends: plain files cut into 4 KiB parts whose
// header and legend lines lie anywhere (a CDXJ file's "!" header at its
// top or midway, a " CDX" legend line in a CDXJ file at its top or midway,
// a CDX file without a leading legend, with a blank line before it, or
// whose legend changes midway) give the map and the summary of the
// single-process build: each part is read with the legend in force where
// it starts (File.SetLegends, for every plain file cut into parts, CDXJ
// or CDX), header lines are passed over as a whole read passes them.
func TestPipelineHeadersAndLegends(t *testing.T) {
	lines := generatedLines(t, 3000, 4)
	n := len(lines)
	legend := " CDX N b a m s k r M S V g"
	cdxRows := strings.Split(strings.TrimSuffix(legendChanges(300), "\n"), "\n")
	variants := map[string]string{
		"cdxj top header":       "!OpenWayback-CDXJ 1.0\n" + strings.Join(lines, "\n") + "\n",
		"cdxj mid header":       strings.Join(lines[:n/2], "\n") + "\n!meta {\"x\": 1}\n" + strings.Join(lines[n/2:], "\n") + "\n",
		"cdxj mid legend":       strings.Join(lines[:n/2], "\n") + "\n" + legend + "\n" + strings.Join(lines[n/2:], "\n") + "\n",
		"cdxj top legend":       legend + "\n" + strings.Join(lines, "\n") + "\n",
		"cdx no top legend":     strings.Join(cdxRows[1:], "\n") + "\n",
		"cdx legend changes":    strings.Join(cdxRows, "\n") + "\n",
		"cdx blank then legend": "\n" + strings.Join(cdxRows, "\n") + "\n",
	}
	for name, text := range variants {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.cdx")
		os.WriteFile(in, []byte(text), 0o644)
		c := Config{Inputs: []string{in}, ShardBytes: 4 << 10, Build: BuildSpec{UpdatedAt: updatedAt}}
		wantMap, _, wantSum := reference(t, c.Inputs, c)
		c.MapOutput = filepath.Join(dir, "a.map")
		c.SummaryOutput = filepath.Join(dir, "a.summary")
		p, err := NewPlan(context.Background(), &c)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(p.Parts) < 10 {
			t.Fatalf("%s: %d parts of 4 KiB", name, len(p.Parts))
		}
		if _, err := Run(context.Background(), "prism", p); err != nil {
			t.Errorf("%s (%d parts): %v", name, len(p.Parts), err)
			continue
		}
		got, _ := os.ReadFile(c.MapOutput)
		if !bytes.Equal(got, wantMap) {
			t.Errorf("%s (%d parts): map differs\n%s", name, len(p.Parts), firstDiff(got, wantMap))
		}
		gs, _ := os.ReadFile(c.SummaryOutput)
		if !bytes.Equal(gs, wantSum) {
			t.Errorf("%s (%d parts): summary differs\n%s", name, len(p.Parts), firstDiff(gs, wantSum))
		}
	}
}
