package cdxj

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// withBlankLines returns lines as index text with a blank line ("\n" or
// "\r\n") after every 7th line and a trailing blank line, and the number
// of blank lines it holds.
func withBlankLines(lines []string) (string, int64) {
	var b strings.Builder
	var n int64
	for i, l := range lines {
		b.WriteString(l + "\n")
		if i%7 == 3 {
			b.WriteString([]string{"\n", "\r\n"}[i%2])
			n++
		}
	}
	b.WriteString("\n")
	return b.String(), n + 1
}

// blankCluster writes text as a cluster of one hand-made block (the
// cluster writer refuses blank lines; other tools' blocks may hold them).
func blankCluster(t *testing.T, text string) *Cluster {
	t.Helper()
	dir := t.TempDir()
	block := gzipMember(t, text)
	if err := os.WriteFile(filepath.Join(dir, "c-00000.gz"), block, 0o644); err != nil {
		t.Fatal(err)
	}
	first := strings.Join(strings.SplitN(text, " ", 3)[:2], " ")
	idx := fmt.Sprintf("%s\tc-00000.gz\t0\t%d\t1\n", first, len(block))
	if err := os.WriteFile(filepath.Join(dir, "c.idx"), []byte(idx), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCluster(filepath.Join(dir, "c.idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestBlankLinesCounted: a blank line of an index (a file, plain or gzip,
// a stream, a ZipNum block) holds no record and is no error; every walk
// and query counts the ones it passes over in Query.Blank, and the parts
// of an index count each once. A line of spaces is a bad line, not a
// blank one.
func TestBlankLinesCounted(t *testing.T) {
	lines := hostLines(60, 5)
	text, blanks := withBlankLines(lines)
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.cdxj")
	gz := filepath.Join(dir, "a.cdxj.gz")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gz, gzipMember(t, text), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(name string) Index {
		ix, err := Open(context.Background(), name, &OpenOptions{Stdin: strings.NewReader(text)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	indexes := map[string]Index{"plain": open(plain), "gzip": open(gz), "stream": open("-"), "zipnum": blankCluster(t, text)}
	for name, ix := range indexes {
		var n int64
		var got []string
		for rec, err := range ix.Records(Query{Blank: &n}) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, string(rec.Line()))
		}
		if !slices.Equal(got, lines) || n != blanks {
			t.Errorf("%s: a whole walk read %d records and counted %d blank lines, want %d and %d", name, len(got), n, len(lines), blanks)
		}
		if name == "stream" {
			continue
		}
		n = 0
		for _, err := range ix.Lines(Query{Blank: &n}) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if n != blanks {
			t.Errorf("%s: Lines of the whole index counted %d blank lines, want %d", name, n, blanks)
		}
		// A key-range query counts the blank lines it reads: here the one
		// after line 3 (the 4th line, host 000's p3).
		n = 0
		for _, err := range ix.Records(Query{Key: "com,h000)/", Match: MatchHost, Blank: &n}) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if n != 1 {
			t.Errorf("%s: a host query counted %d blank lines, want 1", name, n)
		}
	}

	// The parts of a file (byte ranges) and of a cluster (inside its one
	// block) count each blank line once.
	for _, name := range []string{"plain", "zipnum"} {
		ix := indexes[name]
		parts, err := Plan(context.Background(), []Index{ix}, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) < 5 {
			t.Fatalf("%s: %d parts: %v", name, len(parts), parts)
		}
		var sum int64
		var got []string
		for _, p := range parts {
			for rec, err := range PartRecordsBlank(ix, p, &sum) {
				if err != nil {
					t.Fatalf("%s: %s: %v", name, p, err)
				}
				got = append(got, string(rec.Line()))
			}
		}
		if !slices.Equal(got, lines) || sum != blanks {
			t.Errorf("%s: %d parts read %d records and counted %d blank lines, want %d and %d", name, len(parts), len(got), sum, len(lines), blanks)
		}
	}

	// A line of spaces is a bad line, wherever it is read: here line 13,
	// after the 11th record.
	spaced := strings.Replace(text, "\n\n", "\n  \n", 1)
	if err := os.WriteFile(plain, []byte(spaced), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, ix := range map[string]Index{"plain": open(plain), "zipnum": blankCluster(t, spaced)} {
		var bad *ParseError
		for _, err := range ix.Records(Query{}) {
			if err != nil && !errors.As(err, &bad) {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if bad == nil || bad.Line != 13 {
			t.Errorf("%s: the line of spaces gave %v, want a *ParseError naming line 13", name, bad)
		}
		var raw [][]byte
		for line, err := range ix.Lines(Query{}) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			raw = append(raw, bytes.Clone(line))
		}
		if len(raw) != len(lines)+1 || string(raw[11]) != "  " {
			t.Errorf("%s: Lines yielded %d lines, want the %d records and the line of spaces", name, len(raw), len(lines))
		}
	}
}
