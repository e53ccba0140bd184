package cdxj_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/timestamp"
)

func ExampleReader() {
	in := `!meta {"generator": "example"}
com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "length": "1242"}
org,archive)/ 20120103092542 http://archive.org/ warc/revisit - KON6 - - 488 24136753 WIDE.warc.gz
`
	r := cdxj.NewReader(strings.NewReader(in))
	for rec, err := range r.All() {
		if err != nil {
			fmt.Println("bad line:", err)
			continue
		}
		n, _ := rec.Length()
		fmt.Printf("%s %s %s status=%d length=%d revisit=%v\n", rec.Key(), rec.Time().Format("2006-01-02"), rec.MIME(), rec.Status(), n, rec.IsRevisit())
	}
	fmt.Println(r.Header())
	// Output:
	// com,example)/ 2017-03-06 text/html status=200 length=1242 revisit=false
	// org,archive)/ 2012-01-03 warc/revisit status=0 length=488 revisit=true
	// [!meta {"generator": "example"}]
}

// A caller that skips bad lines and reports how many.
func ExampleReader_skipBad() {
	in := "com,example)/ 20170306040206 {}\n<urlopen error>\ncom,example)/ 20171306040206 {}\ncom,example)/a 2017 {}\n"
	r := cdxj.NewReader(strings.NewReader(in))
	r.SkipBad = true
	n := 0
	for _, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
	}
	fmt.Printf("%d records, %d bad lines skipped\n", n, r.Skipped())
	// Output: 2 records, 2 bad lines skipped
}

func ExampleParseError() {
	r := cdxj.NewReader(strings.NewReader("com,example)/ 201018122054100 {}\n"))
	_, err := r.Read()
	var pe *cdxj.ParseError
	fmt.Println(errors.As(err, &pe), pe.Line, errors.Is(err, timestamp.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true 1 true
	// cdxj: line 1, column 15: invalid timestamp: "201018122054100": month 18 out of range 01-12
}

func ExampleRecord_Field() {
	good := `com,example)/ 20170306040206 {"url": "http://example.com/", "languages": ["eng", "fra"], "title": "caf\u00e9"}`
	rec, err := cdxj.ParseLine([]byte(good), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	title, ok, err := rec.Field("title")
	fmt.Println(title, ok, err)
	langs, ok, err := rec.Field("languages")
	fmt.Println(langs, ok, err)
	_, ok, err = rec.Field("charset")
	fmt.Println(ok, err)

	// An ipwb TimeMap line: the record reads, its JSON fields do not.
	bad := `20130202100000 {"uri": "http://localhost/memento/20130202100000/memento.us/", "rel": "first memento", "datetime"="Sat, 02 Feb 2013"}`
	rec, err = cdxj.ParseLine([]byte(bad), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.Time().Format("2006-01-02"))
	_, _, err = rec.Field("rel")
	fmt.Println(err)
	// Output:
	// café true <nil>
	// ["eng", "fra"] true <nil>
	// false <nil>
	// 2013-02-02
	// cdxj: column 113: invalid JSON block: expected ':' after key "datetime"
}

func ExampleWriter() {
	in := "org,archive)/ 20120103092542 http://archive.org/ text/html 302 KON6 http://www.archive.org/ - 488 24136753 WIDE.warc.gz\n"
	r := cdxj.NewReader(strings.NewReader(in))
	w := cdxj.NewWriter(os.Stdout)
	for rec, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := w.Write(rec); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// org,archive)/ 20120103092542 {"url": "http://archive.org/", "mime": "text/html", "status": "302", "digest": "KON6", "length": "488", "offset": "24136753", "filename": "WIDE.warc.gz", "redirect": "http://www.archive.org/"}
}

func ExampleRecord_Time() {
	// Timestamps of 12, 14 and 17 digits, and one with month 18.
	in := "com,example)/ 200101011200 {}\n" +
		"com,example)/ 20010101120000 {}\n" +
		"com,example)/ 20230426095158263 {}\n" +
		"com,example)/ 201018122054100 {}\n"
	r := cdxj.NewReader(strings.NewReader(in))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(errors.Is(err, timestamp.ErrInvalid), err)
			continue
		}
		fmt.Println(string(rec.Timestamp()), rec.Time().Format(time.RFC3339Nano), rec.Year())
	}
	// Output:
	// 200101011200 2001-01-01T12:00:00Z 2001
	// 20010101120000 2001-01-01T12:00:00Z 2001
	// 20230426095158263 2023-04-26T09:51:58.263Z 2023
	// true cdxj: line 4, column 15: invalid timestamp: "201018122054100": month 18 out of range 01-12
}

func ExampleParseLayout() {
	l, err := cdxj.ParseLayout(" CDX a b a m s k r M V g u") // wget
	fmt.Println(l, l.Columns(), l.KeyIsSURT(), err)
	r := cdxj.NewReader(bytes.NewReader([]byte("http://example.com/ 20240101120000 http://example.com/ text/html 200 XYZ - - 0 x.warc.gz u\n")))
	r.Layout = l
	rec, err := r.Read()
	fmt.Println(string(rec.Key()), rec.KeyIsSURT(), err)
	// Output:
	// CDX a b a m s k r M V g u 11 false <nil>
	// http://example.com/ false <nil>
}

func ExampleOpen() {
	// A gzip file of two members, the first without a final newline, as
	// pywb writes the blocks of a ZipNum part: a member end is a line end.
	dir, err := os.MkdirTemp("", "cdxj-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	var z bytes.Buffer
	for _, part := range []string{"com,example)/ 20170306040206 {\"status\": \"200\"}", "com,example)/a 20170306040207 {\"status\": \"404\"}\n"} {
		zw := gzip.NewWriter(&z)
		zw.Write([]byte(part))
		zw.Close()
	}
	path := filepath.Join(dir, "index.cdxj.gz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		fmt.Println(err)
		return
	}

	// The same call opens a plain file, a ZipNum cluster (its .idx or its
	// folder) or standard input ("-" with OpenOptions.Stdin).
	ix, err := cdxj.Open(context.Background(), path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ix.Close()
	for rec, err := range ix.Records(cdxj.Query{}) { // the whole index
		if err != nil {
			fmt.Println(err) // a *cdxj.ParseError naming file and line; the walk goes on
			continue
		}
		fmt.Println(string(rec.Key()), rec.Status())
	}
	// Output:
	// com,example)/ 200
	// com,example)/a 404
}
