package main

import (
	"runtime/debug"
	"testing"

	"github.com/mementokit/mementokit/aggregator"
)

// TestMemoryLimit: the server sets the Go memory limit to 6 times the
// body memory budget plus 64 MiB (the default budget's 1.6 GB), none
// without a budget, and leaves it to GOMEMLIMIT when that is set; a
// server started with -body-memory 64MiB runs with 448 MiB and logs it.
func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		budget int64
		env    string
		want   int64
	}{
		{0, "", 6*aggregator.DefaultBodyMemory + 64<<20},
		{64 << 20, "", 448 << 20},
		{-1, "", 0},
		{64 << 20, "1GiB", 0},
		{64 << 20, "off", 0},
	} {
		if got := memoryLimit(tc.budget, tc.env); got != tc.want {
			t.Errorf("memoryLimit(%d, %q) = %d, want %d", tc.budget, tc.env, got, tc.want)
		}
	}
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	f := newFederation(t)
	in := start(t, "-archives", f.list, "-cache", "memory", "-workers", "0", "-body-memory", "64MiB", "-log-format", "json")
	if got := debug.SetMemoryLimit(-1); got != 448<<20 {
		t.Errorf("memory limit %d while serving, want %d", got, 448<<20)
	}
	if r := in.Stderr.records(t, "Go memory limit set from the body memory budget"); len(r) != 1 {
		t.Errorf("%d records of the memory limit, want 1:\n%s", len(r), in.Stderr.String())
	}
}
