package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/mementomap"
)

// TestCompactPathDepthOne compacts with -pdepth 1 a map whose keys have
// two path segments, which once panicked.
func TestCompactPathDepthOne(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ukvs")
	if err := os.WriteFile(in, []byte("com,example)/a/b 1\ncom,example)/a/c 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-pdepth", "1"}, {"-pdepth", "1", "-hdepth", "1"}, {"-pdepth", "1", "-pcf", "0", "-hcf", "0"}} {
		out, _, err := runCmd(t, "", append(append([]string{"compact", "-q"}, args...), in, "-")...)
		if err != nil {
			t.Fatalf("compact %v: %v", args, err)
		}
		if out != "com,example)/a/b 1\ncom,example)/a/c 2\n" {
			t.Errorf("compact %v = %q", args, out)
		}
	}
}

// entries lists dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestLongKeyRefused: a 100 MiB key line is refused by merge and compact,
// naming the input and the line, and nothing is written (a map that check
// and the aggregator would refuse is never made).
func TestLongKeyRefused(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.ukvs")
	f, err := os.Create(long)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("com,a)/ 1\ncom,b)/")
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 100 {
		f.Write(chunk)
	}
	f.WriteString(" 1\ncom,c)/ 1\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.ukvs")
	os.WriteFile(small, []byte("com,b)/ 2\n"), 0o644)
	out := filepath.Join(dir, "out.ukvs")
	for _, args := range [][]string{
		{"merge", "-q", "-o", out, small, long},
		{"compact", "-q", long, out},
		{"check", long},
	} {
		t.Run(args[0], func(t *testing.T) {
			_, _, err := runCmd(t, "", args...)
			if !errors.Is(err, mementomap.ErrLineTooLong) && !strings.Contains(fmt.Sprint(err), "line too long") {
				t.Fatalf("%v: %v, want a line-too-long error", args, err)
			}
			if !strings.Contains(err.Error(), long) || !strings.Contains(err.Error(), "line 2") {
				t.Errorf("%v: %q does not name the file and line 2", args, err)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an output was written: %v", err)
			}
		})
	}
	if e := entries(t, dir); len(e) != 2 {
		t.Errorf("folder: %v", e)
	}
}

// TestErrorsNameTheFile: compact and merge say which input is at fault.
func TestErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ukvs")
	os.WriteFile(bad, []byte("com,b)/ 1\ncom,a)/ 1\n"), 0o644)
	freq := filepath.Join(dir, "freq.ukvs")
	os.WriteFile(freq, []byte("com,a)/ many\n"), 0o644)
	good := filepath.Join(dir, "good.ukvs")
	os.WriteFile(good, []byte("com,a)/ 1\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"compact unsorted", []string{"compact", "-q", bad, "-"}, bad + ": line 2"},
		{"compact bad frequency", []string{"compact", "-q", freq, "-"}, freq + ": line 1"},
		{"merge second unsorted", []string{"merge", "-q", good, bad}, bad + ": line 2"},
		{"merge first unsorted", []string{"merge", "-q", bad, good}, bad + ": line 2"},
		{"merge bad frequency", []string{"merge", "-q", good, freq}, freq + ": line 1"},
		{"compact from stdin", []string{"compact", "-q", "-", "-"}, "standard input: line 2"},
		{"lookup on a folder", []string{"lookup", dir, "com,a)/"}, dir + ": not a regular file (it is a directory)"},
		{"check a folder", []string{"check", dir}, "it is a directory"},
		{"stats a folder", []string{"stats", dir}, "it is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCmd(t, "com,b)/ 1\ncom,a)/ 1\n", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// truncatingReader yields first, truncates path, then yields rest.
type truncatingReader struct {
	first, rest io.Reader
	path        string
	done        bool
}

func (r *truncatingReader) Read(p []byte) (int, error) {
	n, err := r.first.Read(p)
	if err == io.EOF {
		if !r.done {
			r.done = true
			if terr := os.Truncate(r.path, 0); terr != nil {
				return 0, terr
			}
		}
		return r.rest.Read(p)
	}
	return n, err
}

// TestLookupMapTruncated: the map truncated under a running lookup: the
// answers given so far are written, then lookup stops with an error that
// says what happened, instead of dying of SIGBUS.
func TestLookupMapTruncated(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.ukvs")
	var b bytes.Buffer
	for i := range 200000 {
		fmt.Fprintf(&b, "com,h%06d)/ 1\n", i)
	}
	os.WriteFile(p, b.Bytes(), 0o644)
	first := "com,h000001)/\ncom,h100000)/\n"
	in := &truncatingReader{first: strings.NewReader(first), rest: strings.NewReader("com,h199999)/\ncom,h150000)/\n"), path: p}
	var out, errb bytes.Buffer
	err := run(t.Context(), []string{"lookup", p}, in, &out, &errb)
	if !errors.Is(err, mementomap.ErrChanged) {
		t.Fatalf("lookup = %v, want ErrChanged", err)
	}
	if want := "com,h000001)/\tcom,h000001)/\t1\ncom,h100000)/\tcom,h100000)/\t1\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("output %q, want the answers before the truncation", out.String())
	}
}

// TestInputCutWhileRead: an input file truncated while compact reads it
// (the reader sees an early end: a shorter map, valid but missing keys) is
// noticed, and no output is written.
func TestInputCutWhileRead(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ukvs")
	write := func() {
		f, err := os.Create(in)
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		for i := range 1_000_000 {
			fmt.Fprintf(bw, "com,example,h%07d)/some/path/of/a/page %d/1\n", i, 1+i%7)
		}
		bw.Flush()
		f.Close()
	}
	const lineLen = int64(len("com,example,h0000000)/some/path/of/a/page 1/1\n"))
	for _, tc := range []struct {
		name string
		at   int64
	}{{"at a line end", 20000 * lineLen}, {"inside a line", 20000*lineLen + 7}} {
		t.Run(tc.name, func(t *testing.T) {
			write()
			out := filepath.Join(dir, "out.ukvs")
			go func() {
				time.Sleep(20 * time.Millisecond)
				os.Truncate(in, tc.at)
			}()
			_, _, err := runCmd(t, "", "compact", "-q", in, out)
			if err == nil || !strings.Contains(err.Error(), "changed while it was read") || !strings.Contains(err.Error(), in) {
				t.Fatalf("compact of a file cut under it: %v, want the change reported", err)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an output was written: %v", err)
			}
		})
	}
}
