package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/bench/benchutil"
)

// TestMain lets the test binary play the measured child phases
// (benchutil.TestMain).
func TestMain(m *testing.M) { benchutil.TestMain(m, run) }

// TestSmallRun runs the whole benchmark on a tiny index (the 16 M-line run
// is never part of go test).
func TestSmallRun(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-n", "3000", "-dir", filepath.Join(t.TempDir(), "work")}, &out, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	for _, want := range []string{"| build | 3000 |", "| scan | 3000 |", "| convert | 3000 |", "| export | 3000 |", "| export-year | 3000 |", "| read | 3000 |", "| index.parquet |", "export CPU / build CPU", "writing Parquet"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
