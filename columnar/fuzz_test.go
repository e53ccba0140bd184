package columnar

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
)

// FuzzRow: any line cdxj parses converts without panic, and its row comes
// back from a Parquet file unchanged.
func FuzzRow(f *testing.F) {
	for _, name := range sampledata.IndexFiles() {
		b, _ := sampledata.ReadFile(name)
		for i, l := range strings.Split(string(b), "\n") {
			if i < 8 {
				f.Add(l)
			}
		}
	}
	f.Add(`http://[::1]:0/x?y#z 2020 {"url": "dns:ÿ", "length": "99999999999999999", "status": "20 "}`)
	f.Add(`com,a)/ 20200101000000 {"url": "http://a.b.c.d.e.f.müller.blogspot.com./", "charset": "\u0000"}`)
	f.Fuzz(func(t *testing.T, line string) {
		rec, err := cdxj.ParseLine([]byte(line), nil)
		if err != nil {
			return
		}
		var row Row
		if err := NewConverter(nil).Row(&row, rec, "fuzz"); err != nil {
			return
		}
		var buf bytes.Buffer
		w := NewWriter(&buf, nil)
		if err := w.Write(&row); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		n := 0
		for got, err := range Rows(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "fuzz") {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if diff := cmp.Diff(&row, got); diff != "" {
				t.Errorf("%q (-written +read):\n%s", line, diff)
			}
		}
		if n != 1 {
			t.Errorf("%d rows read back, want 1", n)
		}
	})
}
