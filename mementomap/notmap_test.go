package mementomap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// TestOpenRefusesNonMaps checks that files which are plainly not MementoMaps
// (a gzip-compressed map, CDX and CDXJ indexes, binary data, a map saved
// as UTF-16) are refused with ErrNotMap instead of answering absent for
// keys they hold, while real map shapes still open. Before, binary data
// and UTF-16 were refused as maps with lone CR line ends, or opened.
func TestOpenRefusesNonMaps(t *testing.T) {
	var binary []byte
	for i := range 4096 {
		binary = append(binary, byte(i*7)) // every byte value, from a NUL on
	}
	utf16 := []byte{0xff, 0xfe} // UTF-16LE with its byte order mark
	for _, c := range "org,archive)/ 2121/1\r\n" {
		utf16 = append(utf16, byte(c), 0)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("org,archive)/ 2121/1\n"))
	zw.Close()
	cdx, err := sampledata.ReadFile("real/openwayback_archive-org.cdx")
	if err != nil {
		t.Fatal(err)
	}
	cdxj, err := sampledata.ReadFile("real/cc_commoncrawl-org_from-cdxapi.cdxj")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		data    []byte
		notMap  bool
		present string // a URI the map holds, looked up when it opens
	}{
		{name: "gzip-compressed map", data: gz.Bytes(), notMap: true},
		{name: "classic CDX index", data: cdx, notMap: true},
		{name: "CDXJ index", data: cdxj, notMap: true},
		{name: "CDXJ index with headers", data: []byte("!context [\"x\"]\ncom,example)/ 20200101000000 {\"url\": \"http://example.com/\"}\n"), notMap: true},
		{name: "binary data", data: binary, notMap: true},
		{name: "map saved as UTF-16", data: utf16, notMap: true},
		{name: "plain map", data: []byte("org,archive)/ 2121/1\n"), present: "http://archive.org/"},
		{name: "map with JSON block", data: []byte("org,archive)/ 5 {\"note\": 1}\n"), present: "http://archive.org/"},
		{name: "map with !fields", data: []byte("!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\", \"datetime\"]}\norg,archive)/ 5 2014\n"), present: "http://archive.org/"},
		{name: "header-only map", data: []byte("!id {\"uri\": \"x\"}\n")},
		{name: "empty map", data: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "map")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Open(path)
			if tc.notMap {
				if !errors.Is(err, ErrNotMap) {
					t.Fatalf("Open = %v, want ErrNotMap", err)
				}
				if _, err := FromBytes(tc.data).Lookup("http://archive.org/"); !errors.Is(err, ErrNotMap) {
					t.Errorf("FromBytes lookup error = %v, want ErrNotMap", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer m.Close()
			if tc.present == "" {
				return
			}
			match, err := m.Lookup(tc.present)
			if err != nil || !match.Present() {
				t.Errorf("Lookup(%q) = %+v, %v; want present", tc.present, match, err)
			}
		})
	}
}

// TestOpenRefusesRandomBytes: random bytes are "not a MementoMap (UKVS)
// file", with the offset of the first control byte, however their first
// line happens to end. Before, a file of random bytes whose first line held
// a CR and no NUL was refused as a map with lone CR line ends (convert it
// to LF), and one whose first line was clean as a map cut short.
func TestOpenRefusesRandomBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 5))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	dir := t.TempDir()
	check := func(t *testing.T, name string, data []byte, at int) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path)
		want := fmt.Sprintf("mementomap: %s: not a MementoMap (UKVS) file: byte %d is %#02x, a control byte that no map's text holds (binary data, or UTF-16 text?)", path, at, data[at])
		if !errors.Is(err, ErrNotMap) || err.Error() != want {
			t.Errorf("Open(%s) = %v, want %q", name, err, want)
		}
		if errors.Is(err, ErrLoneCR) || errors.Is(err, ErrNoLineEnd) {
			t.Errorf("Open(%s) = %v: random bytes taken for a map", name, err)
		}
		// Read as a stream (compact, merge), the same, at its line.
		line := bytes.Count(data[:at], []byte{'\n'}) + 1
		want = fmt.Sprintf("mementomap: %s: line %d: not a MementoMap (UKVS) file: byte %d is %#02x, a control byte that no map's text holds (binary data, or UTF-16 text?)", path, line, at, data[at])
		for _, op := range []string{"Compact", "Merge"} {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if op == "Compact" {
				_, err = Compact(io.Discard, f, nil)
			} else {
				_, err = Merge(io.Discard, strings.NewReader(""), f)
			}
			f.Close()
			if !errors.Is(err, ErrNotMap) || err.Error() != want {
				t.Errorf("%s(%s) = %v, want %q", op, name, err, want)
			}
		}
	}
	firstControl := func(b []byte, from int) int {
		for i := from; i < len(b); i++ {
			if c := b[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' {
				return i
			}
		}
		t.Fatal("no control byte")
		return -1
	}
	t.Run("lone CR in a clean first line", func(t *testing.T) {
		head := []byte("com,example)/ 1\rzz 2\n")
		data := append(head, random(64<<10)...)
		check(t, "cr.map", data, firstControl(data, len(head)))
	})
	t.Run("clean first line, no line end at the end", func(t *testing.T) {
		head := []byte("com,example)/ 1\n")
		data := append(head, random(64<<10)...)
		if data[len(data)-1] == '\n' {
			data[len(data)-1] = 'x'
		}
		check(t, "cut.map", data, firstControl(data, len(head)))
	})
	t.Run("random files", func(t *testing.T) {
		for i := range 200 {
			data := random(64 << 10)
			if data[0] == 0x1f {
				data[0] = 0 // not gzip's magic number
			}
			if bytes.HasPrefix(data, []byte(utf8BOM)) {
				data[0] = 0
			}
			check(t, fmt.Sprintf("r%d.map", i), data, firstControl(data, 0))
		}
	})
}
