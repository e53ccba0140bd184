package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/ukvs"
)

// TestLookupUnsortedMap: the hostile tester's case. "com,b)/" is held on
// line 4, after "com,c)/": a binary search misses it, and lookup said
// absent and exited 0.
func TestLookupUnsortedMap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "unsorted.ukvs")
	if err := os.WriteFile(p, []byte("!fields {keys: [\"surt\"], values: [\"frequency\"]}\ncom,a)/ 1\ncom,c)/ 2\ncom,b)/ 3\ncom,d)/ 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"http://b.com/", "http://c.com/"} {
		out, _, err := runCmd(t, in+"\n", "lookup", p)
		if !errors.Is(err, ukvs.ErrOutOfOrder) || !strings.Contains(err.Error(), "unsorted.ukvs: ukvs: line 4") {
			t.Errorf("lookup %s: %v; want ukvs.ErrOutOfOrder naming unsorted.ukvs, line 4", in, err)
		}
		if strings.Contains(out, "\t-\t-") {
			t.Errorf("lookup %s answered absent: %q", in, out)
		}
	}
}

// TestLookupNULSURT: the hostile tester's case. The build stored the key
// of "com,example)/a\x00b" (its URL "http://example.com/a\x00b") as the
// canonical "com,example)/a%00b"; lookup of the SURT as the index wrote it
// said absent and exited 0.
func TestLookupNULSURT(t *testing.T) {
	dir := t.TempDir()
	idx, m := filepath.Join(dir, "idx.cdxj"), filepath.Join(dir, "m.ukvs")
	if err := os.WriteFile(idx, []byte("com,example)/a\x00b 20200101000000 {\"url\": \"http://example.com/a\\u0000b\", \"status\": \"200\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "", "build", "-q", "-o", m, idx); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "com,example)/a\x00b\n", "lookup", m)
	if err != nil || out != "com,example)/a\x00b\tcom,example)/a%00b\t1/1\n" {
		t.Errorf("lookup = %q, %v; want the key com,example)/a%%00b present", out, err)
	}
}

// TestLookupRefusesWhatCheckRefuses: the hostile tester's case. lookup on
// a map with a doubled line answered while check refused the map; lookup
// now checks the whole map by check's rule and fails with check's error.
func TestLookupRefusesWhatCheckRefuses(t *testing.T) {
	const hdr = "!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\"]}\n"
	for name, content := range map[string]string{
		"doubled":      hdr + "com,a)/ 1\ncom,b)/ 2\ncom,b)/ 2\ncom,c)/ 3\n",
		"out of order": hdr + "com,a)/ 1\ncom,c)/ 2\ncom,b)/ 3\n",
		"bad line":     hdr + "com,a)/ 1\ncom,b)/ 2/x\n",
		"sorted":       hdr + "com,a)/ 1\ncom,b)/ 2\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "m.ukvs")
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, checkErr := runCmd(t, "", "check", p)
			out, _, lookupErr := runCmd(t, "http://b.com/\n", "lookup", p)
			if (checkErr == nil) != (lookupErr == nil) || checkErr != nil && checkErr.Error() != lookupErr.Error() {
				t.Errorf("check: %v\nlookup: %v (printed %q)\nwant the same answer", checkErr, lookupErr, out)
			}
			if lookupErr != nil && out != "" {
				t.Errorf("lookup answered from a map check refuses: %q", out)
			}
		})
	}
}
