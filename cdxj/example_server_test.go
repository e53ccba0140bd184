package cdxj_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/mementokit/mementokit/cdxj"
)

// OpenServer reads a CDX server as an index. Here the server is a small
// pywb-style CDX endpoint on 127.0.0.1 (an index without pages: it
// refuses showNumPages with pywb's 400), and the server URL carries the
// part of the archive to read: every capture under example.com/.
func ExampleOpenServer() {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("showNumPages") == "true" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"message": "pagination needs a ZipNum cluster"}`)
			return
		}
		// output=json: one JSON object per line.
		io.WriteString(w, `{"urlkey": "com,example)/", "timestamp": "20200101000000", "url": "http://example.com/", "mime": "text/html", "status": "200"}`+"\n")
		io.WriteString(w, `{"urlkey": "com,example)/about", "timestamp": "20210304050607", "url": "http://example.com/about", "mime": "text/html", "status": "301"}`+"\n")
	}))
	defer ts.Close()

	s, err := cdxj.OpenServer(context.Background(), ts.URL+"/cdx?url="+url.QueryEscape("example.com/*"), &cdxj.ServerOptions{
		Flavor:    cdxj.FlavorPywb,
		UserAgent: "example-profiler/1.0 (ops@example.org)",
		Rate:      5, // requests per second at most
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for rec, err := range s.Records(cdxj.Query{Match: cdxj.MatchPrefix}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %s %d\n", rec.Key(), rec.Timestamp(), rec.Status())
	}
	fmt.Println(s.Stats().Requests, "requests")
	// Output:
	// com,example)/ 20200101000000 200
	// com,example)/about 20210304050607 301
	// 2 requests
}

// A Request is a CDX server query as a value: parse it from the query of
// a CDX server URL, run it over any index, and write its answer.
func ExampleParseRequest() {
	v, _ := url.ParseQuery("url=archive.org&filter=!=statuscode:302&limit=-2&output=json&fl=timestamp,status")
	r, err := cdxj.ParseRequest(v)
	if err != nil {
		log.Fatal(err)
	}
	q, _ := r.Query()
	fmt.Println(q.Key, q.Match, r.Limit, r.Filters[0].String())
	// Output: org,archive)/ exact -2 !=status:302
}
