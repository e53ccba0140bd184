package mementomap

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/ukvs"
)

// TestCheckMapCutLastLine cuts a built map at every byte of its last line
// ("10/3" would read as "1/" or "1"): CheckMap, Map.Check and Open refuse
// every cut, naming the file and the last line.
func TestCheckMapCutLastLine(t *testing.T) {
	var idx strings.Builder
	for i := range 10 {
		fmt.Fprintf(&idx, "org,foo)/ 2020010100000%d {\"url\": \"http://foo.org/\", \"status\": \"200\"}\n", i)
	}
	for _, p := range []string{"a", "b", "c"} {
		fmt.Fprintf(&idx, "org,foo)/%s 20200101000000 {\"url\": \"http://foo.org/%s\", \"status\": \"200\"}\n", p, p)
	}
	full, _ := buildString(t, BuildOptions{}, idx.String())
	if !strings.HasSuffix(full, "org,foo)/c 1/1\n") || !strings.Contains(full, "org,foo)/ 10/1\n") {
		t.Fatalf("built map is not the expected shape:\n%s", full)
	}
	if n, err := CheckMap("a.map", strings.NewReader(full)); err != nil || n != 4 {
		t.Fatalf("CheckMap(whole map) = %d, %v; want 4 data lines", n, err)
	}
	lines := int64(strings.Count(full, "\n"))
	lastStart := strings.LastIndex(full[:len(full)-1], "\n") + 1
	for cut := lastStart + 1; cut < len(full); cut++ {
		b := full[:cut]
		wantLine := fmt.Sprintf("line %d:", lines)
		_, err := CheckMap("t.map", strings.NewReader(b))
		if !errors.Is(err, ErrNoLineEnd) || !strings.HasPrefix(err.Error(), "t.map: ukvs: "+wantLine) {
			t.Errorf("CheckMap(cut at %d, %q) = %v; want t.map %s ErrNoLineEnd", cut, b[lastStart:], err, wantLine)
		}
		path := writeMap(t, b)
		m, err := Open(path)
		if err == nil {
			_, err = m.Check()
			m.Close()
		}
		var pe *ukvs.ParseError
		if !errors.Is(err, ErrNoLineEnd) || !strings.Contains(err.Error(), path) || !errors.As(err, &pe) || pe.Line != lines {
			t.Errorf("Open(cut at %d, %q) = %v; want %s line %d ErrNoLineEnd", cut, b[lastStart:], err, path, lines)
		}
	}
	// A cut at a line end leaves a well-formed, shorter map.
	if n, err := CheckMap("t.map", strings.NewReader(full[:lastStart])); err != nil || n != 3 {
		t.Errorf("CheckMap(cut at a line end) = %d, %v; want 3 data lines", n, err)
	}
}

// TestCheckMapRefuses: one rule refuses what lookups or the aggregator
// would misread, naming the line.
func TestCheckMapRefuses(t *testing.T) {
	const f = `!fields {"keys": ["surt"], "values": ["frequency"]}` + "\n"
	tests := []struct {
		name, map_ string
		want       error
		line       string
	}{
		{"empty file", "", ErrNoDataLine, "line 1:"},
		{"headers only", "!meta {}\n", ErrNoDataLine, "line 1:"},
		{"doubled !fields", f + f + "com,a)/ 1\n", ErrFieldsTwice, "line 2, column 1:"},
		{"doubled !fields after a bad header", "!meta {\n" + f + f + "com,a)/ 1\n", ukvs.ErrJSON, "line 1"},
		{"more URI-Rs than mementos", "com,a)/ 1\ncom,example)/ 5/9\n", ukvs.ErrFrequency, "line 2, column 15:"},
		{"0/0", "com,a)/ 0/0\n", ukvs.ErrFrequency, "line 1, column 9:"},
		{"0/20", "com,a)/ 0/20\n", ukvs.ErrFrequency, "line 1, column 9:"},
		{"mementos of no URI-R", "com,a)/ 5/0\n", ukvs.ErrFrequency, "line 1, column 9:"},
		{"no line end", f + "com,a)/ 10/3\ncom,b)/ 1", ErrNoLineEnd, "line 3:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CheckMap("x.map", strings.NewReader(tt.map_))
			if !errors.Is(err, tt.want) || !strings.HasPrefix(err.Error(), "x.map: ukvs: "+tt.line) {
				t.Errorf("CheckMap = %v; want x.map %s %v", err, tt.line, tt.want)
			}
		})
	}
	for _, ok := range []string{"com,a)/ 0\n", "com,a)/ 5/5\r\n", "com,example)/ 9/5\n", "com,a)/ 300+/20-\ncom,b)/ 0-/5\ncom,c)/ /\n", f + "com,a)/ 1\n", "\xef\xbb\xbf" + f + "\n!meta {}\ncom,a)/ 2/1\n"} {
		if n, err := CheckMap("x.map", bytes.NewReader([]byte(ok))); err != nil || n == 0 {
			t.Errorf("CheckMap(%q) = %d, %v; want ok", ok, n, err)
		}
	}
}
