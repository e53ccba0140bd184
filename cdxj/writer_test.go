package cdxj

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriter(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{
			name: "pywb CDXJ is copied as is",
			in:   `com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:G7HR", "length": "1242", "offset": "784", "filename": "example.warc.gz", "method": "POST"}`,
			want: `com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:G7HR", "length": "1242", "offset": "784", "filename": "example.warc.gz", "method": "POST"}`,
		},
		{
			name: "classic CDX 11",
			in:   `org,example)/ 20120103092542 http://archive.org/ text/html 302 KON6 http://www.archive.org/index.php - 488 24136753 WIDE-1/W-3.warc.gz`,
			want: `org,example)/ 20120103092542 {"url": "http://archive.org/", "mime": "text/html", "status": "302", "digest": "KON6", "length": "488", "offset": "24136753", "filename": "WIDE-1/W-3.warc.gz", "redirect": "http://www.archive.org/index.php"}`,
		},
		{
			name: "CDX 14 keeps the original record",
			in:   `com,example)/ 2002012014 http://example.com/ warc/revisit - HT2D - - 10 786 c.warc.gz 1792 0 d.warc.gz`,
			want: `com,example)/ 2002012014 {"url": "http://example.com/", "mime": "warc/revisit", "digest": "HT2D", "length": "10", "offset": "786", "filename": "c.warc.gz", "orig.length": "1792", "orig.offset": "0", "orig.filename": "d.warc.gz"}`,
		},
		{
			name: "CDX-01 a space in the key is written %20",
			in:   `file:///ABCD-1234/source/Signal VIP.jpg 20150302104602 {"url":"file:///ABCD-1234/source/Signal VIP.jpg","mime":"image/jpeg"}`,
			want: `file:///ABCD-1234/source/Signal%20VIP.jpg 20150302104602 {"url": "file:///ABCD-1234/source/Signal VIP.jpg", "mime": "image/jpeg"}`,
		},
		{
			name: "ipwb names become pywb names, other members follow",
			in:   `com,yahoo,search)/mrss/ 20130411205500 {"locator": "urn:ipfs/Qm/Qm", "mime_type": "text/html", "status_code": "302"}`,
			want: `com,yahoo,search)/mrss/ 20130411205500 {"mime": "text/html", "status": "302", "locator": "urn:ipfs/Qm/Qm"}`,
		},
		{
			name: "escapes are decoded then re-encoded",
			in:   `com,example)/ 2017 {"url": "http://example.com/\u0026\"q\"\ttab", "length": 12, "extra": {"a": [1, "}"]}}`,
			want: `com,example)/ 2017 {"url": "http://example.com/&\"q\"\ttab", "length": "12", "extra": {"a": [1, "}"]}}`,
		},
		{
			name:    "invalid JSON is an error",
			in:      `20130202100000 {"uri": "u", "datetime"="Sat"}`,
			wantErr: ErrJSON,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := ParseLine([]byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			w := NewWriter(&out)
			err = w.Write(rec)
			if ferr := w.Flush(); ferr != nil {
				t.Fatal(ferr)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || out.Len() != 0 {
					t.Fatalf("Write error = %v, output %q; want %v and nothing written", err, out.String(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want+"\n", out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			back, err := ParseLine(bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil)
			if err != nil {
				t.Fatalf("output does not read back: %v", err)
			}
			if err := back.CheckJSON(); err != nil {
				t.Errorf("output JSON: %v", err)
			}
			a, b := summarize(rec), summarize(back)
			a.Key, b.Key = "", ""
			a.KeySURT, b.KeySURT, a.CDXJ, b.CDXJ = false, false, false, false
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("values changed (-in +out):\n%s", diff)
			}
		})
	}
}

// TestWriterRoundTripSamples: every shipped file written as CDXJ reads back
// with the same values.
func TestWriterRoundTripSamples(t *testing.T) {
	for _, name := range []string{"openwayback_archive-org.cdx", "cc_commoncrawl-org_from-cdxapi.cdxj", "ia_cdxapi_from-json.cdx7",
		"cdxjindexer_bad-arc.cdx", "cdxjindexer_example-warc.cdx9", "cdxjindexer_post-append.cdxj", "ipwb_sample-1.cdxj"} {
		t.Run(name, func(t *testing.T) {
			in := readSample(t, name)
			want, _ := readAll(t, NewReader(bytes.NewReader(in)))
			var out bytes.Buffer
			w := NewWriter(&out)
			r := NewReader(bytes.NewReader(in))
			r.ReuseRecord = true
			for rec, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			got, bad := readAll(t, NewReader(&out))
			if len(bad) > 0 {
				t.Fatalf("bad lines in output: %v", bad)
			}
			for i := range want {
				want[i].Line, want[i].CDXJ = 0, true
				got[i].Line = 0
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-read +written and read back):\n%s", diff)
			}
		})
	}
	t.Run("cdxj-indexer output is reproduced byte for byte", func(t *testing.T) {
		in := readSample(t, "cdxjindexer_example-warc_all-records.cdxj")
		var out bytes.Buffer
		w := NewWriter(&out)
		for rec, err := range NewReader(bytes.NewReader(in)).All() {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(in), out.String()); diff != "" {
			t.Errorf("(-in +out):\n%s", diff)
		}
	})
}

func TestWriteHeader(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, bad := range []string{"", "meta {}", "!meta\n{}", "!a\rb"} {
		if err := w.WriteHeader(bad); !errors.Is(err, ErrBadHeader) {
			t.Errorf("WriteHeader(%q) = %v, want ErrBadHeader", bad, err)
		}
	}
	if err := w.WriteHeader(`!meta {"generator": "mementokit"}`); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&out)
	if _, err := r.Read(); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("Read after a header only = %v, want EOF", err)
	}
	if diff := cmp.Diff([]string{`!meta {"generator": "mementokit"}`}, r.Header()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterErrorIsSticky(t *testing.T) {
	w := NewWriter(&failWriter{})
	rec, err := ParseLine([]byte("com,a)/ 2014 {}"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_ = w.Write(rec)
	}
	if err := w.Flush(); err == nil || w.Error() == nil {
		t.Fatalf("Flush = %v, Error = %v; want the write error", err, w.Error())
	}
	if err := w.Write(rec); err == nil {
		t.Error("Write after a failed flush succeeded")
	}
}

func TestAppendLineKeyEscapes(t *testing.T) {
	rec, err := ParseLine([]byte("com,a)/ 2014 {}"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, key, want string }{
		{"space", "a b", "a%20b 2014 {}\n"},
		{"line breaks", "a\nb\rc", "a%0Ab%0Dc 2014 {}\n"},
		{"empty", "", "- 2014 {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendLine(nil, []byte(tc.key), rec)
			if err != nil || string(got) != tc.want {
				t.Errorf("AppendLine(key %q) = %q, %v; want %q", tc.key, got, err, tc.want)
			}
		})
	}
}

func TestFieldBadEscape(t *testing.T) {
	rec, err := ParseLine([]byte(`k 2014 {"a": "\\x", "b": "\x"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	// A bad escape anywhere makes the block malformed: every field
	// names the string that holds it.
	for _, name := range []string{"a", "b"} {
		_, _, err = rec.Field(name)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrJSON) || pe.Column != 26 || !strings.Contains(err.Error(), `bad escape 'x' in the value of key "b"`) {
			t.Errorf(`Field(%q) error = %v, want ErrJSON at column 26 naming the escape and the key`, name, err)
		}
	}
	// The lazy accessors decode a good string before the fault.
	rec, err = ParseLine([]byte(`k 2014 {"mime": "a\/b", "b": "\x"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(rec.MIME()); got != "a/b" {
		t.Errorf("MIME() = %q, want a/b", got)
	}
}

func TestCheckJSON(t *testing.T) {
	tests := []struct {
		name, block string
		ok          bool
	}{
		{"empty object", `{}`, true},
		{"spaces", ` { "a" : 1 , "b" : "x" } `, true},
		{"nested", `{"a": {"b": [1, {"c": "]}"}]}, "d": null}`, true},
		{"escaped quote", `{"a": "x\"y", "b": 2}`, true},
		{"mismatched brackets", `{"a": [1}, "b": 2}`, false},
		{"missing colon", `{"a" 1}`, false},
		{"ipwb equals", `{"datetime"="Sat"}`, false},
		{"trailing comma", `{"a": 1,}`, false},
		{"text after", `{"a": 1} x`, false},
		{"unterminated", `{"a": "x`, false},
		{"member without a key", `{1}`, false},
		{"deep", `{"a": ` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, true},
		{"too deep", `{"a": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, false},
		{"numbers", `{"a": [0, -0, 1.5, -12e+3, 4E-2, 7e9]}`, true},
		{"leading zero", `{"a": 01}`, false},
		{"bare minus", `{"a": -}`, false},
		{"no fraction digit", `{"a": 1.}`, false},
		{"no exponent digit", `{"a": 1e}`, false},
		{"literals", `{"a": true, "b": false, "c": null}`, true},
		{"bad literal", `{"a": nul}`, false},
		{"capital literal", `{"a": True}`, false},
		{"control byte", "{\"a\": \"x\ty\"}", false},
		{"bad escape", `{"a": "\q"}`, false},
		{"short unicode escape", `{"a": "\u12"}`, false},
		{"unicode escape", `{"a": "\u00e9\ud83d\ude00"}`, true},
		{"invalid UTF-8", "{\"a\": \"\xff\xfe\"}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := ParseLine([]byte("k 2014 "+tt.block), nil)
			if err != nil {
				t.Fatal(err)
			}
			err = rec.CheckJSON()
			if (err == nil) != tt.ok {
				t.Errorf("CheckJSON(%s) = %v, want ok %v", tt.block, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrJSON) {
				t.Errorf("error %v does not wrap ErrJSON", err)
			}
		})
	}
}
