package sampledata

import (
	"bytes"
	"testing"
)

// The line counts are those of the provenance table in real/README.md.
func TestIndexFilesMatchProvenance(t *testing.T) {
	want := map[string]int{
		"real/openwayback_archive-org.cdx":               2144,
		"real/ia_cdxapi_from-json.cdx7":                  11,
		"real/cc_commoncrawl-org_from-cdxapi.cdxj":       34,
		"real/cdxjindexer_example-warc_all-records.cdxj": 6,
		"real/cdxjindexer_example-warc.cdx9":             3,
		"real/cdxjindexer_bad-arc.cdx":                   4,
		"real/cdxjindexer_post-append.cdxj":              6,
		"real/ipwb_sample-1.cdxj":                        67,
		"real/ipwb_5mementos-timemap.cdxj":               11,
	}
	got := IndexFiles()
	if len(got) != len(want) {
		t.Fatalf("IndexFiles() = %d files %v, want %d", len(got), got, len(want))
	}
	for _, name := range got {
		b, err := ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n != want[name] {
			t.Errorf("%s: %d lines, want %d", name, n, want[name])
		}
	}
}
