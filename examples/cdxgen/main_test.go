package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		lines   int
		wantErr bool
	}{
		{"index", []string{"-n", "500", "-seed", "3"}, 500, false},
		{"lookups", []string{"-n", "500", "-lookups", "40", "-held", "0.5"}, 40, false},
		{"lookup SURTs", []string{"-n", "500", "-lookups", "10", "-surt"}, 10, false},
		{"bad share", []string{"-held", "2", "-lookups", "3"}, 0, true},
		{"extra argument", []string{"x"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got := strings.Count(out.String(), "\n"); got != tt.lines {
				t.Errorf("%d lines, want %d", got, tt.lines)
			}
		})
	}
}
