package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
)

// TestCLIMode runs the command-line mode over two fake archives holding
// the MemGator transcripts' dup.example.net (internal/sampledata/cases/
// memgator_transcripts.md, "CLI mode"): the TimeMap on stdout in each
// format, the description at a datetime, and exit statuses 0 found, 1 not
// found, 2 usage.
func TestCLIMode(t *testing.T) {
	day := func(s string) time.Time { v, _ := time.Parse("20060102150405", s); return v }
	arc1 := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://dup.example.net/": {day("20100101000000"), day("20110101000000")}}})
	t.Cleanup(arc1.Close)
	arc2 := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://dup.example.net/": {day("20100101000000")}}})
	t.Cleanup(arc2.Close)
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[
  {"id": "arc2.local", "name": "Fake Archive Two", "timemap": "`+arc2.TimeMapPrefix()+`", "timegate": "`+arc2.TimeGatePrefix()+`", "probability": 0.5},
  {"id": "arc1.local", "name": "Fake Archive One", "timemap": "`+arc1.TimeMapPrefix()+`", "timegate": "`+arc1.TimeGatePrefix()+`", "probability": 0.9}
]`), 0o644); err != nil {
		t.Fatal(err)
	}
	runIt := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		cliFormat = "link"
		err := run(context.Background(), append([]string{"-archives", list}, args...), nil, &out, &errb)
		code := cli.Status("aggregator", err, &errb)
		return code, out.String(), errb.String()
	}
	code, out, _ := runIt("http://dup.example.net/")
	want := strings.Join([]string{
		`<http://dup.example.net/>; rel="original"`,
		`<` + arc1.URL + `/web/20100101000000/http://dup.example.net/>; rel="first memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT"`,
		`<` + arc2.URL + `/web/20100101000000/http://dup.example.net/>; rel="memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT"`,
		`<` + arc1.URL + `/web/20110101000000/http://dup.example.net/>; rel="last memento"; datetime="Sat, 01 Jan 2011 00:00:00 GMT"`,
	}, ",\n") + "\n"
	if code != 0 || out != want {
		t.Errorf("TimeMap: exit %d, stdout:\n%s\nwant:\n%s", code, out, want)
	}
	// -format is case-insensitive (as MemGator's -f); a datetime gives the
	// description: arc1 (probability 0.9) ranks first.
	code, out, _ = runIt("-format", "CDXJ", "http://dup.example.net/", "2010")
	if code != 0 || !strings.HasPrefix(out, "!context [\"https://oduwsdl.github.io/contexts/memento\"]\n!keys") ||
		!strings.Contains(out, `20100101000000 {"uri": "`+arc1.URL+`/web/20100101000000/http://dup.example.net/", "rel": "first closest memento", "datetime": "Fri, 01 Jan 2010 00:00:00 GMT"}`) ||
		!strings.Contains(out, `"rel": "last next memento"`) {
		t.Errorf("CDXJ description: exit %d\n%s", code, out)
	}
	code, out, _ = runIt("-format", "json", "http://dup.example.net/", "2011")
	if code != 0 || !strings.Contains(out, `"closest": {`) || !strings.Contains(out, `"datetime": "2011-01-01T00:00:00Z"`) {
		t.Errorf("JSON description: exit %d\n%s", code, out)
	}
	code, out, errs := runIt("http://nothing.example/")
	if code != 1 || out != "" || !strings.Contains(errs, "No mementos found for http://nothing.example/ (2 archives answered none)") {
		t.Errorf("not found: exit %d, stdout %q, stderr %q; want 1, nothing, the headline", code, out, errs)
	}
	// Found with one archive down: the answer on stdout, exit 0, and on
	// stderr a line naming the archive that failed, then the headline
	// saying what each archive did.
	down := archivetest.New(archivetest.Config{})
	down.Close()
	withDown := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(withDown, []byte(`[
  {"id": "arc1.local", "timemap": "`+arc1.TimeMapPrefix()+`", "timegate": "`+arc1.TimeGatePrefix()+`"},
  {"id": "arc2.local", "timemap": "`+arc2.TimeMapPrefix()+`", "timegate": "`+arc2.TimeGatePrefix()+`"},
  {"id": "down.local", "timemap": "`+down.TimeMapPrefix()+`", "timegate": "`+down.TimeGatePrefix()+`"}
]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"http://dup.example.net/"}, {"-format", "json", "http://dup.example.net/", "2010"}} {
		code, out, errs = runIt(append([]string{"-archives", withDown}, args...)...)
		first, headline, _ := strings.Cut(errs, "\n")
		wantErr := "aggregator: 3 mementos of http://dup.example.net/ (2 archives with mementos, 1 failed: down.local="
		// The archive, the reason class and the URL are said once: "down.local failed (network): timemap Get \"URL\": CAUSE".
		if strings.Count(first, "down.local") != 1 || strings.Count(first, "network") != 1 || strings.Count(first, "http://127.0.0.1:") != 1 ||
			!strings.HasPrefix(first, "aggregator: down.local failed (network): time") {
			t.Errorf("%q: failure line %q, want down.local and network said once", args, first)
		}
		if code != 0 || out == "" || !strings.HasPrefix(first, "aggregator: down.local failed (") || !strings.HasPrefix(headline, wantErr) || strings.Count(errs, "\n") != 2 {
			t.Errorf("%q with an archive down: exit %d, stdout %d bytes, stderr %q; want 0, the answer, a line naming down.local, one starting %q", args, code, len(out), errs, wantErr)
		}
	}
	// No archive failed: nothing on stderr.
	if code, _, errs := runIt("http://dup.example.net/"); code != 0 || errs != "" {
		t.Errorf("all answered: exit %d, stderr %q; want 0 and nothing", code, errs)
	}
	for _, args := range [][]string{{"http://dup.example.net/", "201013"}, {"http://dup.example.net/", "2010", "extra"}, {"-format", "xml", "http://dup.example.net/"}} {
		if code, out, errs := runIt(args...); code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errs)
		}
	}
	cliFormat = "link"
}

// TestCLIPartialAnswer: with one 127.0.0.1 archive answering, one down
// and one whose TimeMap has two memento links without a datetime, the
// command-line mode prints the mementos found and names on stderr the
// archive that failed (its reason) and the one whose links were left out
// (their count), then the headline; it exits 0, and with -strict 3 with
// the same stdout. -strict changes nothing when every archive answered,
// and makes a miss with a failure exit 3 instead of 1.
func TestCLIPartialAnswer(t *testing.T) {
	day := func(s string) time.Time { v, _ := time.Parse("20060102150405", s); return v }
	good := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://p.example/": {day("20100101000000")}}})
	t.Cleanup(good.Close)
	down := archivetest.New(archivetest.Config{})
	down.Close()
	odd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		urir := strings.TrimPrefix(r.RequestURI, "/timemap/link/")
		w.Header().Set("Content-Type", "application/link-format")
		fmt.Fprintf(w, "<%s>; rel=\"original\",\n<http://%s/web/20120101000000/%s>; rel=\"memento\"; datetime=\"Sun, 01 Jan 2012 00:00:00 GMT\",\n"+
			"<http://%s/web/a/%s>; rel=\"memento\",\n<http://%s/web/b/%s>; rel=\"memento\"; datetime=\"yesterday\"\n", urir, r.Host, urir, r.Host, urir, r.Host, urir)
	}))
	t.Cleanup(odd.Close)
	write := func(entries ...string) string {
		p := filepath.Join(t.TempDir(), "archives.json")
		if err := os.WriteFile(p, []byte("["+strings.Join(entries, ",")+"]"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodE := `{"id": "good.local", "timemap": "` + good.TimeMapPrefix() + `", "timegate": "` + good.TimeGatePrefix() + `"}`
	downE := `{"id": "down.local", "timemap": "` + down.TimeMapPrefix() + `", "timegate": "` + down.TimeGatePrefix() + `"}`
	oddE := `{"id": "odd.local", "timemap": "` + odd.URL + `/timemap/link/"}`
	partial, whole := write(goodE, downE, oddE), write(goodE)
	runIt := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		cliFormat = "link"
		err := run(context.Background(), append([]string{"-cache", "none"}, args...), nil, &out, &errb)
		return cli.Status("aggregator", err, &errb), out.String(), errb.String()
	}
	code, out, errs := runIt("-archives", partial, "http://p.example/")
	var lines []string // the mode's own lines, not the log's records
	for _, l := range strings.Split(strings.TrimSuffix(errs, "\n"), "\n") {
		if strings.HasPrefix(l, "aggregator: ") {
			lines = append(lines, l)
		}
	}
	wantHead := "aggregator: 2 mementos of http://p.example/ (2 archives with mementos, 1 failed: down.local="
	if code != 0 || strings.Count(out, `rel="`) != 3 || len(lines) != 3 || !strings.HasPrefix(lines[0], "aggregator: down.local failed (") ||
		lines[1] != "aggregator: odd.local: 2 memento links left out (no http(s) URI-M, no readable datetime, or a datetime outside 1000-9999)" ||
		!strings.HasPrefix(lines[2], wantHead) {
		t.Errorf("partial answer: exit %d, stderr %q, stdout:\n%s\nwant 0, the two mementos, lines naming down.local and odd.local's 2 links, the headline %q...", code, errs, out, wantHead)
	}
	code, strictOut, errs := runIt("-strict", "-archives", partial, "http://p.example/")
	if code != 3 || strictOut != out || !strings.Contains(errs, "aggregator: down.local failed (") || !strings.Contains(errs, "odd.local: 2 memento links left out") || !strings.Contains(errs, wantHead) {
		t.Errorf("-strict partial answer: exit %d, stderr %q, stdout %q; want 3, the same answer, the archive lines and the headline", code, errs, strictOut)
	}
	if code, out, errs := runIt("-strict", "-archives", whole, "http://p.example/"); code != 0 || out == "" || errs != "" {
		t.Errorf("-strict, every archive answered: exit %d, stderr %q; want 0 and nothing", code, errs)
	}
	if code, _, errs := runIt("-archives", write(goodE, downE), "http://miss.example/"); code != 1 || !strings.Contains(errs, "aggregator: down.local failed (") {
		t.Errorf("a miss with a failure: exit %d, stderr %q; want 1, down.local named", code, errs)
	}
	if code, _, errs := runIt("-strict", "-archives", write(goodE, downE), "http://miss.example/"); code != 3 || !strings.Contains(errs, "No mementos found for http://miss.example/") {
		t.Errorf("-strict, a miss with a failure: exit %d, stderr %q; want 3 and the headline", code, errs)
	}
}

// TestCLIMissNamesArchives: a miss of the command-line mode with one
// 127.0.0.1 archive answering none, one down and one whose MementoMap
// rules the URI-R out exits 1 (not found: the archive that answered
// holds nothing, though another failed), and names on stderr each
// archive and what it did, then the headline, whose counts say they
// count archives; -strict makes it 3. A found answer names none of the
// archives that answered none.
func TestCLIMissNamesArchives(t *testing.T) {
	day := func(s string) time.Time { v, _ := time.Parse("20060102150405", s); return v }
	empty := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://hit.example/": {day("20100101000000")}}})
	t.Cleanup(empty.Close)
	down := archivetest.New(archivetest.Config{})
	down.Close()
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "mapped.ukvs")
	if err := os.WriteFile(mapFile, []byte("org,other)/ 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "archives.json")
	if err := os.WriteFile(list, []byte(`[
  {"id": "empty.local", "timemap": "`+empty.TimeMapPrefix()+`", "timegate": "`+empty.TimeGatePrefix()+`"},
  {"id": "down.local", "timemap": "`+down.TimeMapPrefix()+`", "timegate": "`+down.TimeGatePrefix()+`"},
  {"id": "mapped.local", "timemap": "`+down.TimeMapPrefix()+`", "timegate": "`+down.TimeGatePrefix()+`", "mementomap": "`+mapFile+`"}
]`), 0o644); err != nil {
		t.Fatal(err)
	}
	runIt := func(args ...string) (int, []string) {
		var out, errb bytes.Buffer
		cliFormat = "link"
		err := run(context.Background(), append([]string{"-cache", "none", "-archives", list}, args...), nil, &out, &errb)
		code := cli.Status("aggregator", err, &errb)
		var lines []string // the mode's own lines, not the log's records
		for _, l := range strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n") {
			if strings.HasPrefix(l, "aggregator: ") {
				lines = append(lines, l)
			}
		}
		return code, lines
	}
	wantHead := "aggregator: No mementos found for http://miss.example/ (1 archive answered none, 1 failed, 1 skipped by MementoMap: down.local="
	for _, tc := range []struct {
		strict bool
		code   int
	}{{false, 1}, {true, 3}} {
		args := []string{"http://miss.example/"}
		if tc.strict {
			args = append([]string{"-strict"}, args...)
		}
		code, lines := runIt(args...)
		if code != tc.code || len(lines) != 4 || lines[0] != "aggregator: empty.local answered none" || !strings.HasPrefix(lines[1], "aggregator: down.local failed (") ||
			lines[2] != "aggregator: mapped.local not asked: its MementoMap rules the URI-R out" || !strings.HasPrefix(lines[3], wantHead) {
			t.Errorf("-strict %v, a miss: exit %d, stderr lines %q; want %d, one line per archive in order, the headline %q...", tc.strict, code, lines, tc.code, wantHead)
		}
	}
	// Found: the archive that answered is counted; no "answered none" line.
	code, lines := runIt("http://hit.example/")
	wantFound := "aggregator: 1 memento of http://hit.example/ (1 archive with mementos, 1 failed, 1 skipped by MementoMap: down.local="
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "aggregator: down.local failed (") || !strings.HasPrefix(lines[1], wantFound) {
		t.Errorf("found: exit %d, stderr lines %q; want 0, down.local's line, the headline %q...", code, lines, wantFound)
	}
}

// TestCLINoAPILinks: the command-line mode's answers (TimeMaps and
// descriptions, in each format) link to no server of the API when no
// -base-url is given (none runs behind them: no self, timemap or
// timegate link, key or line), and to the server -base-url names when it
// is given, as the HTTP API's answers do. The original and memento links
// are the same either way.
func TestCLINoAPILinks(t *testing.T) {
	day := func(s string) time.Time { v, _ := time.Parse("20060102150405", s); return v }
	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://dup.example.net/": {day("20100101000000"), day("20110101000000")}}})
	t.Cleanup(arc.Close)
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "arc.local", "timemap": "`+arc.TimeMapPrefix()+`", "timegate": "`+arc.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	runIt := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		cliFormat = "link"
		defer func() { cliFormat = "link" }()
		err := run(context.Background(), append([]string{"-cache", "none", "-archives", list}, args...), nil, &out, &errb)
		return cli.Status("aggregator", err, &errb), out.String(), errb.String()
	}
	const base = "http://mg.example:8080/mg"
	for _, q := range [][]string{
		{"-format", "link", "http://dup.example.net/"},
		{"-format", "json", "http://dup.example.net/"},
		{"-format", "cdxj", "http://dup.example.net/"},
		{"-format", "link", "http://dup.example.net/", "2010"},
		{"-format", "json", "http://dup.example.net/", "2010"},
		{"-format", "cdxj", "http://dup.example.net/", "2010"},
	} {
		code, out, errs := runIt(q...)
		if code != 0 || !strings.Contains(out, arc.URL+"/web/20110101000000/http://dup.example.net/") || !strings.Contains(out, "http://dup.example.net/") {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", q, code, errs, out)
			continue
		}
		for _, no := range []string{"localhost", "1208", `"self"`, `rel="self"`, "timegate", "timemap", "!id"} {
			if strings.Contains(out, no) {
				t.Errorf("%q without -base-url: %q in\n%s", q, no, out)
			}
		}
		switch q[1] {
		case "link":
			if !strings.HasSuffix(out, `GMT"`+"\n") || strings.Count(out, ",\n") != strings.Count(out, "\n")-1 {
				t.Errorf("%q: not a link list ending with its last memento:\n%s", q, out)
			}
		case "json":
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["original_uri"] != "http://dup.example.net/" || doc["mementos"] == nil {
				t.Errorf("%q: %v\n%s", q, err, out)
			}
		}
		code, withBase, _ := runIt(append([]string{"-base-url", base}, q...)...)
		if code != 0 || !strings.Contains(withBase, base+"/timegate/http://dup.example.net/") || strings.Contains(withBase, "localhost") {
			t.Errorf("%q with -base-url: exit %d, want links to %s:\n%s", q, code, base, withBase)
		}
		if q[1] != "json" && len(q) == 3 && !strings.Contains(withBase, base+"/timemap/"+q[1]+"/http://dup.example.net/") {
			t.Errorf("%q with -base-url: no self link to %s:\n%s", q, base, withBase)
		}
	}
}

// TestCLIDatetimeRule: the command-line mode reads DATETIME by the one
// rule of a datetime on a command line (flagvalue.DatetimeRule): digits
// or an RFC 3339 instant, nothing around them. A value with white space
// or a line end around it ("2010\r\n", "2010 ", which a script's line or
// a copied cell brings), an HTTP date or a bad field is refused: exit 2,
// nothing on stdout, one line naming the value as given and the rule;
// no archive is asked.
func TestCLIDatetimeRule(t *testing.T) {
	day := func(s string) time.Time { v, _ := time.Parse("20060102150405", s); return v }
	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://dup.example.net/": {day("20100101000000"), day("20110101000000")}}})
	t.Cleanup(arc.Close)
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "arc.local", "timemap": "`+arc.TimeMapPrefix()+`", "timegate": "`+arc.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	runIt := func(dt string) (int, string, string) {
		var out, errb bytes.Buffer
		cliFormat = "json"
		defer func() { cliFormat = "link" }()
		err := run(context.Background(), []string{"-cache", "none", "-archives", list, "http://dup.example.net/", dt}, nil, &out, &errb)
		return cli.Status("aggregator", err, &errb), out.String(), errb.String()
	}
	for _, dt := range []string{"2010\r\n", "2010\n", "2010 ", " 2010", "2010\t", "\u00a02010", "Fri, 01 Jan 2010 00:00:00 GMT", "2010-01-01", "20105", "2010x", "+2010", ""} {
		code, out, errs := runIt(dt)
		want := "aggregator: invalid datetime " + strconv.Quote(dt) + ": "
		if code != 2 || out != "" || !strings.HasPrefix(errs, want) || !strings.HasSuffix(errs, "; want "+flagvalue.DatetimeRule+"\n") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, one line %q...", dt, code, out, errs, want)
		}
	}
	if n := len(arc.Requests()); n != 0 {
		t.Errorf("the archive was asked %d times for refused datetimes", n)
	}
	// Accepted: digits of any length the rule allows, an RFC 3339 instant
	// in any offset; each the same closest memento.
	for dt, closest := range map[string]string{
		"2010": "2010-01-01T00:00:00Z", "20101231": "2011-01-01T00:00:00Z", "20101231235959999": "2011-01-01T00:00:00Z",
		"2010-12-31T23:00:00-02:00": "2011-01-01T00:00:00Z", "2010-03-01T00:00:00Z": "2010-01-01T00:00:00Z",
	} {
		code, out, errs := runIt(dt)
		var doc struct {
			Mementos struct {
				Closest struct{ Datetime string } `json:"closest"`
			} `json:"mementos"`
		}
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Mementos.Closest.Datetime != closest {
			t.Errorf("%q: exit %d (%v), stderr %q, closest %q, want %s", dt, code, err, errs, doc.Mementos.Closest.Datetime, closest)
		}
	}
}

// TestMigrateDryRun: -migrate-dry-run prints the schema steps Open would
// run on an empty database, changes nothing (a second run prints the
// same), and refuses a cache that is not MySQL.
func TestMigrateDryRun(t *testing.T) {
	dsn := privateDatabase(t)
	plan := func() (int, string) {
		var out, errb bytes.Buffer
		migrateDryRun = false
		err := run(context.Background(), []string{"-migrate-dry-run", "-cache", dsn}, nil, &out, &errb)
		migrateDryRun = false
		return cli.Status("aggregator", err, &errb), out.String()
	}
	code, out := plan()
	if code != 0 || out != "schema 0001_init.sql (version 1)\n" {
		t.Errorf("plan of an empty database: exit %d %q", code, out)
	}
	if code2, out2 := plan(); code2 != code || out2 != out {
		t.Errorf("second dry run: exit %d %q, want the same", code2, out2)
	}
	var stdout, errb bytes.Buffer
	err := run(context.Background(), []string{"-migrate-dry-run", "-cache", "memory"}, nil, &stdout, &errb)
	migrateDryRun = false
	if code := cli.Status("aggregator", err, &errb); code != 2 {
		t.Errorf("dry run on memory: exit %d %s", code, errb.String())
	}
}

// TestCLIOddURIR runs the command-line mode over URI-Rs and datetimes no
// URL parser accepts as a request target (white space, CR LF, NUL, bad
// escapes, non-ASCII): none panics; each is a usage error (exit 2) with
// the reason, or is asked of the one archive (down here: exit 3, every
// archive asked failed).
func TestCLIOddURIR(t *testing.T) {
	down := archivetest.New(archivetest.Config{})
	down.Close()
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "down.local", "timemap": "`+down.TimeMapPrefix()+`", "timegate": "`+down.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	runIt := func(args ...string) (code int, out, errs string) {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("%q: panic: %v", args, p)
				code = -1
			}
		}()
		var outb, errb bytes.Buffer
		cliFormat = "link"
		err := run(context.Background(), append([]string{"-cache", "none", "-archives", list}, args...), nil, &outb, &errb)
		return cli.Status("aggregator", err, &errb), outb.String(), errb.String()
	}
	for _, c := range []struct{ urir, want string }{
		{"", "aggregator: empty URI-R\n"},
		{" http://example.com/ ", "leading or trailing white space"},
		{"http://example.com/\r\nX: y", "control character 0x0D at byte 19"},
		{"http://example.com/\nX", "control character 0x0A at byte 19"},
		{"http://example.com/\x00", "control character 0x00 at byte 19"},
		{"http://example.com/\x7f", "control character 0x7F at byte 19"},
		{"http://example.com/\t", "white space"},
	} {
		if code, out, errs := runIt(c.urir); code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.urir, code, out, errs, c.want)
		}
	}
	// Asked of the archive as the HTTP API would: space percent-encoded.
	if code, _, errs := runIt("http://example.com/a b"); code != 3 || !strings.Contains(errs, "http://example.com/a%20b (1 archive failed: down.local=") {
		t.Errorf("space inside: exit %d, stderr %q; want 3, asked as a%%20b", code, errs)
	}
	odd := []string{"http://example.com/a b", "%", "%zz", "http://%41/", "http://[::1/", "http://é.example/ü", "?", "#", "//", "http://a/?x=1#f",
		"\xff\xfe", "http://x/" + strings.Repeat("a", 10000), "http:", "https://", "ftp://x/", "-"}
	for _, u := range odd {
		for _, dt := range []string{"", "2010", "20100101000000", "x y", "2010\r\n", "-1"} {
			args := []string{u}
			if dt != "" {
				args = append(args, dt)
			}
			if code, out, errs := runIt(args...); code != 3 && code != 2 || out != "" || errs == "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 or 3, a reason", args, code, out, errs)
			}
		}
	}
}

// TestExampleConfigCustomList: the example configuration, whose
// mementomaps names web.archive.org, runs with a custom archive list that
// lacks it (exit 0, the TimeMap printed); the entry is ignored with one
// warning naming it (on stderr, the command line's text log).
func TestExampleConfigCustomList(t *testing.T) {
	day, _ := time.Parse("20060102", "20100101")
	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://example.com/": {day}}})
	t.Cleanup(arc.Close)
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "local", "name": "Local", "timemap": "`+arc.TimeMapPrefix()+`", "timegate": "`+arc.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cliFormat = "link"
	err := run(context.Background(), []string{"-config", "example-config.json", "-archives", list, "-cache", "none", "http://example.com/"}, nil, &out, &errb)
	if code := cli.Status("aggregator", err, &errb); code != 0 || !strings.Contains(out.String(), arc.URL+"/web/20100101000000/http://example.com/") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out.String(), errb.String())
	}
	var warnings int
	for line := range strings.SplitSeq(strings.TrimSpace(errb.String()), "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, "mementomaps name archives that are not in the archive list") &&
			strings.Contains(line, "unknown=[web.archive.org]") && strings.Contains(line, "list="+list) {
			warnings++
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings naming web.archive.org, want 1; stderr:\n%s", warnings, errb.String())
	}
}

// TestBadBaseURLRefused: -base-url takes an absolute http or https URL with
// a host only; any other value is a usage error (exit status 2) naming
// base-url, in the command-line mode (before any archive is asked) and in
// server mode (before it listens; the context is cancelled already, so a
// server that started would stop at once with another status).
func TestBadBaseURLRefused(t *testing.T) {
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "arc.local", "timemap": "http://127.0.0.1:1/timemap/link/"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"notaurl", "ftp://x y", "ftp://agg.example.org"} {
		for _, mode := range [][]string{{"http://dup.example.net/"}, {"-addr", "127.0.0.1:0"}, {"-addr", "127.0.0.1:0", "server"}} {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var out, errb bytes.Buffer
			err := run(ctx, append([]string{"-cache", "none", "-archives", list, "-base-url", base}, mode...), nil, &out, &errb)
			if code := cli.Status("aggregator", err, &errb); code != 2 || !strings.Contains(errb.String(), "base-url") || out.Len() != 0 {
				t.Errorf("-base-url %q %q: exit %d, stderr %q, stdout %q; want exit 2 naming base-url", base, mode, code, errb.String(), out.String())
			}
		}
	}
}
