package cdxj

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func gz(t *testing.T, parts ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestOpenFile(t *testing.T) {
	plain := readSample(t, "openwayback_archive-org.cdx")
	want, _ := readAll(t, NewReader(bytes.NewReader(plain)))
	half := len(plain)/2 + 17 // a member boundary in the middle of a line
	dir := t.TempDir()
	files := map[string][]byte{
		"plain.cdx":           plain,
		"single.cdx.gz":       gz(t, string(plain)),
		"multistream.cdx.gz":  gz(t, string(plain[:half]), string(plain[half:])),
		"gzip-without-suffix": gz(t, string(plain[:100]), string(plain[100:half]), string(plain[half:])),
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, bad := readAll(t, NewReader(f))
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if len(bad) > 0 {
				t.Fatalf("bad lines %v", bad)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-plain +%s):\n%s", name, diff)
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(after, data) {
				t.Errorf("input changed or unreadable: %v", err)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		if _, err := OpenFile(filepath.Join(dir, "none")); !os.IsNotExist(err) {
			t.Errorf("OpenFile = %v, want a not-exist error", err)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		path := filepath.Join(dir, "empty")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, bad := readAll(t, NewReader(f))
		if len(got)+len(bad) != 0 {
			t.Errorf("records %v, bad %v from an empty file", got, bad)
		}
	})
	t.Run("truncated gzip", func(t *testing.T) {
		data := files["single.cdx.gz"]
		r, err := NewDecompressor(bytes.NewReader(data[:len(data)/2]))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		n := 0
		var last error
		for _, err := range NewReader(r).All() {
			n++
			last = err
		}
		if last == nil {
			t.Errorf("read %d elements of a truncated gzip stream without an error", n)
		}
	})
}
