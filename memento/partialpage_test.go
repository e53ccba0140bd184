package memento

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
)

// TestFetchTimeMapKeepsLinksBeforeParseError: a 127.0.0.1 TimeMap page
// whose link format cannot be read on after two memento links (an
// unterminated '<') gives those two with a *ParseError, on the first page
// and on a linked page alike (then with the first page's mementos).
func TestFetchTimeMapKeepsLinksBeforeParseError(t *testing.T) {
	var a *archive
	a = newArchive(t, map[string]http.HandlerFunc{
		"/broken": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", MediaTypeLinkFormat)
			fmt.Fprint(w, mementoLines("http://a.example", "2001", "2002")+"<http://a.example/2003; rel=\"memento\"")
		},
		"/first": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", MediaTypeLinkFormat)
			fmt.Fprintf(w, "<%s/broken>; rel=\"timemap\",\n%s", a.URL, mementoLines("http://a.example", "2004"))
		},
	})
	for path, want := range map[string]int{"/broken": 2, "/first": 3} {
		tm, err := (&Client{}).FetchTimeMap(context.Background(), a.URL+path)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want a *ParseError", path, err)
		}
		if tm == nil || len(tm.Mementos) != want {
			t.Errorf("%s: TimeMap %+v, want its %d mementos before the error", path, tm, want)
		}
	}
}
