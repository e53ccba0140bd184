package mementomap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
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
