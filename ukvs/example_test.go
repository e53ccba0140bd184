package ukvs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mementokit/mementokit/ukvs"
)

func ExampleReader() {
	const doc = `!fields {keys: ["surt"], values: ["frequency"]}
!meta {type: "MementoMap"}
com,example)/ 12/1
com,example)/a/* 300+/20-
com,example)/private/* 0
`
	r := ukvs.NewReader(strings.NewReader(doc))
	for rec, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			continue
		}
		f, err := rec.Frequency()
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("line %d: %s holds %s mementos of %s URIs (nothing: %v)\n",
			rec.Line, rec.Key(), f.URIM, f.URIR, f.HoldsNothing())
	}
	// Output:
	// line 3: com,example)/ holds 12 mementos of 1 URIs (nothing: false)
	// line 4: com,example)/a/* holds 300+ mementos of 20- URIs (nothing: false)
	// line 5: com,example)/private/* holds 0 mementos of  URIs (nothing: true)
}

func ExampleWriter() {
	w := ukvs.NewWriter(os.Stdout)
	w.WriteHeader("meta", map[string]string{"type": "MementoMap"})
	for _, line := range []struct {
		key  string
		freq string
	}{{"com,example)/", "5/1"}, {"com,example)/a", "3/1"}, {"com,example)/", "1"}} {
		f, _ := ukvs.ParseFrequency(line.freq)
		if err := w.WriteFrequency([]byte(line.key), f); err != nil {
			fmt.Println(err)
		}
	}
	w.Flush()
	// Output:
	// ukvs: line 4: key out of byte-wise order (key "com,example)/")
	// !meta {"type":"MementoMap"}
	// com,example)/ 5/1
	// com,example)/a 3/1
}

func ExampleCheck() {
	_, err := ukvs.Check(strings.NewReader("com,example)/a 3\ncom,example)/c 1\ncom,example)/b 2\n"))
	fmt.Println(err)
	// Output:
	// ukvs: line 3: key out of byte-wise order after line 2 (key "com,example)/b")
}

func ExampleParseFrequency() {
	for _, s := range []string{"54321/20000", "10000+", "2500~/900", "/50", "0", "-"} {
		f, err := ukvs.ParseFrequency(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-11s URI-M %-6q URI-R %-6q known %-5v nothing %v\n", f, f.URIM, f.URIR, f.Known(), f.HoldsNothing())
	}
	_, err := ukvs.ParseFrequency("007")
	fmt.Println(err)
	// Output:
	// 54321/20000 URI-M "54321" URI-R "20000" known true  nothing false
	// 10000+      URI-M "10000+" URI-R ""     known true  nothing false
	// 2500~/900   URI-M "2500~" URI-R "900"  known true  nothing false
	// /50         URI-M ""     URI-R "50"   known true  nothing false
	// 0           URI-M "0"    URI-R ""     known true  nothing true
	// -           URI-M ""     URI-R ""     known false nothing false
	// ukvs: invalid frequency "007" at byte 0: leading zero
}

func ExampleFrequency_Add() {
	a, _ := ukvs.ParseFrequency("120/12")
	b, _ := ukvs.ParseFrequency("30+/3")
	c, _ := ukvs.ParseFrequency("5-/1-")
	fmt.Println(a.Add(b), a.Add(c), b.Add(c))
	// Output: 150+/15 125-/13- 35~/4-
}

func ExampleDatetimeValue() {
	for _, s := range []string{"2014", "201602", "2010:2012", ":2009", "201603:"} {
		p, _ := ukvs.ParseDatetimeValue(s)
		fmt.Printf("%-9s %q..%q contains 20120615: %v\n", p, p.Lower(), p.Upper(), p.Contains("20120615"))
	}
	// Output:
	// 2014      "20140101000000".."20141231235959" contains 20120615: false
	// 201602    "20160201000000".."20160229235959" contains 20120615: false
	// 2010:2012 "20100101000000".."20121231235959" contains 20120615: true
	// :2009     "".."20091231235959" contains 20120615: false
	// 201603:   "20160301000000".."" contains 20120615: false
}

// Writing a map file safely: nothing appears at the path until Commit.
func ExampleCreate() {
	dir, err := os.MkdirTemp("", "ukvs")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "archive.map")
	f, err := ukvs.Create(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close() // removes the temporary file if Commit is not reached
	f.WriteHeader(ukvs.HeaderFields, ukvs.DefaultFields())
	f.WriteFrequency([]byte("com,example)/*"), ukvs.Frequency{URIM: ukvs.Exactly(42), URIR: ukvs.Exactly(7)})
	if err := f.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// !fields {"keys":["surt"],"values":["frequency"]}
	// com,example)/* 42/7
}
