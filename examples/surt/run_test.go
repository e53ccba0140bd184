package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/cli"
)

var update = flag.Bool("update", false, "rewrite testdata/urls.surt from the current output")

// TestRunGolden runs the README's demo command on the shipped URL list and
// compares with testdata/urls.surt (regenerate with -update).
func TestRunGolden(t *testing.T) {
	in, err := os.ReadFile("testdata/urls.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), nil, bytes.NewReader(in), &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	if *update {
		if err := os.WriteFile("testdata/urls.surt", out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/urls.surt")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), out.String()); d != "" {
		t.Errorf("output differs from testdata/urls.surt (-want +got):\n%s", d)
	}
	if n, m := strings.Count(string(in), "\n"), strings.Count(out.String(), "\n"); n != m {
		t.Errorf("%d input lines, %d output lines", n, m)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		in        string
		want      string
		wantErr   error
		errSubstr []string // each must appear in stderr
	}{
		{name: "default", in: "http://www.Example.com:80/a/?b=2&A=1\n", want: "com,example)/a?a=1&b=2\n"},
		{name: "crlf and no final newline", in: "http://a.com/x\r\nhttp://b.com/", want: "com,a)/x\ncom,b)/\n"},
		{name: "empty line gives the standard's dash", in: "\n", want: "-\n"},
		{name: "bad lines keep their place", in: "http://a.com/\n   \nhttp://x:abc/\nhttp://b.com/\n",
			want: "com,a)/\n\n\ncom,b)/\n", wantErr: errBadLines,
			errSubstr: []string{"line 2, byte 1: URL is empty", "line 3, byte 10: invalid port", "2 of 4"}},
		{name: "scheme and trailing comma", args: []string{"-scheme", "-trailing-comma"}, in: "https://www.example.com/\n", want: "https://(com,example,)/\n"},
		{name: "no host massage", args: []string{"-host-massage=false"}, in: "http://www.example.com/\n", want: "com,example,www)/\n"},
		{name: "no ip reversal", args: []string{"-reverse-ip=false"}, in: "http://192.168.1.254/info/\n", want: "192.168.1.254)/info\n"},
		{name: "query case kept", args: []string{"-query-lowercase=false"}, in: "http://example.com/foo?X=Y\n", want: "com,example)/foo?X=Y\n"},
		{name: "hxpx", args: []string{"-hxpx"}, in: "http://example.com/a?b=c\n", want: "com,example)/a\n"},
		{name: "fixed profile", args: []string{"-profile", "fixed"}, in: "cdn.example.com:443\n<http://example.com/>\n", want: "com,example,cdn:443)/\ncom,example)/\n"},
		{name: "default profile keeps the standard", in: "cdn.example.com:443\n", want: "cdn.example.com:443\n"},
		{name: "long line skipped", args: []string{"-max-line", "20"}, in: "http://example.com/" + strings.Repeat("a", 100) + "\nhttp://a.com/\n",
			want: "\ncom,a)/\n", wantErr: errBadLines, errSubstr: []string{"line 1: longer than 20 bytes"}},
		// Lines as real index files and requests hold them.
		{name: "control bytes and invalid UTF-8", in: "http://a.com/\x00x\x01?\xff\nhttp://b\xc3.com/\n", want: "com,a)/%00x%01?%ff\ncom,b)/\n"},
		{name: "lone CR line and CR inside", in: "\r\nhttp://a.c\rom/\r", want: "-\ncom,a)/\n"},
		{name: "bad port byte counted after leading space", in: "  http://x.com:9x/\n", want: "\n", wantErr: errBadLines, errSubstr: []string{"line 1, byte 14: invalid port"}},
		{name: "fixed scheme-relative", args: []string{"-profile", "fixed"}, in: "//example.com:8080/a\n", want: "com,example:8080)/a\n"},
		{name: "20 MiB line beyond -max-line", in: "http://a.com/\nhttp://b.com/" + strings.Repeat("x", 20<<20) + "\nhttp://c.com/",
			want: "com,a)/\n\ncom,c)/\n", wantErr: errBadLines, errSubstr: []string{"line 2: longer than 1048576 bytes", "1 of 3"}},
		{name: "line of exactly -max-line bytes", args: []string{"-max-line", "13"}, in: "http://a.com/\r\nhttp://ab.com/\n",
			want: "com,a)/\n\n", wantErr: errBadLines, errSubstr: []string{"line 2: longer than 13 bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tc.args, strings.NewReader(tc.in), &out, &errOut)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v (stderr %q)", err, tc.wantErr, errOut.String())
			}
			if d := cmp.Diff(tc.want, out.String()); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			for _, s := range tc.errSubstr {
				if !strings.Contains(errOut.String()+errString(err), s) {
					t.Errorf("stderr %q and error %v lack %q", errOut.String(), err, s)
				}
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"-profile", "nope"}, {"extra"}, {"-max-line", "0"}, {"-nosuchflag"}} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		var ue cli.Usage
		if !errors.As(err, &ue) {
			t.Errorf("args %q: err = %v, want a usage error", args, err)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	err := run(ctx, nil, strings.NewReader("http://a.com/\n"), &out, &errOut)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
