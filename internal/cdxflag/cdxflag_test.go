package cdxflag

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cli"
)

func TestAdd(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		dflt  bool // the defaults, with only ScopeHint set
		match cdxj.MatchType
		url   string
		rate  float64
		err   string
	}{
		{"none", nil, true, 0, "", 0, ""},
		{"domain", []string{"-domain", "*.example.org"}, false, cdxj.MatchDomain, "example.org", 1, ""},
		{"prefix", []string{"-url-prefix", "http://example.org/a/", "-cdx-rate", "0"}, false, cdxj.MatchPrefix, "http://example.org/a/", -1, ""},
		{"rate alone", []string{"-cdx-rate", "5"}, false, 0, "", 5, ""},
		{"both", []string{"-domain", "a.org", "-url-prefix", "b.org/"}, false, 0, "", 0, "give one of them"},
		{"flavour", []string{"-cdx-flavor", "gopher"}, false, 0, "", 0, "unknown CDX server flavour"},
		{"page size", []string{"-cdx-page-size", "-1"}, false, 0, "", 0, "-cdx-page-size"},
		{"timeout", []string{"-cdx-timeout", "0s"}, false, 0, "", 0, "-cdx-timeout 0s"},
		{"deadline", []string{"-cdx-deadline", "-1s"}, false, 0, "", 0, "-cdx-deadline -1s: want durations above 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			get := Add(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			o, err := get()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if code := cli.Status("x", err, io.Discard); code != 2 {
					t.Errorf("exit status %d for %v, want 2 (a usage error)", code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o == nil || o.ScopeHint != ScopeHint {
				t.Fatalf("options %+v, want ScopeHint %q", o, ScopeHint)
			}
			if tc.dflt && (o.Scope != nil || o.Flavor != cdxj.FlavorAuto || o.Rate != 0 || o.UserAgent != "" || o.PageSize != 0) {
				t.Errorf("options %+v, want the defaults", o)
			}
			if o.Rate != tc.rate {
				t.Errorf("rate %v, want %v", o.Rate, tc.rate)
			}
			if tc.url != "" && (o.Scope == nil || o.Scope.URL != tc.url || o.Scope.Match != tc.match) {
				t.Errorf("scope %+v", o.Scope)
			}
		})
	}
	// The waits: the library's defaults unless set, and as set.
	for _, tc := range []struct {
		args              []string
		timeout, deadline time.Duration
	}{
		{[]string{"-domain", "a.org"}, cdxj.DefaultTimeout, cdxj.DefaultDeadline},
		{[]string{"-cdx-timeout", "5s", "-cdx-deadline", "20s"}, 5 * time.Second, 20 * time.Second},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		get := Add(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		o, err := get()
		if err != nil {
			t.Fatal(err)
		}
		if o.Timeout != tc.timeout || o.Deadline != tc.deadline {
			t.Errorf("%q: timeout %v, deadline %v, want %v and %v", tc.args, o.Timeout, o.Deadline, tc.timeout, tc.deadline)
		}
	}
	if err := Check(&cdxj.ServerOptions{Scope: &cdxj.Request{URL: "a.org"}}, []string{"x.cdx"}); err == nil {
		t.Error("Check: a scope without a server input passes")
	} else if code := cli.Status("x", err, io.Discard); code != 2 {
		t.Errorf("Check: exit status %d for %v, want 2 (a usage error)", code, err)
	}
	if err := Check(&cdxj.ServerOptions{Scope: &cdxj.Request{URL: "a.org"}}, []string{"x.cdx", "HTTPS://cdx.example/x"}); err != nil {
		t.Error(err)
	}
}
