package summary_test

import (
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"io"
	"os"
	"strings"

	"github.com/mementokit/mementokit/summary"
)

func Example() {
	index := `uk,co,bbc,news)/ 20200101000000 {"url": "https://news.bbc.co.uk/", "mime": "text/html; charset=utf-8", "status": "200", "length": "1000"}
uk,co,bbc,news)/logo.png 20200101000001 {"url": "https://news.bbc.co.uk/logo.png", "mime": "image/png", "status": "200", "length": "50"}
uk,co,bbc,news)/old 20200101000002 {"url": "https://news.bbc.co.uk/old", "mime": "text/html", "status": "404", "length": "10"}
`
	s := summary.New(&summary.Options{Compact: true, MaxYear: 2030})
	if err := s.ReadIndex(context.Background(), cdxj.NewStream("example.cdxj", strings.NewReader(index), nil), false); err != nil {
		fmt.Println(err)
		return
	}
	s.WriteTo(os.Stdout)
	fmt.Printf("%+v\n", s.Stats())
	// Output:
	// bbc.co.uk {"2020": {"n_html": 1, "n_image": 1, "n_https": 2, "n_total": 2, "s_html": 1000, "s_image": 50, "s_https": 1050, "s_total": 1050}}
	// {Counted:2 NotOK:1 BadTimestamp:0 Keys:1 BadLines:0 BadExamples:[] BlankLines:0 NoLength:0}
}

func ExampleCompat() {
	// The original tool counts the parameterized type as "other" and keys by
	// the last two labels.
	index := `uk,co,bbc,news)/ 20200101000000 {"url": "https://news.bbc.co.uk/", "mime": "text/html; charset=utf-8", "status": "200", "length": "1000"}
`
	c := summary.NewCompat(false, false, nil)
	if err := c.ReadFile("example.cdxj", strings.NewReader(index)); err != nil {
		fmt.Println(err)
		return
	}
	c.WriteCompactTo(os.Stdout)
	// Output:
	// co.uk {"2020": {"n_other": 1, "n_https": 1, "n_total": 1, "s_other": 1000, "s_https": 1000, "s_total": 1000}}
}

func ExampleCategorizeMIME() {
	for _, m := range []string{"text/html; charset=UTF-8", "Image/PNG", "application/x-font-woff", "warc/revisit"} {
		fmt.Println(m, "→", summary.CategorizeMIME(m))
	}
	// Output:
	// text/html; charset=UTF-8 → html
	// Image/PNG → image
	// application/x-font-woff → font
	// warc/revisit → other
}

func ExampleHostKey() {
	fmt.Println(summary.HostKey("uk,co,bbc,news)/", "http://news.bbc.co.uk/", summary.KeyDomain))
	fmt.Println(summary.HostKey("uk,co,bbc,news)/", "http://news.bbc.co.uk/", summary.KeyLastTwo))
	fmt.Println(summary.HostKey("dns:bbc.co.uk", "dns:bbc.co.uk", summary.KeyDomain))
	// Output:
	// bbc.co.uk
	// co.uk
	// dns:
}

func ExampleCombiner() {
	a := `news.bbc.co.uk {"2020": {"n_html": 1, "n_total": 1, "s_html": 10, "s_total": 10}}
www.bbc.co.uk {"2020": {"n_html": 2, "n_total": 2, "s_html": 20, "s_total": 20}}
`
	c := summary.NewCombiner(&summary.CombineOptions{Rekey: summary.RekeyDomain, Compact: true})
	if err := c.AddSummary(strings.NewReader(a), "a.summary"); err != nil {
		fmt.Println(err)
		return
	}
	c.WriteTo(os.Stdout)
	// Output:
	// bbc.co.uk {"2020": {"n_html": 3, "n_total": 3, "s_html": 30, "s_total": 30}}
}

func ExampleWriteTotals() {
	a := `bbc.co.uk {"2019": {"n_total": 3, "s_total": 30}, "2020": {"n_total": 0}}
`
	summary.WriteTotals(os.Stdout, strings.NewReader(a), "a.summary", nil)
	// Output:
	// bbc.co.uk 2019 3 30
}

func ExampleOverlap() {
	a := `bbc.co.uk {"2020": {"n_total": 3, "s_total": 30}}
bnl.lu {"2020": {"n_total": 1, "s_total": 5}}
`
	b := `bbc.co.uk {"2020": {"n_total": 7, "s_total": 70}}
`
	res, err := summary.Overlap([]string{"A", "B"}, []io.Reader{strings.NewReader(a), strings.NewReader(b)}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Combos["A"]["2020"].Keys, res.Combos["A AND B"]["2020"].N)
	// Output:
	// 1 [3 7]
}

func ExampleDaily() {
	index := `gov,loc)/ 20090119120000 {"url": "http://loc.gov/", "status": "200", "length": "100", "filename": "LOC-ENDOFTERM-01.arc.gz"}
gov,loc)/ 20090119120000 {"url": "http://loc.gov/", "status": "200", "length": "100", "filename": "LOC-ENDOFTERM-01.arc.gz"}
gov,loc)/a 20090119130000 {"url": "http://loc.gov/a", "status": "404", "length": "50", "filename": "CDL-2.warc.gz"}
`
	d := summary.NewDaily(nil)
	if err := d.ReadIndex(context.Background(), cdxj.NewStream("x.cdxj", strings.NewReader(index), nil), false); err != nil {
		fmt.Println(err)
		return
	}
	d.WriteTo(os.Stdout)
	fmt.Println("duplicates:", d.Stats().Duplicates)
	// Output:
	// 20090119 {"CDL": {"count": 1, "size": 50, "okcount": 0, "oksize": 0}, "LOC": {"count": 1, "size": 100, "okcount": 1, "oksize": 100}, "toturis": 2, "totsize": 150, "totokcount": 1, "totoksize": 100}
	// duplicates: 1
}

func ExampleReadOverview() {
	in := `bnl.lu {"2003": {"n_html": 2, "n_total": 2, "s_html": 300, "s_total": 300}}
www.lu {"2003": {"n_total": 1, "s_total": 10}, "2004": {"n_image": 1, "n_total": 1, "s_image": 50, "s_total": 50}}
`
	o, err := summary.ReadOverview(strings.NewReader(in), "lu.summary")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, y := range o.Years() {
		fmt.Println(y.Year, "keys", y.Keys, "captures", y.Counters[summary.NTotal], "bytes", y.Counters[summary.STotal])
	}
	fmt.Println("keys under .lu per year:", o.TLDKeys("lu"))
	fmt.Println("by first letter:", o.FirstChar)
	// Output:
	// 2003 keys 2 captures 3 bytes 310
	// 2004 keys 1 captures 1 bytes 50
	// keys under .lu per year: map[2003:2 2004:1]
	// by first letter: map[b:1 w:1]
}
