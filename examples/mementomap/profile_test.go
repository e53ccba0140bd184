package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/mementomap"
)

// TestProfileAndCompactFit profiles an index, then compacts its map with
// the cutoffs fitted to the profile. At 20,000 lines the host fit is noise
// (k < 0): compact -fit refuses it (exit 1, naming the layer and k, no map
// written); with -fit-fallback the output is Compact's with the path fit
// and the paper's host a and k, and differs from the default cutoffs'.
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
	if f.Host.K >= 0 || f.Path.Check() != nil {
		t.Fatalf("fit of 20,000 cdxgen lines: host %+v path %+v, want a host k below 0 and a path fit that passes", f.Host, f.Path)
	}
	_, _, err = runCmd(t, "", "compact", "-q", "-fit", prof, base, fitted)
	var printed strings.Builder
	if cli.Status("mementomap", err, &printed) != 1 || !strings.HasPrefix(printed.String(), "mementomap: compact: -fit "+prof+": poor fit for compaction cutoffs: hosts: k = -") ||
		strings.Count(printed.String(), "mementomap:") != 1 || !strings.Contains(err.Error(), "-fit-fallback") {
		t.Errorf("compact -fit with a host k below 0: status %d, printed %q", cli.Status("mementomap", err, io.Discard), printed.String())
	}
	if _, err := os.Stat(fitted); err == nil {
		t.Error("compact -fit with a refused fit wrote a map")
	}
	_, errOut, err := runCmd(t, "", "compact", "-fit", prof, "-fit-fallback", base, fitted)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "host fit refused, the paper's host a and k taken") || strings.Contains(errOut, "path fit refused") {
		t.Errorf("compact -fit -fit-fallback: log %s", errOut)
	}
	bm, _ := os.ReadFile(base)
	o := mementomap.DefaultCompactOptions().WithFit(f)
	o.HostAlpha, o.HostK = mementomap.DefaultHostAlpha, mementomap.DefaultHostK
	var want, dflt bytes.Buffer
	if _, err := mementomap.Compact(&want, bytes.NewReader(bm), o); err != nil {
		t.Fatal(err)
	}
	if _, err := mementomap.Compact(&dflt, bytes.NewReader(bm), mementomap.DefaultCompactOptions()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fitted)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("compact -fit -fit-fallback wrote %d bytes, Compact with the path fit and the paper's host law %d", len(got), want.Len())
	}
	if bytes.Equal(got, dflt.Bytes()) {
		t.Errorf("compact -fit -fit-fallback wrote what the default cutoffs write (path fit %+v)", f.Path)
	}
	if _, _, err := runCmd(t, "", "compact", "-q", "-fit-fallback", base, filepath.Join(dir, "w.ukvs")); cli.Status("mementomap", err, io.Discard) != 2 {
		t.Errorf("-fit-fallback without -fit: status %d, err %v", cli.Status("mementomap", err, io.Discard), err)
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
	if err == nil || !strings.Contains(err.Error(), "dup.json") || !strings.Contains(err.Error(), "(P2).depth 2 listed twice") {
		t.Errorf("compact -fit with P2 twice: err %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("compact -fit with P2 twice wrote a map")
	}
}

// TestCompactFitRefusesPoorFits: the profile of 300,000 cdxgen lines
// (testdata, its README says how it was made) has a host fit of k −0.39,
// R² 0.42, which compact -fit refuses (exit 1) instead of compacting with
// cutoffs that grow with depth; a profile whose mean_children are all
// 1e300 is refused naming the field; with -fit-fallback the first compacts
// with the paper's host law and the path fit.
func TestCompactFitRefusesPoorFits(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join("testdata", "profile-cdxgen-300k.json")
	base := filepath.Join(dir, "base.ukvs")
	idx := filepath.Join(dir, "index.cdxj")
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 20000, Seed: 1}).Write(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(idx, b.Bytes(), 0o644)
	if _, errOut, err := runCmd(t, "", "build", "-q", "-o", base, idx); err != nil {
		t.Fatalf("build: %v\n%s", err, errOut)
	}
	out := filepath.Join(dir, "out.ukvs")
	_, _, err := runCmd(t, "", "compact", "-q", "-fit", prof, base, out)
	if cli.Status("mementomap", err, io.Discard) != 1 || !strings.Contains(err.Error(), ": poor fit for compaction cutoffs: hosts: k = -0.390 (R² 0.422)") ||
		strings.Contains(err.Error(), "paths:") || !strings.Contains(err.Error(), "300,000 index lines") {
		t.Errorf("compact -fit 300k profile: status %d, err %v", cli.Status("mementomap", err, io.Discard), err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused fit wrote a map")
	}
	pj, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(pj, &raw); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"host_depth", "path_depth"} {
		for _, r := range raw[l].([]any) {
			r.(map[string]any)["mean_children"] = 1e300
		}
	}
	huge := filepath.Join(dir, "huge.json")
	hj, _ := json.Marshal(raw)
	os.WriteFile(huge, hj, 0o644)
	for _, fb := range [][]string{nil, {"-fit-fallback"}} {
		args := append([]string{"compact", "-q", "-fit", huge}, fb...)
		_, _, err = runCmd(t, "", append(args, base, out)...)
		if cli.Status("mementomap", err, io.Discard) != 1 || !strings.Contains(err.Error(), "huge.json: mementomap: depth rows cannot be fitted: host_depth[0] (H1).mean_children 1e+300 is not prefixes.n ÷ parents (12 ÷ 1 = 12)") {
			t.Errorf("compact -fit, mean_children 1e300 %v: status %d, err %v", fb, cli.Status("mementomap", err, io.Discard), err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("mean_children 1e300 %v: a map was written", fb)
		}
	}
	if _, errOut, err := runCmd(t, "", "compact", "-fit", prof, "-fit-fallback", base, out); err != nil ||
		!strings.Contains(errOut, "host fit refused") || !strings.Contains(errOut, "host_a=16.329 host_k=0.714") || !strings.Contains(errOut, "path_a=18.97") {
		t.Errorf("compact -fit -fit-fallback: err %v, log %s", err, errOut)
	}
}

// TestCompactFitUnfittedLayer: a profile whose host layer has too few
// depths to fit (H1–H3, one depth from H3 on) still gives its path fit;
// compact -fit refuses the host layer naming the reason, and -fit-fallback
// takes the paper's host a and k with a warning and the fitted paths.
func TestCompactFitUnfittedLayer(t *testing.T) {
	dir := t.TempDir()
	pj, err := os.ReadFile(filepath.Join("testdata", "profile-cdxgen-300k.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(pj, &raw); err != nil {
		t.Fatal(err)
	}
	raw["host_depth"] = raw["host_depth"].([]any)[:3]
	prof := filepath.Join(dir, "few-hosts.json")
	hj, _ := json.Marshal(raw)
	if err := os.WriteFile(prof, hj, 0o644); err != nil {
		t.Fatal(err)
	}
	base, idx := filepath.Join(dir, "base.ukvs"), filepath.Join(dir, "index.cdxj")
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 5000, Seed: 1}).Write(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(idx, b.Bytes(), 0o644)
	if _, errOut, err := runCmd(t, "", "build", "-q", "-o", base, idx); err != nil {
		t.Fatalf("build: %v\n%s", err, errOut)
	}
	out := filepath.Join(dir, "out.ukvs")
	_, _, err = runCmd(t, "", "compact", "-q", "-fit", prof, base, out)
	if cli.Status("mementomap", err, io.Discard) != 1 || !strings.Contains(err.Error(), ": poor fit for compaction cutoffs: hosts: not fitted: too few depths to fit a power law: 1 depths between 3 and") ||
		strings.Contains(err.Error(), "paths:") {
		t.Errorf("compact -fit, one host depth: status %d, err %v", cli.Status("mementomap", err, io.Discard), err)
	}
	if _, errOut, err := runCmd(t, "", "compact", "-fit", prof, "-fit-fallback", base, out); err != nil ||
		!strings.Contains(errOut, "host fit refused") || !strings.Contains(errOut, "too few depths") ||
		!strings.Contains(errOut, "host_a=16.329 host_k=0.714") || !strings.Contains(errOut, "path_a=18.97") || strings.Contains(errOut, "path fit refused") {
		t.Errorf("compact -fit -fit-fallback, one host depth: err %v, log %s", err, errOut)
	}
}
