package surt_test

import (
	"fmt"
	"strings"

	"github.com/mementokit/mementokit/surt"
)

func ExampleCanonicalize() {
	for _, u := range []string{
		"http://www.Example.com:80/a/b/?y=2&X=1#top",
		"https://www2.example.co.uk/Index.html?jsessionid=0123456789abcdefghijklmnopqrstuv&b=1",
		"http://Bücher.ch/",
		"dns:www.example.com",
	} {
		key, err := surt.Canonicalize(u)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(key)
	}
	_, err := surt.Canonicalize("http://example.com:http/")
	fmt.Println(err)
	// Output:
	// com,example)/a/b?x=1&y=2
	// uk,co,example)/index.html?b=1
	// ch,xn--bcher-kva)/
	// dns:www.example.com
	// surt: invalid port at byte 19 in "http://example.com:http/"
}

func ExampleProfile_Canonicalize() {
	for _, u := range []string{
		"http://example.com/?q=a%26b",
		"http://[2001:DB8::1]:8080/a",
		"cdn.example.com:443",
	} {
		std, _ := surt.Default.Canonicalize(u)
		fixed, _ := surt.Fixed.Canonicalize(u)
		fmt.Printf("%-24s %s\n", std, fixed)
	}
	withScheme, _ := surt.WithScheme.Canonicalize("https://www.example.com/")
	fmt.Println(withScheme)
	// Output:
	// com,example)/?b&q=a      com,example)/?q=a%26b
	// 2001:db8::1:8080)/a      [2001:db8::1]:8080)/a
	// cdn.example.com:443      com,example,cdn:443)/
	// https://(com,example)/
}

func ExampleProfile_AppendCanonical() {
	p := surt.New(&surt.Options{TrailingComma: true, NoHostMassage: true})
	var buf []byte
	for _, u := range []string{"http://www.example.com/a", "http://example.org/"} {
		buf, _ = p.AppendCanonical(buf[:0], u) // reuses buf: no allocation once grown
		fmt.Println(string(buf))
	}
	// Output:
	// com,example,www,)/a
	// org,example,)/
}

func ExampleLookupKeys() {
	key, _ := surt.Canonicalize("http://example.com/a/b?c=d")
	for _, k := range surt.LookupKeys(nil, surt.HxPx(key)) {
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

func ExampleParseKey() {
	k, err := surt.ParseKey("uk,co,example,news)/2021/a,b?x=1")
	if err != nil {
		panic(err)
	}
	var labels, segments []string
	for i := 0; i < k.NumLabels(); i++ {
		labels = append(labels, k.Label(i))
	}
	for i := 0; i < k.NumSegments(); i++ {
		segments = append(segments, k.Segment(i))
	}
	fmt.Println(strings.Join(labels, " "))
	fmt.Println(strings.Join(segments, " "))
	fmt.Println(k.HostPrefix(3), k.PathPrefix(1), k.Query())
	// Output:
	// uk co example news
	// 2021 a,b
	// uk,co,example uk,co,example,news)/2021 x=1
}

func ExampleIsPublicSuffix() {
	fmt.Println(surt.IsPublicSuffix("uk,co"), surt.IsPublicSuffix("com,blogspot"), surt.IsPublicSuffix("com,example"))
	fmt.Println(surt.SuffixList{ICANNOnly: true}.IsPublicSuffix("com,blogspot"))
	// Output:
	// true true false
	// false
}
