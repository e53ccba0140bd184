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
		if !errors.Is(err, ukvs.ErrOutOfOrder) || !strings.Contains(err.Error(), "unsorted.ukvs: line 4") {
			t.Errorf("lookup %s: %v; want ukvs.ErrOutOfOrder naming unsorted.ukvs: line 4", in, err)
		}
		if strings.Contains(out, "\t-\t-") {
			t.Errorf("lookup %s answered absent: %q", in, out)
		}
	}
}
