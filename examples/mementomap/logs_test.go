package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testIndex = `com,example)/ 20100101000000 {"url": "http://example.com/", "status": "200", "mime": "text/html"}
com,example)/ 20110101000000 {"url": "http://example.com/", "status": "200", "mime": "text/html"}
com,example)/a 20100101000000 {"url": "http://example.com/a", "status": "200", "mime": "text/html"}
com,example)/z 20100101000000 {"url": "http://example.com/z", "status": "200", "mime": "text/html"}
`

const testAccessLog = `{"time":"2026-04-01T10:00:01Z","level":"INFO","msg":"access","method":"GET","target":"/timemap/link/http://example.com/","status":200,"urir":"http://example.com/","scenario":"unknown","from_cache":false,"mementos":2,"archives":"ia=found:2, bl=failed:timeout"}
{"time":"2026-04-01T10:00:02Z","level":"INFO","msg":"access","method":"GET","target":"/memento/2010/http://example.com/a","status":302,"urir":"http://example.com/a","scenario":"unknown","from_cache":false,"mementos":1,"archives":"ia=found:1, bl=skipped-by-map"}
{"time":"2026-04-01T10:00:03Z","level":"INFO","msg":"access","method":"GET","target":"/timegate/http://example.com/nothere","status":404,"urir":"http://example.com/nothere","scenario":"unknown","from_cache":false,"mementos":0,"archives":"ia=none, bl=none"}
{"time":"2026-04-01T10:00:04Z","level":"INFO","msg":"access","method":"GET","target":"/timemap/link/http://example.com/","status":200,"urir":"http://example.com/","scenario":"fresh","from_cache":true,"mementos":2}
not json
`

func TestLogs(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	lg := filepath.Join(dir, "aggregator.log")
	os.WriteFile(idx, []byte(testIndex), 0o644)
	os.WriteFile(lg, []byte(testAccessLog), 0o644)
	lk := filepath.Join(dir, "lookups.txt")
	out, errOut, err := runCmd(t, "", "logs", "-lookups", lk, "-index", idx, lg)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, want := range []string{"lookups          4\n", "distinct URI-Rs  3\n", "bad lines        1\n",
		"  " + lg + ":5: aggregator log: not a JSON record",
		"bl       3         0 (0.0%)   1 (33.3%)  1 (33.3%)  1 (33.3%)       0 (0.0%)  0\n",
		"ia       3         2 (66.7%)  1 (33.3%)  0 (0.0%)   0 (0.0%)        0 (0.0%)  0\n",
		"mementos \\ lookups  Zero  Ones\nZero                ?     1\nOnes                1     2\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "log lines not read as lookups") {
		t.Errorf("no warning of the bad line: %s", errOut)
	}
	// A lookup that named a datetime (/memento/2010/...) keeps it, in the
	// form lookup and eval read back.
	b, _ := os.ReadFile(lk)
	if want := "http://example.com/\nhttp://example.com/a 20100101000000\nhttp://example.com/nothere\nhttp://example.com/\n"; string(b) != want {
		t.Errorf("lookups %q, want %q", b, want)
	}
	// The lookups evaluate a map of the index: 3 of the 4 are held.
	m := filepath.Join(dir, "map.ukvs")
	if _, errOut, err := runCmd(t, "", "build", "-q", "-o", m, idx); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	out, errOut, err = runCmd(t, "", "eval", "-q", "-lookups", lk, m, idx)
	if err != nil || !strings.Contains(out, "lookups\t4\nheld\t3\n") || !strings.Contains(out, "recall\t1.0000") {
		t.Errorf("eval: %v\n%s%s", err, out, errOut)
	}
	// lookup reads them back: the datetime is checked, and a map
	// without a datetime column answers for the URI-R.
	out, errOut, err = runCmd(t, string(b), "lookup", m)
	if want := "http://example.com/\tcom,example)/\t2/1\nhttp://example.com/a 20100101000000\tcom,example)/a\t1/1\nhttp://example.com/nothere\t-\t-\nhttp://example.com/\tcom,example)/\t2/1\n"; err != nil || out != want {
		t.Errorf("lookup of the lookups: %v\n got %q\nwant %q\n%s", err, out, want, errOut)
	}
	// -datetimes=false: URI-Rs alone.
	if _, errOut, err := runCmd(t, "", "logs", "-q", "-datetimes=false", "-lookups", lk, "-o", filepath.Join(dir, "r.txt"), lg); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	b, _ = os.ReadFile(lk)
	if want := "http://example.com/\nhttp://example.com/a\nhttp://example.com/nothere\nhttp://example.com/\n"; string(b) != want {
		t.Errorf("lookups without datetimes %q, want %q", b, want)
	}
	// JSON.
	out, errOut, err = runCmd(t, "", "logs", "-q", "-json", "-index", idx, lg)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var res logsResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Stats.Lookups != 4 || res.Stats.Searched != 3 || res.Stats.FromCache != 1 || len(res.Stats.Archives) != 2 ||
		res.Overlap == nil || res.Overlap.Archived != 3 || res.Overlap.Cells[1][0] != 1 || res.Overlap.Cells[1][1] != 2 {
		t.Errorf("JSON report %s", out)
	}
	// A file with no lookup is an error naming what it held.
	empty := filepath.Join(dir, "empty.log")
	os.WriteFile(empty, []byte("not a log\n"), 0o644)
	if _, _, err := runCmd(t, "", "logs", "-q", empty); err == nil || !strings.Contains(err.Error(), "1 bad") {
		t.Errorf("a log without lookups: %v", err)
	}
	if _, _, err := runCmd(t, "", "logs", "-q", "-format", "apache", lg); err == nil {
		t.Error("an unknown format was accepted")
	}
}
