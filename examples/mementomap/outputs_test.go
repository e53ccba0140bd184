package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTwoOutputsOneFile: profile and logs refuse two outputs at one path
// (also through a symbolic link), and an output that is an input, writing
// nothing.
func TestTwoOutputsOneFile(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	os.WriteFile(idx, []byte(`com,example)/ 20100101000000 {"url": "http://example.com/", "status": "200"}`+"\n"), 0o644)
	log := filepath.Join(dir, "access.log")
	os.WriteFile(log, []byte(`127.0.0.1 - - [10/Oct/2020:13:55:36 +0000] "GET /timemap/link/http://example.com/ HTTP/1.1" 200 100`+"\n"), 0o644)
	x := filepath.Join(dir, "x")
	os.WriteFile(x, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(x, link); err != nil {
		t.Fatal(err)
	}
	newFile := filepath.Join(dir, "new")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "-q", "-o", newFile, "-html", newFile, idx}, "-o and -html both name"},
		{[]string{"profile", "-q", "-o", x, "-html", link, idx}, "-o and -html both name"},
		{[]string{"profile", "-q", "-o", idx, idx}, "is the input"},
		{[]string{"logs", "-o", newFile, "-html", dir + "/./new", log}, "-o and -html both name"},
		{[]string{"logs", "-o", newFile, "-lookups", newFile, log}, "-o and -lookups both name"},
		{[]string{"logs", "-lookups", x, "-html", link, log}, "-lookups and -html both name"},
		{[]string{"logs", "-lookups", log, log}, "is the input"},
	} {
		_, _, err := runCmd(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(newFile); err == nil {
		t.Error("a refused run wrote its output")
	}
	if b, _ := os.ReadFile(x); string(b) != "keep" {
		t.Errorf("a refused run rewrote x: %q", b)
	}
}

// TestEvalCountsBadLookups: a lookup that is no URL or SURT is counted
// and named by file and line, not dropped unseen.
func TestEvalCountsBadLookups(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "i.cdxj")
	os.WriteFile(idx, []byte("com,a)/ 20200101000000 {\"url\": \"http://a.com/\"}\n"), 0o644)
	m := filepath.Join(dir, "m.ukvs")
	os.WriteFile(m, []byte("com,a)/ 1/1\n"), 0o644)
	lk := filepath.Join(dir, "l.txt")
	os.WriteFile(lk, []byte("http://a.com/\n# a comment\nhttp://a.com:99999/\nhttp://b.com/\nhttp://b.com:123456/x\n"), 0o644)
	out, errOut, err := runCmd(t, "", "eval", "-lookups", lk, m, idx)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "lookups\t2\n") || !strings.Contains(out, "bad lookups\t2\n") {
		t.Errorf("output %q: want 2 lookups evaluated and 2 bad", out)
	}
	if !strings.Contains(errOut, lk+":3: \"http://a.com:99999/\"") || !strings.Contains(errOut, lk+":5: ") {
		t.Errorf("stderr %q does not name lines 3 and 5", errOut)
	}
}
