package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/mementomap"
)

func runCmd(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func TestPipeline(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	lk := filepath.Join(dir, "lookups.txt")
	var b bytes.Buffer
	cfg := cdxgen.Config{Lines: 20000, Seed: 5}
	if _, err := cdxgen.New(cfg).Write(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(idx, b.Bytes(), 0o644)
	b.Reset()
	if _, err := cdxgen.WriteLookups(&b, cfg, cdxgen.LookupConfig{N: 500, Held: 0.5}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(lk, b.Bytes(), 0o644)
	base := filepath.Join(dir, "base.ukvs")
	small := filepath.Join(dir, "small.ukvs")
	merged := filepath.Join(dir, "merged.ukvs")

	steps := []struct {
		name string
		args []string
		want string // a substring of stdout
	}{
		{"build", []string{"build", "-q", "-o", base, "-archive-id", "https://arquivo.pt/", idx}, ""},
		{"check base", []string{"check", base}, "ok,"},
		{"compact", []string{"compact", "-q", "-hcf", "0.5", "-pcf", "0.5", base, small}, ""},
		{"check compacted", []string{"check", small}, "sorted"},
		{"eval", []string{"eval", "-q", "-lookups", lk, small, idx}, "recall\t1.0000"},
		{"merge", []string{"merge", "-q", "-o", merged, base, small}, ""},
		{"stats", []string{"stats", small}, "path wildcards"},
	}
	for _, s := range steps {
		out, errOut, err := runCmd(t, "", s.args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, errOut)
		}
		if !strings.Contains(out, s.want) {
			t.Errorf("%s: output %q lacks %q", s.name, out, s.want)
		}
	}
	// Lookups from arguments and from stdin give one line per input, in order.
	out, _, err := runCmd(t, "http://nowhere.example/\n", "lookup", small)
	if err != nil || out != "http://nowhere.example/\t-\t-\n" {
		t.Errorf("lookup from stdin = %q, %v", out, err)
	}
	first, _, _ := strings.Cut(b.String(), "\n")
	out, _, err = runCmd(t, "", "lookup", small, first, "com,nowhere)/")
	if err != nil || strings.Count(out, "\n") != 2 || !strings.HasPrefix(out, first+"\t") {
		t.Errorf("lookup from arguments = %q, %v", out, err)
	}
	if fi, err := os.Stat(base); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("output mode = %v, %v; want 0644", fi.Mode(), err)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestEvalReportsFalseNegatives(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "i.cdxj")
	os.WriteFile(idx, []byte("com,a)/ 20200101000000 {\"url\": \"http://a.com/\"}\ncom,b)/ 20200101000000 {\"url\": \"http://b.com/\"}\n"), 0o644)
	bad := filepath.Join(dir, "bad.ukvs")
	os.WriteFile(bad, []byte("com,a)/ 1/1\n"), 0o644) // misses b.com
	lk := filepath.Join(dir, "l.txt")
	os.WriteFile(lk, []byte("http://a.com/\nhttp://b.com/\n"), 0o644)
	out, _, err := runCmd(t, "", "eval", "-q", "-lookups", lk, bad, idx)
	if !errors.Is(err, mementomap.ErrFalseNegative) {
		t.Fatalf("err = %v, want ErrFalseNegative", err)
	}
	if !strings.Contains(out, "recall\t0.5000") {
		t.Errorf("output %q lacks the recall", out)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	unsorted := filepath.Join(dir, "u.ukvs")
	os.WriteFile(unsorted, []byte("com,b)/ 1\ncom,a)/ 1\n"), 0o644)
	out := filepath.Join(dir, "out.ukvs")
	index := filepath.Join(dir, "index.cdxj")
	const indexLine = "com,example)/ 20200101000000 {\"url\":\"http://example.com/\",\"status\":\"200\"}\n"
	os.WriteFile(index, []byte(indexLine), 0o644)
	cr := filepath.Join(dir, "cr.ukvs")
	os.WriteFile(cr, []byte("com,a)/ 1\rcom,b)/ 1\r"), 0o644)
	link := filepath.Join(dir, "link.ukvs")
	if err := os.Symlink(unsorted, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"build without index", []string{"build"}, "no index"},
		{"compact one argument", []string{"compact", unsorted}, "want IN and OUT"},
		{"compact unsorted", []string{"compact", unsorted, out}, "out of byte-wise order"},
		{"check unsorted", []string{"check", unsorted}, "order"},
		{"missing map", []string{"lookup", filepath.Join(dir, "none")}, "no such file"},
		{"bad progress", []string{"stats", "-progress", "maybe", unsorted}, "-progress"},
		{"check lone CR", []string{"check", cr}, "lone CR"},
		{"lookup lone CR", []string{"lookup", cr, "com,b)/"}, "lone CR"},
		{"build over its input", []string{"build", "-q", "-o", index, index}, "is the input"},
		{"compact over its input through a symlink", []string{"compact", "-q", unsorted, link}, "is the input"},
		{"merge over an input", []string{"merge", "-q", "-o", unsorted, index, unsorted}, "is the input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, "", tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed compaction left %s behind (%v)", out, err)
	}
	if b, _ := os.ReadFile(index); string(b) != indexLine {
		t.Errorf("build with -o naming its input changed it: %q", b)
	}
}

func TestCompactReferenceMode(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ukvs")
	var b strings.Builder
	for _, s := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		b.WriteString("uk,co," + s + ")/ 1\n")
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	out, _, err := runCmd(t, "", "compact", "-q", "-reference", in, "-")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("uk,co,* 12\n", out); d != "" {
		t.Errorf("reference compaction (-want +got):\n%s", d)
	}
}

// TestMergeShards: merge takes any number of maps; the maps of three
// shards of an index cut at host boundaries merge into the data lines of
// the whole index's map, URI-R counts exact; maps sharing keys merge with
// their URI-R counts marked as upper bounds.
func TestMergeShards(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 6000, Seed: 4}).Write(&b); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(dir, "index.cdxj")
	os.WriteFile(whole, b.Bytes(), 0o644)
	lines := strings.SplitAfter(strings.TrimSuffix(b.String(), "\n"), "\n")
	// Cut before the first line of a new host at a third and two thirds.
	var shards []string
	start := 0
	for _, at := range []int{len(lines) / 3, 2 * len(lines) / 3, len(lines)} {
		for at < len(lines) && hostOf(lines[at]) == hostOf(lines[at-1]) {
			at++
		}
		p := filepath.Join(dir, "shard"+string(rune('0'+len(shards)))+".cdxj")
		os.WriteFile(p, []byte(strings.Join(lines[start:at], "")), 0o644)
		shards = append(shards, p)
		start = at
	}
	var maps []string
	for i, s := range append(shards, whole) {
		m := filepath.Join(dir, "map"+string(rune('0'+i))+".ukvs")
		if _, errOut, err := runCmd(t, "", "build", "-q", "-o", m, s); err != nil {
			t.Fatalf("build %s: %v\n%s", s, err, errOut)
		}
		maps = append(maps, m)
	}
	merged := filepath.Join(dir, "merged.ukvs")
	if _, errOut, err := runCmd(t, "", append([]string{"merge", "-q", "-o", merged}, maps[:3]...)...); err != nil {
		t.Fatalf("merge: %v\n%s", err, errOut)
	}
	data := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if l != "" && l[0] != '!' {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "")
	}
	if got, want := data(merged), data(maps[3]); got != want || len(want) < 1000 {
		t.Errorf("merge of three shard maps: %d bytes of data lines, the whole index's map %d", len(got), len(want))
	}
	// The whole map with a shard's map: shared keys, upper bounds.
	if _, errOut, err := runCmd(t, "", "merge", "-q", "-o", merged, maps[3], maps[0], maps[1]); err != nil {
		t.Fatalf("merge: %v\n%s", err, errOut)
	}
	if got := data(merged); !strings.Contains(got, "-\n") || strings.Count(got, "\n") != strings.Count(data(maps[3]), "\n") {
		t.Errorf("merge of overlapping maps: no upper-bound URI-R count, or lines lost:\n%.300s", got)
	}
}

func hostOf(line string) string {
	k, _, _ := strings.Cut(line, ")")
	return k
}

// TestBuildUpdatedAt: with -updated-at two builds of one index give the
// same bytes, the instant in !meta, whether it is written in RFC 3339 or as
// a timestamp of package timestamp's 4 to 17 digits; a malformed instant
// is refused. -mem takes a size with a unit and gives the same map.
func TestBuildUpdatedAt(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 2000, Seed: 3}).Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var maps [][]byte
	for i, args := range [][]string{
		{"-updated-at", "2026-12-01T00:00:00Z"},
		{"-updated-at", "20261201000000"},
		{"-updated-at", "202612", "-mem", "1MiB"},
		{"-updated-at", "20261201000000000", "-mem", "4096"},
	} {
		out := filepath.Join(dir, "m"+string(rune('0'+i)))
		if _, errOut, err := runCmd(t, "", append(append([]string{"build", "-q"}, args...), "-o", out, idx)...); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, errOut)
		}
		m, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m)
	}
	for i := 1; i < len(maps); i++ {
		if !bytes.Equal(maps[0], maps[i]) {
			t.Errorf("build %d differs from build 0: one -updated-at, one map", i)
		}
	}
	if !bytes.Contains(maps[0], []byte("2026-12-01T00:00:00Z")) {
		t.Errorf("the map's headers do not hold the instant:\n%.400s", maps[0])
	}
	if _, _, err := runCmd(t, "", "build", "-q", "-updated-at", "yesterday", "-o", filepath.Join(dir, "x"), idx); err == nil || !strings.Contains(err.Error(), "-updated-at") {
		t.Errorf("-updated-at yesterday: %v", err)
	}
	for _, bad := range [][]string{{"-updated-at", "20261301"}, {"-mem", "lots"}, {"-mem", "0"}} {
		if _, _, err := runCmd(t, "", append(append([]string{"build", "-q"}, bad...), "-o", filepath.Join(dir, "x"), idx)...); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%q: %v, want an error naming the flag", bad, err)
		}
	}
}
