package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

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

func TestHelpPrintsUsage(t *testing.T) {
	var errOut strings.Builder
	err := run(context.Background(), []string{"-h"}, strings.NewReader(""), io.Discard, &errOut)
	if !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
	if !strings.HasPrefix(errOut.String(), "usage: demo [flags]\n") || !strings.Contains(errOut.String(), "-rows") {
		t.Errorf("-h prints:\n%s", errOut.String())
	}
}
