package mementomap_test

import (
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"os"
	"strings"
	"time"

	"github.com/mementokit/mementokit/mementomap"
)

func ExampleBuild() {
	index := `com,example)/ 20200101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200"}
com,example)/a?x=1 20200101000000 {"url": "http://example.com/a?x=1", "mime": "text/html", "status": "200"}
com,example)/a?x=2 20200102000000 {"url": "http://example.com/a?x=2", "mime": "text/html", "status": "200"}
com,example)/a?x=2 20200103000000 {"url": "http://example.com/a?x=2", "mime": "text/html", "status": "200"}
`
	o := mementomap.BuildOptions{
		ArchiveID: "https://archive.example/",
		Now:       func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
	}
	st, err := mementomap.Build(context.Background(), os.Stdout,
		[]cdxj.Searcher{cdxj.NewStream("index.cdxj", strings.NewReader(index), nil)}, &o)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(st.Records, "captures,", st.URIRs, "URI-Rs,", st.Keys, "keys")
	// Output:
	// !context ["https://oduwsdl.github.io/contexts/ukvs"]
	// !id {"uri":"https://archive.example/"}
	// !fields {"keys": ["surt"], "values": ["frequency"]}
	// !meta {"name":"","type":"MementoMap","updated_at":"2026-01-01T00:00:00Z"}
	// com,example)/ 1/1
	// com,example)/a 3/2
	// 4 captures, 3 URI-Rs, 2 keys
}

func ExampleCompact() {
	var in strings.Builder
	for i := range 30 {
		fmt.Fprintf(&in, "com,example)/page%02d 2/1\n", i)
	}
	in.WriteString("org,example)/ 1/1\n")
	// 30 distinct first path segments > the cutoff 24.55 at W_p = 1.
	st, err := mementomap.Compact(os.Stdout, strings.NewReader(in.String()), nil)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(st.InLines, "lines in,", st.OutLines, "out,", st.Rollups, "roll-up")
	// Output:
	// com,example)/* 60/30
	// org,example)/ 1/1
	// 31 lines in, 2 out, 1 roll-up
}

func ExampleMap_Lookup() {
	m := mementomap.FromBytes([]byte(`com,example)/ 3/1
com,example)/a/* 12/4
com,example)/a/private 0
com,example,* 50/20
`))
	for _, u := range []string{
		"http://www.example.com/a/b?x=1",
		"https://example.com/a/private",
		"http://blog.example.com/",
		"http://example.org/",
	} {
		r, err := m.Lookup(u)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s -> %q %q present=%v\n", u, r.Key, r.Value, r.Present())
	}
	// Output:
	// http://www.example.com/a/b?x=1 -> "com,example)/a/*" "12/4" present=true
	// https://example.com/a/private -> "com,example)/a/private" "0" present=false
	// http://blog.example.com/ -> "com,example,*" "50/20" present=true
	// http://example.org/ -> "" "" present=false
}

func ExampleAppendLookupKeys() {
	for _, k := range mementomap.AppendLookupKeys(nil, "com,example)/a/b?q=1") {
		fmt.Println(k)
	}
	// Output:
	// com,example)/a/b
	// com,example)/a/b/*
	// com,example)/a/*
	// com,example)/*
	// com,example,*
	// com,*
	// *
}

func ExampleMerge() {
	a := "com,a)/ 5/1\ncom,b)/* 10+/3\n"
	b := "com,a)/ 2/1\ncom,c)/ 1/1\n"
	if _, err := mementomap.Merge(os.Stdout, strings.NewReader(a), strings.NewReader(b)); err != nil {
		fmt.Println(err)
	}
	// Output:
	// com,a)/ 7/2-
	// com,b)/* 10+/3
	// com,c)/ 1/1
}

// A map with a datetime key column says when the mementos are.
func ExampleMap_LookupAt() {
	m := mementomap.FromBytes([]byte(`!fields {"keys": ["surt", "datetime"], "values": ["frequency"]}
com,twitter)/* 2014 20~/10
com,twitter)/* 2015 60+/30+
com,twitter)/* : 100/35
`))
	for _, at := range []string{"2014", "20150601", "2019"} {
		res, _ := m.LookupAt("https://twitter.com/jack", at)
		fmt.Println(at, res.Key, res.Time, res.Value)
	}
	res, _ := m.Lookup("https://twitter.com/jack")
	fmt.Println("any time:", res.Value)
	// Output:
	// 2014 com,twitter)/* 2014 20~/10
	// 20150601 com,twitter)/* 2015 60+/30+
	// 2019 com,twitter)/* : 100/35
	// any time: 100/35
}

// A wildcard line counts once in a map's total, not on top of the lines
// under it.
func ExampleMap_Totals() {
	m := mementomap.FromBytes([]byte("com,example)/ 3/1\ncom,example)/* 10/4\ncom,example)/a 7/3\norg,example)/ 1/1\n"))
	total, _ := m.Totals()
	fmt.Println(total)
	// Output: 11/5
}
