package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
)

// TestStatsAndLookupTimeKeys runs stats on the paper's Figure 2 map (its
// total is its "*" line, not the sum 67221~ of every line) and stats and
// lookup on a map with a datetime key column.
func TestStatsAndLookupTimeKeys(t *testing.T) {
	dir := t.TempDir()
	fig2 := filepath.Join(dir, "figure2.ukvs")
	os.WriteFile(fig2, []byte(`!context ["http://oduwsdl.github.io/contexts/ukvs"]
!id {uri: "http://archive.example.org/"}
!fields {keys: ["surt"], values: ["frequency"]}
!meta {type: "MementoMap", name: "A Test Web Archive", year: 1996}
!meta {updated_at: "2018-09-03T13:27:52Z"}
* 54321/20000
com,* 10000+
org,arxiv)/ 100
org,arxiv)/* 2500~/900
org,arxiv)/pdf/* 0
uk,co,bbc)/images/* 300+/20-
`), 0o644)
	out, _, err := runCmd(t, "", "stats", fig2)
	if err != nil || !strings.Contains(out, "\ntotal\t54321/20000\n") || !strings.Contains(out, "under a wildcard\t5\n") {
		t.Errorf("stats of Figure 2 = %q, %v", out, err)
	}
	dt := filepath.Join(dir, "datetime.ukvs")
	os.WriteFile(dt, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
com,twitter)/* 2015 60+/30+
com,twitter)/* : 100/35
`), 0o644)
	out, _, err = runCmd(t, "", "stats", dt)
	if err != nil || !strings.Contains(out, "data lines\t3\ntime key\tdatetime\nkeys\t1\n") || !strings.Contains(out, "\ntotal\t100/35\n") {
		t.Errorf("stats of a datetime map = %q, %v", out, err)
	}
	out, _, err = runCmd(t, "", "lookup", "-at", "2014", dt, "http://twitter.com/a")
	if want := "http://twitter.com/a 2014\tcom,twitter)/*\t2014\t20~/10\n"; err != nil || out != want {
		t.Errorf("lookup -at = %q, %v; want %q", out, err, want)
	}
	// An RFC 3339 instant is read as -updated-at and eval -now read one:
	// its timestamp in UTC.
	out, _, err = runCmd(t, "", "lookup", "-at", "2015-06-01T01:30:00+02:00", dt, "http://twitter.com/a")
	if want := "http://twitter.com/a 20150531233000\tcom,twitter)/*\t2015\t60+/30+\n"; err != nil || out != want {
		t.Errorf("lookup -at RFC 3339 = %q, %v; want %q", out, err, want)
	}
	out, _, err = runCmd(t, "http://twitter.com/a\nhttp://twitter.com/b 20150601\n", "lookup", dt)
	if want := "http://twitter.com/a\tcom,twitter)/*\t:\t100/35\nhttp://twitter.com/b 20150601\tcom,twitter)/*\t2015\t60+/30+\n"; err != nil || out != want {
		t.Errorf("lookup from stdin = %q, %v; want %q", out, err, want)
	}
	// A map without a datetime key column checks a datetime and answers
	// as without it: a second field never makes a held URI a miss.
	out, _, err = runCmd(t, "", "lookup", "-at", "2014", fig2, "http://arxiv.org/")
	if want := "http://arxiv.org/ 2014\torg,arxiv)/\t100\n"; err != nil || out != want {
		t.Errorf("lookup -at 2014 in a map without a datetime key column = %q, %v; want %q", out, err, want)
	}
	out, _, err = runCmd(t, "http://arxiv.org/ 20150101000000\n", "lookup", fig2)
	if want := "http://arxiv.org/ 20150101000000\torg,arxiv)/\t100\n"; err != nil || out != want {
		t.Errorf("lookup of \"URI DATETIME\" in a map without a datetime key column = %q, %v; want %q", out, err, want)
	}
	_, _, err = runCmd(t, "http://arxiv.org/\nhttp://arxiv.org/ extra\n", "lookup", fig2)
	if cli.Status("mementomap", err, io.Discard) != 1 || !strings.Contains(fmt.Sprint(err), "line 2") || !strings.Contains(fmt.Sprint(err), "extra") {
		t.Errorf("lookup of \"URI extra\" = %v (exit %d); want exit 1 naming line 2 and its field", err, cli.Status("mementomap", err, io.Discard))
	}
	if _, _, err := runCmd(t, "", "lookup", "-at", "soon", fig2, "http://arxiv.org/"); cli.Status("mementomap", err, io.Discard) != 2 {
		t.Errorf("lookup -at soon = %v (exit %d); want exit 2", err, cli.Status("mementomap", err, io.Discard))
	}
}

// TestEvalObservedExpired evaluates an observed map: an expired negative
// for a URI-R the index holds is asked for (as the aggregator routes), so
// it is no false negative, while a trusted one is.
func TestEvalObservedExpired(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx.cdxj")
	os.WriteFile(idx, []byte(`com,example)/b 20240102000000 {"url": "http://example.com/b", "mime": "text/html", "status": "200"}
`), 0o644)
	om := filepath.Join(dir, "observed.ukvs")
	os.WriteFile(om, []byte(`!fields {"keys": ["surt", "observed"], "values": ["frequency"]}
!meta {"type": "MementoMap", "negatives_max_age": "48h"}
* - /
com,example)/b 20240101000000 0
com,example)/c 20240101000000 0
`), 0o644)
	lk := filepath.Join(dir, "lookups.txt")
	os.WriteFile(lk, []byte("http://example.com/b\nhttp://example.com/c\n"), 0o644)
	out, errOut, err := runCmd(t, "", "eval", "-q", "-now", "20240104000000", "-lookups", lk, om, idx)
	for _, want := range []string{"expired negatives\t2\n", "max age\t48h0m0s\n", "held\t1\n", "precision\t0.5000\n", "recall\t1.0000\n"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("eval after expiry: %v; output %q lacks %q\n%s", err, out, want, errOut)
		}
	}
	out, _, err = runCmd(t, "", "eval", "-q", "-now", "2024-01-02T00:00:00Z", "-lookups", lk, om, idx)
	if err == nil || !strings.Contains(out, "expired negatives\t0\n") || !strings.Contains(out, "recall\t0.0000\n") {
		t.Errorf("eval with trusted negatives: %v, %q; want a false negative", err, out)
	}
	if _, _, err := runCmd(t, "", "eval", "-q", "-now", "soon", "-lookups", lk, om, idx); err == nil || !strings.Contains(err.Error(), "-now") {
		t.Errorf("eval -now soon: %v", err)
	}
}

// TestLookupBadDatetimeArgument looks a URI up in a datetime map with a
// datetime that is none: an error naming the argument, exit status 2, and
// no answer line (not a miss).
func TestLookupBadDatetimeArgument(t *testing.T) {
	dt := filepath.Join(t.TempDir(), "datetime.ukvs")
	os.WriteFile(dt, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
`), 0o644)
	for _, args := range [][]string{
		{"lookup", dt, "http://twitter.com/a 2014x3"},
		{"lookup", "-at", "2014x3", dt, "http://twitter.com/a"},
	} {
		out, _, err := runCmd(t, "", args...)
		var stderr strings.Builder
		if code := cli.Status("mementomap", err, &stderr); code != 2 || !strings.Contains(stderr.String(), `"2014x3"`) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 naming the datetime and no output", args, code, stderr.String(), out)
		}
	}
}

// TestCommandLineDatetimesOneRule: every datetime given on mementomap's
// command line, lookup's -at and "URI DATETIME" arguments, eval -now and
// build -updated-at, is read by one rule (flagvalue.ParseSpan, ParseTime):
// an RFC 3339 instant looks up as its timestamp digits, a range may be of
// RFC 3339 instants, and a value that is no datetime is refused with the
// one message, the same in every place, naming the value, exit status 2.
func TestCommandLineDatetimesOneRule(t *testing.T) {
	dir := t.TempDir()
	dt := filepath.Join(dir, "datetime.ukvs")
	os.WriteFile(dt, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
com,twitter)/* 2015 60+/30+
`), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"lookup", dt, "http://twitter.com/a 2015-06-01T01:30:00+02:00"}, "http://twitter.com/a 20150531233000\tcom,twitter)/*\t2015\t60+/30+\n"},
		{[]string{"lookup", dt, "http://twitter.com/a 20150531233000"}, "http://twitter.com/a 20150531233000\tcom,twitter)/*\t2015\t60+/30+\n"},
		{[]string{"lookup", dt, "http://twitter.com/a\t2014-12-31T23:00:00-01:00"}, "http://twitter.com/a 20150101000000\tcom,twitter)/*\t2015\t60+/30+\n"},
		{[]string{"lookup", dt, "http://twitter.com/a 2014-03-01T00:00:00Z:2014-04-01T00:00:00Z"}, "http://twitter.com/a 20140301000000:20140401000000\tcom,twitter)/*\t2014\t20~/10\n"},
		{[]string{"lookup", "-at", "2014-03-01T00:00:00Z:2014-04-01T00:00:00Z", dt, "http://twitter.com/a"}, "http://twitter.com/a 20140301000000:20140401000000\tcom,twitter)/*\t2014\t20~/10\n"},
	} {
		out, errOut, err := runCmd(t, "", tt.args...)
		if err != nil || out != tt.want {
			t.Errorf("%q = %q, %v %s; want %q", tt.args, out, err, errOut, tt.want)
		}
	}
	// Standard input lines: the same rule; a datetime that is none is
	// passed on and refused by the lookup, naming the line.
	stdin := "http://twitter.com/a 2015-06-01T01:30:00+02:00\r\n# a comment 2015-06-01T00:00:00Z\nhttp://twitter.com/b\t2014-03-01T00:00:00Z:2014-04-01T00:00:00Z\nhttp://twitter.com/c 20150601\nhttp://twitter.com/d 2015-13-01T00:00:00Z\n"
	out, _, err := runCmd(t, stdin, "lookup", dt)
	if want := "http://twitter.com/a 20150531233000\tcom,twitter)/*\t2015\t60+/30+\n# a comment 2015-06-01T00:00:00Z\n" +
		"http://twitter.com/b 20140301000000:20140401000000\tcom,twitter)/*\t2014\t20~/10\nhttp://twitter.com/c 20150601\tcom,twitter)/*\t2015\t60+/30+\n" +
		"http://twitter.com/d 2015-13-01T00:00:00Z\t-\t-\t-\n"; out != want || !strings.Contains(fmt.Sprint(err), "line 5") {
		t.Errorf("lookup from stdin = %q, %v;\nwant %q and an error naming line 5", out, err, want)
	}
	idx := filepath.Join(dir, "idx.cdxj")
	os.WriteFile(idx, []byte(`com,twitter)/a 20140102000000 {"url": "http://twitter.com/a", "mime": "text/html", "status": "200"}
`), 0o644)
	lk := filepath.Join(dir, "lookups.txt")
	os.WriteFile(lk, []byte("http://twitter.com/a\n"), 0o644)
	for _, bad := range []string{"2014x3", "20141301", "2015-03-14", "2015-03-14T25:00:00Z"} {
		_, want := flagvalue.ParseTime(bad)
		if want == nil {
			t.Fatalf("flagvalue.ParseTime(%q) took it", bad)
		}
		msg := want.Error()
		span := strings.Replace(msg, flagvalue.DatetimeRule, flagvalue.SpanRule, 1)
		for _, c := range []struct {
			args []string
			msg  string
		}{
			{[]string{"lookup", dt, "http://twitter.com/a " + bad}, span},
			{[]string{"lookup", "-at", bad, dt, "http://twitter.com/a"}, span},
			{[]string{"eval", "-q", "-now", bad, "-lookups", lk, dt, idx}, msg},
			{[]string{"build", "-q", "-updated-at", bad, "-o", filepath.Join(dir, "x.ukvs"), idx}, msg},
		} {
			out, _, err := runCmd(t, "", c.args...)
			if err == nil || !strings.HasSuffix(err.Error(), ": "+c.msg) || !errors.Is(err, flagvalue.ErrDatetime) || out != "" || cli.Status("mementomap", err, io.Discard) != 2 {
				t.Errorf("%q: %v (exit %d), stdout %q;\nwant exit 2 and an error ending in %s", c.args, err, cli.Status("mementomap", err, io.Discard), out, c.msg)
			}
		}
	}
}

// TestLookupStdinDatetimeOneMessage: a standard input line whose DATETIME
// is none is printed as "-" and the command fails (exit 1) naming the line
// with the one rule's message (flagvalue.ParseSpan's, as for -at and an
// argument), not the library's, for a datetime of digits too, on a line
// longer than 64 KiB too; a line before it that cannot be looked up for
// another cause is the one named, with its own cause.
func TestLookupStdinDatetimeOneMessage(t *testing.T) {
	dir := t.TempDir()
	dt := filepath.Join(dir, "datetime.ukvs")
	os.WriteFile(dt, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
`), 0o644)
	long := "http://twitter.com/" + strings.Repeat("a", 70<<10)
	for _, c := range []struct{ uri, bad string }{
		{"http://twitter.com/a", "2014x3"},
		{"http://twitter.com/a", "20141301"},
		{"http://twitter.com/a", "2015-03-14T25:00:00Z"},
		{"http://twitter.com/a", "2016:2014"},
		{long, "2015-03-14"},
	} {
		_, want := flagvalue.ParseSpan(c.bad)
		if want == nil {
			t.Fatalf("flagvalue.ParseSpan(%q) took it", c.bad)
		}
		stdin := "http://twitter.com/b 2014\n" + c.uri + " " + c.bad + "\n"
		out, _, err := runCmd(t, stdin, "lookup", dt)
		wantOut := "http://twitter.com/b 2014\tcom,twitter)/*\t2014\t20~/10\n" + c.uri + " " + c.bad + "\t-\t-\t-\n"
		if err == nil || !strings.HasSuffix(err.Error(), " line 2 "+strconv.Quote(trunc(c.uri+" "+c.bad))+": "+want.Error()) || !errors.Is(err, flagvalue.ErrDatetime) ||
			strings.Contains(err.Error(), mementomap.ErrDatetime.Error()) || out != wantOut || cli.Status("mementomap", err, io.Discard) != 1 {
			t.Errorf("%.40q: %.400v (exit %d), stdout %.100q;\nwant exit 1 and an error naming line 2 ending in %s", c.bad, err, cli.Status("mementomap", err, io.Discard), out, want)
		}
	}
	// A line before that cannot be canonicalized: its cause is named.
	out, _, err := runCmd(t, "http://example.com:99999/ 2014\nhttp://twitter.com/a 2014x3\n", "lookup", dt)
	if err == nil || !strings.Contains(err.Error(), `2 of 2 inputs`) || !strings.Contains(err.Error(), `line 1 "http://example.com:99999/ 2014"`) || errors.Is(err, flagvalue.ErrDatetime) || strings.Count(out, "\t-\t-\t-\n") != 2 {
		t.Errorf("%v, stdout %q; want both lines printed as - and an error naming line 1", err, out)
	}
}

// trunc cuts s to the 200 bytes an error quotes of an input line.
func trunc(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestLookupUnreadableInput: an input that cannot be canonicalized prints
// "-" like a miss, and the command then fails (exit 1) naming it, so that
// it is not taken for an archive's "absent".
func TestLookupUnreadableInput(t *testing.T) {
	m := filepath.Join(t.TempDir(), "plain.ukvs")
	if err := os.WriteFile(m, []byte("com,twitter)/a 1/1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "lookup", m, "http://twitter.com/a", "http://example.com:99999/")
	var stderr strings.Builder
	code := cli.Status("mementomap", err, &stderr)
	if want := "http://twitter.com/a\tcom,twitter)/a\t1/1\nhttp://example.com:99999/\t-\t-\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if code != 1 || !strings.Contains(stderr.String(), `1 of 2 inputs could not be looked up`) || !strings.Contains(stderr.String(), `line 2 "http://example.com:99999/"`) {
		t.Errorf("exit %d, stderr %q; want exit 1 naming line 2", code, stderr.String())
	}
}

// TestBadLinesOneRule feeds check, stats and lookup the same bad map lines
// (a line without its frequency, a datetime map whose lines lack the
// column its !fields declares, a bad datetime, an extra column that is no
// JSON block, a NUL byte in a frequency). The three read one rule
// (ukvs.CheckLine): check fails naming the line, stats counts the line as
// bad naming file and line, and lookup, which checks the whole map by
// check's rule first (mementomap.Map.Check), answers nothing and fails
// with check's error. A library lookup that ends on the line is no hit but
// an error naming the file and the line (ErrBadLine).
func TestBadLinesOneRule(t *testing.T) {
	const dtFields = `!fields {keys: ["surt", "datetime"], values: ["frequency"]}` + "\n"
	tests := []struct {
		name, content, key, line, cause string
	}{
		{"no frequency", "com,a)/ 1/1\ncom,b)/\ncom,c)/ 2/1\n", "com,b)/", "line 2", "wrong number of columns"},
		{"lying !fields", dtFields + "com,a)/ 2010 1/1\ncom,b)/ 3/1\ncom,c)/ 2010 2/1\n", "com,b)/", "line 3", "wrong number of columns"},
		{"bad datetime", dtFields + "com,a)/ 2010 1/1\ncom,b)/ 201x 3/1\ncom,c)/ 2010 2/1\n", "com,b)/", "line 3, column 9", "invalid datetime"},
		{"extra column", "com,a)/ 1/1\ncom,b)/ 3/1 extra\ncom,c)/ 2/1\n", "com,b)/", "line 2, column 13", "wrong number of columns"},
		{"extra column, datetime map", dtFields + "com,a)/ 2010 1/1\ncom,b)/ 2010 3/1 x\ncom,c)/ 2010 2/1\n", "com,b)/", "line 3, column 18", "wrong number of columns"},
		{"NUL in a frequency", "com,a)/ 1/1\ncom,b)/ 3\x001\ncom,c)/ 2/1\n", "com,b)/", "line 2, column 9", "invalid frequency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "map.ukvs")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			where := p + ": ukvs: " + tt.line + ": "
			_, _, err := runCmd(t, "", "check", p)
			if err == nil || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), tt.cause) {
				t.Errorf("check: %v; want an error naming %q (%s)", err, where, tt.cause)
			}
			out, stderr, err := runCmd(t, "", "stats", p)
			if err != nil || !strings.Contains(out, "\ndata lines\t2\n") || !strings.Contains(out, "\nbad lines skipped\t1\n") ||
				!strings.Contains(stderr, where) || !strings.Contains(stderr, tt.cause) {
				t.Errorf("stats: %v\n%s%s\nwant 2 data lines and 1 bad line naming %q (%s)", err, out, stderr, where, tt.cause)
			}
			out, _, err = runCmd(t, "", "lookup", p, tt.key, "com,c)/")
			if err == nil || cli.Status("mementomap", err, io.Discard) != 1 || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), tt.cause) {
				t.Errorf("lookup: %v (exit %d); want exit 1 naming %q (%s)", err, cli.Status("mementomap", err, io.Discard), where, tt.cause)
			}
			if out != "" {
				t.Errorf("lookup printed %q; want no answer from a map check refuses", out)
			}
		})
	}
}

// TestLookupAtWithOwnDatetime gives lookup -at and inputs that carry their
// own datetime: an argument is a usage error (exit 2) naming both
// datetimes, a stdin line is not looked up (printed as -, exit 1, named
// with both), and an input without one is looked up at -at.
func TestLookupAtWithOwnDatetime(t *testing.T) {
	p := filepath.Join(t.TempDir(), "datetime.ukvs")
	os.WriteFile(p, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,b)/ 2010 3/1
com,b)/ 2011 4/1
`), 0o644)
	out, _, err := runCmd(t, "", "lookup", "-at", "2010", p, "com,b)/ 2011")
	if cli.Status("mementomap", err, io.Discard) != 2 || out != "" || !strings.Contains(err.Error(), `"2011"`) || !strings.Contains(err.Error(), `"2010"`) {
		t.Errorf("lookup -at 2010 'com,b)/ 2011' = %q, %v (exit %d); want exit 2 naming both datetimes", out, err, cli.Status("mementomap", err, io.Discard))
	}
	out, _, err = runCmd(t, "com,b)/ 2011\ncom,b)/\n", "lookup", "-at", "2010", p)
	if want := "com,b)/ 2011\t-\t-\t-\ncom,b)/ 2010\tcom,b)/\t2010\t3/1\n"; out != want {
		t.Errorf("lookup -at 2010 from stdin printed %q, want %q", out, want)
	}
	if cli.Status("mementomap", err, io.Discard) != 1 || !errors.Is(err, mementomap.ErrTwoDatetimes) || !strings.Contains(err.Error(), "line 1") ||
		!strings.Contains(err.Error(), `"2011"`) || !strings.Contains(err.Error(), `"2010"`) {
		t.Errorf("lookup -at 2010 from stdin: %v (exit %d); want exit 1, ErrTwoDatetimes naming line 1 and both datetimes", err, cli.Status("mementomap", err, io.Discard))
	}
	out, _, err = runCmd(t, "", "lookup", "-at", "2011", p, "com,b)/")
	if want := "com,b)/ 2011\tcom,b)/\t2011\t4/1\n"; err != nil || out != want {
		t.Errorf("lookup -at 2011 com,b)/ = %q, %v; want %q", out, err, want)
	}
}

// TestBuildDatetimeCommand: build -datetime writes a datetime map, merge
// merges two of them by key and datetime, and the lookups logs -lookups
// writes ("URI DATETIME") are looked up at their datetimes.
func TestBuildDatetimeCommand(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	idx2 := filepath.Join(dir, "index2.cdxj")
	lg := filepath.Join(dir, "aggregator.log")
	os.WriteFile(idx, []byte(testIndex), 0o644)
	os.WriteFile(idx2, []byte(`com,example)/a 20120101000000 {"url": "http://example.com/a", "status": "200"}`+"\n"), 0o644)
	os.WriteFile(lg, []byte(testAccessLog), 0o644)
	m1, m2, mm := filepath.Join(dir, "1.ukvs"), filepath.Join(dir, "2.ukvs"), filepath.Join(dir, "merged.ukvs")
	for _, c := range [][]string{
		{"build", "-q", "-datetime", "4", "-o", m1, idx},
		{"build", "-q", "-datetime", "4", "-o", m2, idx2},
		{"merge", "-q", "-o", mm, m1, m2},
		{"check", mm},
	} {
		if _, errOut, err := runCmd(t, "", c...); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, errOut)
		}
	}
	b, _ := os.ReadFile(mm)
	if want := "com,example)/ 2010 1/1\ncom,example)/ 2011 1/1\ncom,example)/a 2010 1/1\ncom,example)/a 2012 1/1\ncom,example)/z 2010 1/1\n"; !strings.HasSuffix(string(b), want) {
		t.Errorf("merged map:\n%s\nwant its lines:\n%s", b, want)
	}
	lk := filepath.Join(dir, "lookups.txt")
	if _, errOut, err := runCmd(t, "", "logs", "-q", "-lookups", lk, "-o", filepath.Join(dir, "report.txt"), lg); err != nil {
		t.Fatalf("logs: %v\n%s", err, errOut)
	}
	in, _ := os.ReadFile(lk)
	out, errOut, err := runCmd(t, string(in), "lookup", mm)
	if err != nil {
		t.Fatalf("lookup: %v\n%s", err, errOut)
	}
	// The log's /memento/2010/http://example.com/a is looked up at 2010.
	want := "http://example.com/\tcom,example)/\t-\t2/2-\n" +
		"http://example.com/a 20100101000000\tcom,example)/a\t2010\t1/1\n" +
		"http://example.com/nothere\t-\t-\t-\n" +
		"http://example.com/\tcom,example)/\t-\t2/2-\n"
	if out != want {
		t.Errorf("lookup of the logged lookups:\n got %q\nwant %q", out, want)
	}
	if _, _, err := runCmd(t, "", "build", "-q", "-datetime", "5", "-o", m1, idx); err == nil || !strings.Contains(err.Error(), "-datetime") {
		t.Errorf("build -datetime 5: %v; want a usage error", err)
	}
}

// TestLookupArgumentsOneLookupEach: an argument after MAP is one lookup, a
// URI or SURT with at most its own datetime read by the rule of -at. A flag
// after MAP, an empty argument, one holding a line break (CR or LF) and a
// datetime with a trailing blank are usage errors (exit status 2) with no
// answer line, never looked up.
func TestLookupArgumentsOneLookupEach(t *testing.T) {
	dt := filepath.Join(t.TempDir(), "datetime.ukvs")
	os.WriteFile(dt, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
`), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"lookup", dt, "-at", "2014", "http://twitter.com/a"}, "flags come before MAP"},
		{[]string{"lookup", dt, "-h"}, "flags come before MAP"},
		{[]string{"lookup", dt, "http://twitter.com/a 2014\r\n"}, "line break"},
		{[]string{"lookup", dt, "http://twitter.com/a 2014\r"}, "line break"},
		{[]string{"lookup", dt, "http://twitter.com/a 2014 "}, `"2014 "`},
		{[]string{"lookup", dt, "http://twitter.com/a\n"}, "line break"},
		{[]string{"lookup", dt, "http://twitter.com/a\nhttp://twitter.com/b"}, "line break"},
		{[]string{"lookup", dt, ""}, "empty"},
		{[]string{"lookup", dt, "http://twitter.com/a", " "}, "empty"},
	} {
		out, _, err := runCmd(t, "", tt.args...)
		var stderr strings.Builder
		if code := cli.Status("mementomap", err, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 saying %q and no output", tt.args, code, stderr.String(), out, tt.want)
		}
	}
	// A blank around an argument is no datetime; the lookups still answer.
	out, _, err := runCmd(t, "", "lookup", "-at", "2014", dt, " http://twitter.com/a ", "http://twitter.com/b")
	if want := "http://twitter.com/a 2014\tcom,twitter)/*\t2014\t20~/10\nhttp://twitter.com/b 2014\tcom,twitter)/*\t2014\t20~/10\n"; err != nil || out != want {
		t.Errorf("blank-padded arguments: %q, %v; want %q", out, err, want)
	}
}
