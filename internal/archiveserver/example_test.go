package archiveserver_test

import (
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mementokit/mementokit/internal/archiveserver"
)

// Serve a two-line CDXJ index as a Memento archive and ask its TimeGate.
func Example() {
	const index = `com,example)/ 20100101000000 {"url": "http://example.com/"}
com,example)/ 20200101000000 {"url": "http://www.example.com/"}
`
	ctx := context.Background()
	idx, _, err := archiveserver.LoadIndex(ctx, []cdxj.Searcher{cdxj.NewStream("example", strings.NewReader(index), nil)}, nil)
	if err != nil {
		panic(err)
	}
	s, err := archiveserver.New(ctx, idx, &archiveserver.Options{ID: "example", BaseURL: "http://archive.test"})
	if err != nil {
		panic(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/timegate/https://example.com/", nil)
	req.Header.Set("Accept-Datetime", "Sat, 01 Jan 2011 00:00:00 GMT")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Header().Get("Location"))
	fmt.Println(rec.Header().Get("Vary"))
	// Output:
	// 302 http://archive.test/20100101000000/http://example.com/
	// accept-datetime
}

// The MementoMap an archive publishes at /.well-known/mementomap is built
// from the same index; its lookups say "maybe" for every URI-R held.
func ExampleServer_MementoMap() {
	const index = `com,example)/a 20100101000000 {"url": "http://example.com/a"}
com,example)/b 20100101000000 {"url": "http://example.com/b"}
`
	ctx := context.Background()
	idx, _, _ := archiveserver.LoadIndex(ctx, []cdxj.Searcher{cdxj.NewStream("example", strings.NewReader(index), nil)}, nil)
	s, _ := archiveserver.New(ctx, idx, &archiveserver.Options{ID: "example"})
	for _, u := range []string{"http://example.com/a", "http://example.org/"} {
		m, _ := s.Map().Lookup(u)
		fmt.Println(u, m.Present())
	}
	// Output:
	// http://example.com/a true
	// http://example.org/ false
}
