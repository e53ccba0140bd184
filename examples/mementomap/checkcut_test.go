package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/ukvs"
)

// TestCheckRefusesCutAndEmptyMaps: `check` refuses a built map cut inside
// its last line at every byte, a 0-byte map, a doubled !fields and
// frequencies whose counts cannot both be true, naming file and line, and
// `stats` refuses a map with no data line as `check` does;
// `lookup` refuses the cut map instead of answering a cut frequency.
func TestCheckRefusesCutAndEmptyMaps(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "a.cdxj")
	var b strings.Builder
	for i := range 10 {
		b.WriteString("org,foo)/ 2020010100000" + string(rune('0'+i)) + ` {"url": "http://foo.org/", "status": "200"}` + "\n")
	}
	os.WriteFile(idx, []byte(b.String()), 0o644)
	full := filepath.Join(dir, "a.map")
	if _, stderr, err := runCmd(t, "", "build", "-q", "-o", full, idx); err != nil {
		t.Fatalf("build: %v %s", err, stderr)
	}
	data, err := os.ReadFile(full)
	if err != nil || !strings.HasSuffix(string(data), "org,foo)/ 10/1\n") {
		t.Fatalf("built map %q, %v", data, err)
	}
	last := strings.LastIndex(string(data[:len(data)-1]), "\n") + 1
	lines := strings.Count(string(data), "\n")
	for cut := last + 1; cut < len(data); cut++ {
		p := filepath.Join(dir, "t.map")
		os.WriteFile(p, data[:cut], 0o644)
		for _, args := range [][]string{{"check", p}, {"lookup", p, "http://foo.org/"}} {
			out, _, err := runCmd(t, "", args...)
			var pe *ukvs.ParseError
			if !errors.Is(err, mementomap.ErrNoLineEnd) || !strings.Contains(err.Error(), p) || !errors.As(err, &pe) || pe.Line != int64(lines) {
				t.Errorf("%v cut at %d (%q): out %q, err %v; want ErrNoLineEnd at %s line %d", args, cut, data[last:cut], out, err, p, lines)
			}
		}
	}
	for name, c := range map[string]struct {
		map_ string
		want error
	}{
		"empty.map":  {"", mementomap.ErrNoDataLine},
		"fields.map": {"!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\"]}\n!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\"]}\ncom,a)/ 1\n", mementomap.ErrFieldsTwice},
		"counts.map": {"com,example)/ 5/9\n", ukvs.ErrFrequency},
		"zero.map":   {"com,example)/ 0/0\n", ukvs.ErrFrequency},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.map_), 0o644)
		if out, _, err := runCmd(t, "", "check", p); !errors.Is(err, c.want) || !strings.Contains(err.Error(), p+": ukvs: line ") {
			t.Errorf("check %s: out %q, err %v; want %v naming the file and line", name, out, err, c.want)
		}
	}
	// stats refuses a map with no data line as check does: the same rule.
	for name, m := range map[string]string{"empty.map": "", "headers.map": "!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\"]}\n"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(m), 0o644)
		_, _, cerr := runCmd(t, "", "check", p)
		out, _, err := runCmd(t, "", "stats", p)
		if !errors.Is(err, mementomap.ErrNoDataLine) || !errors.Is(cerr, mementomap.ErrNoDataLine) || !strings.Contains(err.Error(), p+": ukvs: line 1: ") {
			t.Errorf("stats %s: out %q, err %v (check: %v); want ErrNoDataLine from both, naming the file and line 1", name, out, err, cerr)
		}
	}
}
