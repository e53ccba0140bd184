package main

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDemoRoutingSavesWithFullRecall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	sum, err := demo(ctx, config{gen: 80, seed: 1, workers: 4, rows: 0}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Recall != 1 {
		t.Errorf("recall %.4f, want 1", sum.Recall)
	}
	if sum.Saved < 0.6 {
		t.Errorf("routing saved %.1f %% of upstream requests, want at least 60 %%", 100*sum.Saved)
	}
	if sum.Failures != 0 {
		t.Errorf("%d lookups failed", sum.Failures)
	}
	if sum.MementosAll != sum.MementosTruth || sum.MementosRouted != sum.MementosAll {
		t.Errorf("mementos: routed %d, all %d, indexes %d; want all equal", sum.MementosRouted, sum.MementosAll, sum.MementosTruth)
	}
	// every real index URI-R (about 90) plus the generated ones, and as many absent
	if sum.Held < 90 || sum.Absent != sum.Held {
		t.Errorf("held %d, absent %d", sum.Held, sum.Absent)
	}
	if sum.RequestsAll != 3*(sum.Held+sum.Absent) {
		t.Errorf("without routing %d upstream requests, want 3 per URI-R (%d)", sum.RequestsAll, 3*(sum.Held+sum.Absent))
	}
}

func TestRunPrintsTableAndTotals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	var out, errOut strings.Builder
	if err := run(ctx, []string{"-gen", "40", "-rows", "3"}, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	s := out.String()
	for _, re := range []string{
		`(?m)^id +name +URI-Rs`,
		`(?m)^1 +real +http://example\.com:80/ +ia,cc,wr +ia,cc,wr +0 +ia,cc,wr +8 +8 +200$`,
		`(?m)^\.\.\. +\(\d+ more rows`,
		`(?m)^recall of routing +1\.000$`,
		`(?m)^requests saved +\d+\.\d %$`,
		`(?m)^failed lookups +0$`,
	} {
		if !regexp.MustCompile(re).MatchString(s) {
			t.Errorf("output lacks %s:\n%s", re, s)
		}
	}
}

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"extra argument", []string{"x"}, "unexpected argument"},
		{"no workers", []string{"-workers", "0"}, "-workers"},
		{"unknown flag", []string{"-nope"}, "not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), tc.args, strings.NewReader(""), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
