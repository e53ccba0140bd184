package memento_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/timestamp"
)

// An Internet Archive TimeGate answer: every datetime has a comma, which
// is data inside the quoted string.
func ExampleParseLinkFormat() {
	header := `<http://www.lanl.gov>; rel="original", <http://web.archive.org/web/19961221031231/http://www.lanl.gov>; rel="first memento"; datetime="Sat, 21 Dec 1996 03:12:31 GMT", <http://web.archive.org/web/20030320195439/http://www.lanl.gov>; rel="memento"; datetime="Thu, 20 Mar 2003 19:54:39 GMT"`
	links, err := memento.ParseLinkFormat(header, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range links {
		if dt, ok := l.Param("datetime"); ok {
			fmt.Printf("%v %s %s\n", l.Rel, l.Target, dt)
		} else {
			fmt.Printf("%v %s\n", l.Rel, l.Target)
		}
	}
	// Output:
	// [original] http://www.lanl.gov
	// [first memento] http://web.archive.org/web/19961221031231/http://www.lanl.gov Sat, 21 Dec 1996 03:12:31 GMT
	// [memento] http://web.archive.org/web/20030320195439/http://www.lanl.gov Thu, 20 Mar 2003 19:54:39 GMT
}

// Strict mode names the byte that breaks the grammar; lenient mode (the
// default) reads what the archive meant.
func ExampleParseLinkFormat_strict() {
	header := `<https://perma-archives.org/warc/timemap/*/http://example.com>; type=application/link-format; rel=timemap`
	_, err := memento.ParseLinkFormat(header, &memento.ParseOptions{Strict: true})
	fmt.Println(err)
	links, _ := memento.ParseLinkFormat(header, nil)
	typ, _ := links[0].Param("type")
	fmt.Println(links[0].Rel, typ)
	// Output:
	// memento: link-format error at byte 80 (link 1): unquoted value is not a token
	// [timemap] application/link-format
}

// A Reader streams a TimeMap of any size one link at a time; targets are
// resolved against the response URI.
func ExampleReader() {
	body := "<//archive.example/web/20100124041439/http://vvork.com/>\n ; rel=\"prev first memento\"\n ; datetime=\"Sun, 24 Jan 2010 04:14:39 GMT\",\n<http://vvork.com/>; rel=\"original\"\n"
	r := memento.NewReader(strings.NewReader(body), &memento.ParseOptions{Base: "https://archive.example/timemap/link/http://vvork.com/"})
	for {
		l, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(l.Offset, l.Rel, l.Target)
	}
	// Output:
	// 0 [prev first memento] https://archive.example/web/20100124041439/http://vvork.com/
	// 130 [original] http://vvork.com/
}

const exampleTimeMap = `<http://example.com/>; rel="original",
<http://web.archive.org/web/20100513224108/http://example.com/>; rel="memento"; datetime="Thu, 13 May 2010 22:41:08 GMT",
<http://web.archive.org/web/20100514231857/http://example.com/>; rel="memento"; datetime="Fri, 14 May 2010 23:18:57 GMT",
<http://wayback.archive-it.org/all/20100514231857/http://example.com/>; rel="memento"; datetime="Fri, 14 May 2010 23:18:57 GMT",
<http://wayback.archive-it.org/all/20100511201151/http://example.com/>; rel="memento"; datetime="Tue, 11 May 2010 20:11:51 GMT"
`

// Two archives hold a capture of the same second: both are kept.
func ExampleReadTimeMap() {
	tm, err := memento.ReadTimeMap(strings.NewReader(exampleTimeMap), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tm.Original, tm.Len())
	for _, m := range tm.Mementos {
		fmt.Println(timestamp.Format(m.Datetime), m.URIM)
	}
	// Output:
	// http://example.com/ 4
	// 20100511201151 http://wayback.archive-it.org/all/20100511201151/http://example.com/
	// 20100513224108 http://web.archive.org/web/20100513224108/http://example.com/
	// 20100514231857 http://wayback.archive-it.org/all/20100514231857/http://example.com/
	// 20100514231857 http://web.archive.org/web/20100514231857/http://example.com/
}

// Exactly half-way between two mementos, the later one is closest.
func ExampleTimeMap_Closest() {
	tm, _ := memento.ReadTimeMap(strings.NewReader(exampleTimeMap), nil)
	a, _ := timestamp.Parse("20100511201151")
	b, _ := timestamp.Parse("20100513224108")
	mid := a.Add(b.Sub(a) / 2)
	m, _ := tm.Closest(mid)
	fmt.Println(timestamp.Format(m.Datetime))
	// rel="prev" and rel="next" are relative to the memento selected.
	c := tm.ClosestIndex(mid)
	prev, _ := tm.Prev(c)
	next, _ := tm.Next(c)
	fmt.Println(timestamp.Format(prev.Datetime), timestamp.Format(next.Datetime))
	fmt.Println(len(tm.SameSecond(tm.NextIndex(c))), "URI-Ms in the next second")
	// Output:
	// 20100513224108
	// 20100511201151 20100514231857
	// 2 URI-Ms in the next second
}

func exampleAggregatorTimeMap() *memento.TimeMap {
	tm, _ := memento.ReadTimeMap(strings.NewReader(exampleTimeMap), nil)
	agg := "http://localhost:1208/"
	tm.Self = memento.Page{URI: agg + "timemap/link/http://example.com/", Type: memento.MediaTypeLinkFormat}
	tm.TimeGate = agg + "timegate/http://example.com/"
	tm.Pages = []memento.Page{
		{URI: agg + "timemap/link/http://example.com/", Type: memento.MediaTypeLinkFormat},
		{URI: agg + "timemap/json/http://example.com/", Type: memento.MediaTypeJSON},
		{URI: agg + "timemap/cdxj/http://example.com/", Type: memento.MediaTypeCDXJ},
	}
	tm.Mementos = tm.Mementos[:2]
	return tm
}

func ExampleWriteLinkFormat() {
	memento.WriteLinkFormat(os.Stdout, exampleAggregatorTimeMap())
	// Output:
	// <http://example.com/>; rel="original",
	// <http://localhost:1208/timemap/link/http://example.com/>; rel="self"; type="application/link-format",
	// <http://wayback.archive-it.org/all/20100511201151/http://example.com/>; rel="first memento"; datetime="Tue, 11 May 2010 20:11:51 GMT",
	// <http://web.archive.org/web/20100513224108/http://example.com/>; rel="last memento"; datetime="Thu, 13 May 2010 22:41:08 GMT",
	// <http://localhost:1208/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format",
	// <http://localhost:1208/timemap/json/http://example.com/>; rel="timemap"; type="application/json",
	// <http://localhost:1208/timemap/cdxj/http://example.com/>; rel="timemap"; type="application/cdxj+ors",
	// <http://localhost:1208/timegate/http://example.com/>; rel="timegate"
}

func ExampleWriteJSON() {
	memento.WriteJSON(os.Stdout, exampleAggregatorTimeMap())
	// Output:
	// {
	//   "original_uri": "http://example.com/",
	//   "self": "http://localhost:1208/timemap/json/http://example.com/",
	//   "mementos": {
	//     "list": [
	//       {
	//         "datetime": "2010-05-11T20:11:51Z",
	//         "uri": "http://wayback.archive-it.org/all/20100511201151/http://example.com/"
	//       },
	//       {
	//         "datetime": "2010-05-13T22:41:08Z",
	//         "uri": "http://web.archive.org/web/20100513224108/http://example.com/"
	//       }
	//     ],
	//     "first": {
	//       "datetime": "2010-05-11T20:11:51Z",
	//       "uri": "http://wayback.archive-it.org/all/20100511201151/http://example.com/"
	//     },
	//     "last": {
	//       "datetime": "2010-05-13T22:41:08Z",
	//       "uri": "http://web.archive.org/web/20100513224108/http://example.com/"
	//     }
	//   },
	//   "timemap_uri": {
	//     "link_format": "http://localhost:1208/timemap/link/http://example.com/",
	//     "json_format": "http://localhost:1208/timemap/json/http://example.com/",
	//     "cdxj_format": "http://localhost:1208/timemap/cdxj/http://example.com/"
	//   },
	//   "timegate_uri": "http://localhost:1208/timegate/http://example.com/"
	// }
}

func ExampleWriteCDXJ() {
	memento.WriteCDXJ(os.Stdout, exampleAggregatorTimeMap())
	// Output:
	// !context ["https://oduwsdl.github.io/contexts/memento"]
	// !id {"uri": "http://localhost:1208/timemap/cdxj/http://example.com/"}
	// !keys ["memento_datetime_YYYYMMDDhhmmss"]
	// !meta {"original_uri": "http://example.com/"}
	// !meta {"timegate_uri": "http://localhost:1208/timegate/http://example.com/"}
	// !meta {"timemap_uri": {"link_format": "http://localhost:1208/timemap/link/http://example.com/", "json_format": "http://localhost:1208/timemap/json/http://example.com/", "cdxj_format": "http://localhost:1208/timemap/cdxj/http://example.com/"}}
	// 20100511201151 {"uri": "http://wayback.archive-it.org/all/20100511201151/http://example.com/", "rel": "first memento", "datetime": "Tue, 11 May 2010 20:11:51 GMT"}
	// 20100513224108 {"uri": "http://web.archive.org/web/20100513224108/http://example.com/", "rel": "last memento", "datetime": "Thu, 13 May 2010 22:41:08 GMT"}
}

// The Time Travel /api/json answer lists every URI-M of the closest second.
func ExampleWriteTimeTravelJSON() {
	tm, _ := memento.ReadTimeMap(strings.NewReader(exampleTimeMap), nil)
	at, _ := timestamp.Parse("20100514")
	memento.WriteTimeTravelJSON(os.Stdout, memento.NewTimeTravelResult(tm, at))
	// Output:
	// {
	//   "original_uri": "http://example.com/",
	//   "mementos": {
	//     "first": {"datetime": "2010-05-11T20:11:51Z", "uri": ["http://wayback.archive-it.org/all/20100511201151/http://example.com/"]},
	//     "closest": {"datetime": "2010-05-13T22:41:08Z", "uri": ["http://web.archive.org/web/20100513224108/http://example.com/"]},
	//     "last": {"datetime": "2010-05-14T23:18:57Z", "uri": ["http://wayback.archive-it.org/all/20100514231857/http://example.com/", "http://web.archive.org/web/20100514231857/http://example.com/"]}
	//   }
	// }
}

func ExampleParseDatetime() {
	for _, s := range []string{"2005", "20050301120000", "Tue, 01 Mar 2005 12:00:00 GMT", "2005-03-01T12:00:00Z", "20051301"} {
		t, err := memento.ParseDatetime(s)
		if err != nil {
			fmt.Println(s, "error:", errors.Is(err, timestamp.ErrInvalid))
			continue
		}
		fmt.Println(s, "=", memento.FormatHTTPDate(t), timestamp.Format(t))
	}
	// Output:
	// 2005 = Sat, 01 Jan 2005 00:00:00 GMT 20050101000000
	// 20050301120000 = Tue, 01 Mar 2005 12:00:00 GMT 20050301120000
	// Tue, 01 Mar 2005 12:00:00 GMT = Tue, 01 Mar 2005 12:00:00 GMT 20050301120000
	// 2005-03-01T12:00:00Z = Tue, 01 Mar 2005 12:00:00 GMT 20050301120000
	// 20051301 error: true
}

func ExampleParseHTTPDate() {
	for _, s := range []string{"Thu, 20 Mar 2003 19:54:39 GMT", "Thu, 20 Mar 2003 19:54:39", "Thu, 20 Mar 2003 19:54:39 PST"} {
		_, err := memento.ParseHTTPDate(s)
		_, lerr := memento.ParseHTTPDateLenient(s)
		fmt.Printf("%q strict:%v lenient:%v\n", s, err == nil, lerr == nil)
	}
	// Output:
	// "Thu, 20 Mar 2003 19:54:39 GMT" strict:true lenient:true
	// "Thu, 20 Mar 2003 19:54:39" strict:false lenient:true
	// "Thu, 20 Mar 2003 19:54:39 PST" strict:false lenient:false
}

// A TimeGate on 127.0.0.1 answering as the Internet Archive does.
func ExampleClient_TimeGate() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/web/http://example.com/" {
			http.NotFound(w, r)
			return
		}
		t, err := memento.ParseHTTPDate(r.Header.Get("Accept-Datetime"))
		if err != nil {
			http.Error(w, "bad Accept-Datetime", http.StatusBadRequest)
			return
		}
		w.Header().Set("Vary", "accept-datetime")
		w.Header().Set("Link", `<http://example.com/>; rel="original"`)
		w.Header().Set("Location", "/web/"+timestamp.Format(t)+"/http://example.com/")
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()

	c := &memento.Client{Timeout: 5 * time.Second}
	res, err := c.TimeGate(context.Background(), srv.URL+"/web/http://example.com/", time.Date(2010, 5, 14, 0, 0, 0, 0, time.UTC))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.StatusCode, strings.TrimPrefix(res.URIM, srv.URL), res.Original, res.Vary)

	_, err = c.TimeGate(context.Background(), srv.URL+"/web/http://nothing.example/", time.Now())
	fmt.Println("not found:", memento.IsNotFound(err))
	// Output:
	// 302 /web/20100514000000/http://example.com/ http://example.com/ true
	// not found: true
}

// FetchTimeMap tells "the archive has nothing" from "the archive failed".
func ExampleClient_FetchTimeMap() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/timemap/link/http://example.com/":
			io.WriteString(w, exampleTimeMap)
		case "/timemap/link/http://busy.example/":
			http.Error(w, "try later", http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	c := &memento.Client{Timeout: 5 * time.Second}
	for _, r := range []string{"http://example.com/", "http://nothing.example/", "http://busy.example/"} {
		tm, err := c.FetchTimeMap(context.Background(), srv.URL+"/timemap/link/"+r)
		var e *memento.Error
		switch {
		case err == nil:
			fmt.Println(r, tm.Len(), "mementos")
		case memento.IsNotFound(err):
			fmt.Println(r, "no mementos (cacheable)")
		case errors.As(err, &e):
			fmt.Println(r, "failed with HTTP", e.StatusCode, "(do not cache)")
		}
	}
	// Output:
	// http://example.com/ 4 mementos
	// http://nothing.example/ no mementos (cacheable)
	// http://busy.example/ failed with HTTP 503 (do not cache)
}

// The Link header a TimeGate sends with its choice, MemGator's layout.
func ExampleNavigationLinks() {
	tm, _ := memento.ReadTimeMap(strings.NewReader(exampleTimeMap), nil)
	tm.TimeGate = "http://localhost:1208/timegate/http://example.com/"
	at, _ := timestamp.Parse("20100513")
	for _, l := range memento.NavigationLinks(tm, tm.ClosestIndex(at)) {
		fmt.Println(memento.FormatLinks([]memento.Link{l}))
	}
	// Output:
	// <http://example.com/>; rel="original"
	// <http://wayback.archive-it.org/all/20100511201151/http://example.com/>; rel="first prev memento"; datetime="Tue, 11 May 2010 20:11:51 GMT"
	// <http://web.archive.org/web/20100513224108/http://example.com/>; rel="memento"; datetime="Thu, 13 May 2010 22:41:08 GMT"
	// <http://wayback.archive-it.org/all/20100514231857/http://example.com/>; rel="next memento"; datetime="Fri, 14 May 2010 23:18:57 GMT"
	// <http://web.archive.org/web/20100514231857/http://example.com/>; rel="last memento"; datetime="Fri, 14 May 2010 23:18:57 GMT"
	// <http://localhost:1208/timegate/http://example.com/>; rel="timegate"
}

// Merging the TimeMaps of two archives keeps both captures of a second and
// drops an exact duplicate.
func ExampleMerge() {
	ia, _ := memento.ReadTimeMap(strings.NewReader(`<http://example.com/>; rel="original",
<http://web.archive.org/web/20100514231857/http://example.com/>; rel="memento"; datetime="Fri, 14 May 2010 23:18:57 GMT"`), nil)
	ait, _ := memento.ReadTimeMap(strings.NewReader(`<http://wayback.archive-it.org/all/20100514231857/http://example.com/>; rel="memento"; datetime="Fri, 14 May 2010 23:18:57 GMT",
<http://web.archive.org/web/20100514231857/http://example.com/>; rel="memento"; datetime="Fri, 14 May 2010 23:18:57 GMT"`), nil)
	all := memento.Merge(ia, ait)
	fmt.Println(all.Original, all.Len(), "mementos,", all.Duplicates, "duplicate")
	// Output:
	// http://example.com/ 2 mementos, 1 duplicate
}
