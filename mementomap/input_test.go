package mementomap

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenInput(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("com,example)/a 20200101000000 {\"url\": \"http://example.com/a\"}\n", 700000) // > 32 MiB: pages are released
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("part one\n"))
	zw.Close()
	zw = gzip.NewWriter(&gz) // a second member: multistream
	zw.Write([]byte("part two\n"))
	zw.Close()
	files := map[string][]byte{"plain": []byte("a\nb\n"), "empty": nil, "big": []byte(big), "multi.gz": gz.Bytes()}
	want := map[string]string{"plain": "a\nb\n", "empty": "", "big": big, "multi.gz": "part one\npart two\n"}
	for name, b := range files {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			rc, err := OpenInput(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			if err := rc.Close(); err != nil {
				t.Fatal(err)
			}
			if string(got) != want[name] {
				t.Errorf("read %d bytes, want %d", len(got), len(want[name]))
			}
			if after, _ := os.ReadFile(p); !bytes.Equal(after, b) {
				t.Error("input file changed")
			}
		})
	}
	if _, err := OpenInput(filepath.Join(dir, "missing")); err == nil {
		t.Error("no error for a missing file")
	}
}
