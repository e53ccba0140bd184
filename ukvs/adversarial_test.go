package ukvs

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriterRefusesWhatCheckRejects: a Writer must never write a document
// that Check then rejects. Before the fix, Write accepted any text in a
// "frequency" or "datetime" column ("abc", "", "2010:2009") and Check failed
// on the file it had just written.
func TestWriterRefusesWhatCheckRejects(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   error
	}{
		{"frequency not a number", []string{"abc", "-"}, ErrFrequency},
		{"frequency empty", []string{"", "-"}, ErrFrequency},
		{"frequency leading zero", []string{"00", "-"}, ErrFrequency},
		{"frequency double suffix", []string{"1+~", "-"}, ErrFrequency},
		{"datetime reversed range", []string{"1", "2010:2009"}, ErrDatetimeValue},
		{"datetime five digits", []string{"1", "20101"}, ErrDatetimeValue},
		{"datetime not a date", []string{"1", "20100230"}, ErrDatetimeValue},
		{"placeholders accepted", []string{"-", "-"}, nil},
		{"good values accepted", []string{"300+/20-", "2010:"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			if err := w.WriteHeader(HeaderFields, `{keys: ["surt"], values: ["frequency", "datetime"]}`); err != nil {
				t.Fatal(err)
			}
			err := w.Write([]string{"com,example)/"}, tc.values, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Write(%q) = %v, want %v", tc.values, err, tc.want)
			}
			var pe *ParseError
			if err != nil && (!errors.As(err, &pe) || pe.Line != 2) {
				t.Fatalf("Write error %v is not a *ParseError for line 2", err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			// Whatever was written must pass Check; the same holds for
			// WriteRecord given the record read back.
			if _, err := Check(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatalf("Check of written document: %v\n%s", err, buf.Bytes())
			}
		})
	}
}

func TestWriteRecordRefusesBadFrequency(t *testing.T) {
	rec := &Record{Keys: [][]byte{[]byte("a")}, Values: [][]byte{[]byte("1/2/3")}}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteRecord(rec); !errors.Is(err, ErrFrequency) {
		t.Fatalf("WriteRecord(1/2/3) = %v, want ErrFrequency", err)
	}
	// The refused line leaves the writer usable and nothing written.
	if err := w.WriteFrequency([]byte("a"), Frequency{URIM: Exactly(1)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "a 1\n" {
		t.Fatalf("written %q, want %q", got, "a 1\n")
	}
}

// TestReaderSkipsByteOrderMark: a map saved by a Windows editor starts with
// a UTF-8 byte order mark. Before the fix it became part of the first key
// ("\ufeffcom,example)/", so a lookup of "com,example)/" silently missed)
// or turned the first header into a data line.
func TestReaderSkipsByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	tests := []struct {
		name     string
		in       string
		wantKeys []string
		wantHdr  int
	}{
		{"before a data line", bom + "com,example)/ 1\ncom,example)/a 2\n", []string{"com,example)/", "com,example)/a"}, 0},
		{"before a header", bom + "!fields {keys: [\"surt\"], values: [\"frequency\"]}\r\ncom,example)/ 1\r\n", []string{"com,example)/"}, 1},
		{"only at the start", "a 1\n" + bom + "b 2\n", []string{"a", bom + "b"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in))
			hs, err := r.Headers()
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) != tc.wantHdr {
				t.Errorf("%d headers, want %d", len(hs), tc.wantHdr)
			}
			var keys []string
			for rec, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, string(rec.Key()))
			}
			if diff := cmp.Diff(tc.wantKeys, keys); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if r.Offset() != int64(len(tc.in)) {
				t.Errorf("Offset = %d, want %d", r.Offset(), len(tc.in))
			}
		})
	}
}
