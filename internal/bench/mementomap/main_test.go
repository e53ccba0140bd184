package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/bench/benchutil"
)

// TestMain lets the test binary play the measured child phases
// (benchutil.TestMain).
func TestMain(m *testing.M) { benchutil.TestMain(m, run) }

// TestSmallRun runs the whole benchmark on a tiny index (the full 20 M-line
// run is never part of go test).
func TestSmallRun(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "out", "figure10.svg")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-n", "4000", "-lookups", "300", "-eval-lookups", "300", "-eval-held", "0.2",
		"-dir", filepath.Join(dir, "work"), "-o", filepath.Join(dir, "out")}, &out, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	for _, want := range []string{"| build |", "| compact |", "| lookup-surt |", "| open |", "## Table 9", "| 0.25 | 0.5 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("no SVG plot written (%v)", err)
	}
}
