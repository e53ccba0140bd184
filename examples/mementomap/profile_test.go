package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/mementomap"
)

// TestProfileAndCompactFit profiles an index, then compacts its map with
// the cutoffs fitted to the profile: the output is Compact's with
// WithFit of the same fit, and differs from the default cutoffs' output.
func TestProfileAndCompactFit(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 20000, Seed: 9}).Write(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(idx, b.Bytes(), 0o644)
	prof := filepath.Join(dir, "profile.json")
	base := filepath.Join(dir, "base.ukvs")
	fitted := filepath.Join(dir, "fitted.ukvs")
	for _, args := range [][]string{
		{"profile", "-q", "-o", prof, idx},
		{"build", "-q", "-o", base, idx},
		{"compact", "-q", "-fit", prof, base, fitted},
	} {
		if _, errOut, err := runCmd(t, "", args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
	}
	pj, _ := os.ReadFile(prof)
	var p mementomap.ArchiveProfile
	if err := json.Unmarshal(pj, &p); err != nil {
		t.Fatal(err)
	}
	if p.Index.Lines != 20000 || p.Index.URIMs != 20000 || p.Fit == nil || p.Compaction == nil {
		t.Fatalf("profile: index %+v, fit %v, compaction %v", p.Index, p.Fit, p.Compaction)
	}
	f, err := mementomap.FitCutoffs(&p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Host.A != p.Fit.Host.A || f.Path.K != p.Fit.Path.K {
		t.Errorf("the profile's fit %+v differs from FitCutoffs of it %+v", p.Fit, f)
	}
	bm, _ := os.ReadFile(base)
	var want, dflt bytes.Buffer
	if _, err := mementomap.Compact(&want, bytes.NewReader(bm), mementomap.DefaultCompactOptions().WithFit(f)); err != nil {
		t.Fatal(err)
	}
	if _, err := mementomap.Compact(&dflt, bytes.NewReader(bm), mementomap.DefaultCompactOptions()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fitted)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("compact -fit wrote %d bytes, Compact with the fit %d", len(got), want.Len())
	}
	if bytes.Equal(got, dflt.Bytes()) {
		t.Errorf("compact -fit wrote what the default cutoffs write (fit %+v %+v)", f.Host, f.Path)
	}
	// -fit and an explicit power law contradict each other.
	_, _, err = runCmd(t, "", "compact", "-q", "-fit", prof, "-hk", "1", base, filepath.Join(dir, "x.ukvs"))
	if err == nil || !strings.Contains(err.Error(), "-fit and -hk") {
		t.Errorf("compact -fit -hk: err %v", err)
	}
	// A file that is no profile is refused by name.
	_, _, err = runCmd(t, "", "compact", "-q", "-fit", base, base, filepath.Join(dir, "y.ukvs"))
	if err == nil || !strings.Contains(err.Error(), "base.ukvs") {
		t.Errorf("compact -fit MAP: err %v", err)
	}
	// A profile with a path depth listed twice is refused, naming file
	// and depth, and no map is written.
	p.PathDepth = append(p.PathDepth, p.PathDepth[2])
	pj, _ = json.Marshal(&p)
	dup := filepath.Join(dir, "dup.json")
	os.WriteFile(dup, pj, 0o644)
	out := filepath.Join(dir, "z.ukvs")
	_, _, err = runCmd(t, "", "compact", "-q", "-fit", dup, base, out)
	if err == nil || !strings.Contains(err.Error(), "dup.json") || !strings.Contains(err.Error(), "depth 2 listed twice") {
		t.Errorf("compact -fit with P2 twice: err %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("compact -fit with P2 twice wrote a map")
	}
}
