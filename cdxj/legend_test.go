package cdxj

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// otherColumns collects rec.OtherColumns as "name=value" strings.
func otherColumns(rec *Record) []string {
	var out []string
	rec.OtherColumns(func(name string, v []byte) bool {
		out = append(out, name+"="+string(v))
		return true
	})
	return out
}

func TestOtherColumns(t *testing.T) {
	tests := []struct {
		name, header, line string
		want               []string
	}{
		{"wget u column", " CDX a b a m s k r M V g u",
			"http://example.com/ 20240101120000 http://example.com/ text/html 200 XYZ - - 0 x.warc.gz <urn:uuid:1>",
			[]string{"warc_record_id=<urn:uuid:1>"}},
		{"IA default legend", " CDX A b e a m s c k r V v D d g M n",
			"com,example)/ 20240101120000 1.2.3.4 http://example.com/ text/html 200 OLD NEW - 10 20 30 40 f.arc - 99",
			[]string{"ip=1.2.3.4", "old_checksum=OLD", "uncompressed_offset=20", "compressed_dat_offset=30", "dat_offset=40"}},
		{"unknown letter and a second a", " CDX N b a a W m s",
			"com,example)/ 20240101120000 http://example.com/ http://example.com/x q text/html 200",
			[]string{"original_url=http://example.com/x", "W=q"}},
		{"names made unique", " CDX N b e e url m",
			"com,example)/ 20240101120000 1.2.3.4 5.6.7.8 u text/html",
			[]string{"ip=1.2.3.4", "ip_4=5.6.7.8", "url_5=u"}},
		{"unknown value passed over", " CDX a b a m s k r M V g u",
			"http://example.com/ 20240101120000 http://example.com/ text/html 200 XYZ - - 0 x.warc.gz -", nil},
		{"headerless layout has none", "",
			"com,example)/ 20240101120000 http://example.com/ text/html 200 XYZ - - 10 0 x.warc.gz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.header + "\n" + tt.line + "\n"))
			rec, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, otherColumns(rec)); diff != "" {
				t.Errorf("OtherColumns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, otherColumns(rec.Clone())); diff != "" {
				t.Errorf("OtherColumns of a clone (-want +got):\n%s", diff)
			}
			line, err := AppendLine(nil, nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range tt.want {
				name, v, _ := strings.Cut(kv, "=")
				if m := `"` + name + `": "` + v + `"`; !bytes.Contains(line, []byte(m)) {
					t.Errorf("AppendLine = %s, want it to hold %s", line, m)
				}
			}
		})
	}
}

// TestWgetRecordIDs reads a CDX that GNU Wget wrote with the WARC it
// indexes: every line's u column is kept, and it is the WARC-Record-ID of
// the record at the line's offset.
func TestWgetRecordIDs(t *testing.T) {
	cdx, err := os.Open("testdata/wget/wgsample.cdx")
	if err != nil {
		t.Fatal(err)
	}
	defer cdx.Close()
	warc, err := os.ReadFile("testdata/wget/wgsample.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(cdx)
	n := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		var id string
		rec.OtherColumns(func(name string, v []byte) bool {
			if name == "warc_record_id" {
				id = string(v)
			}
			return true
		})
		off, ok := rec.Offset()
		if !ok || id == "" {
			t.Fatalf("line %d: offset %d (%v), record id %q", rec.LineNumber(), off, ok, id)
		}
		zr, err := gzip.NewReader(bytes.NewReader(warc[off:]))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		br := bufio.NewReader(zr)
		var got string
		for {
			l, err := br.ReadString('\n')
			if v, ok := strings.CutPrefix(l, "WARC-Record-ID: "); ok {
				got = strings.TrimSpace(v)
			}
			if err != nil || strings.TrimSpace(l) == "" {
				break
			}
		}
		if got != id {
			t.Errorf("line %d: u column %q, the WARC record at offset %d has id %q", rec.LineNumber(), id, off, got)
		}
		line, err := AppendLine(nil, nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(line, []byte(`"warc_record_id": "`+id+`"`)) {
			t.Errorf("AppendLine dropped the record id: %s", line)
		}
	}
	if n != 3 {
		t.Errorf("read %d records, want 3", n)
	}
}
