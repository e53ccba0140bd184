package webui_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/webui"
)

// A UI over an aggregator of one archive: the form's answer is a redirect
// to the result page, which lists the mementos found.
func ExampleNew() {
	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": {time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)},
	}})
	defer arc.Close()
	ag, err := aggregator.New(&aggregator.Options{Archives: []aggregator.Archive{
		{ID: "arc", Name: "An archive", TimeMap: arc.TimeMapPrefix(), TimeGate: arc.TimeGatePrefix()},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ag.Close()
	ui, err := webui.New(&webui.Options{Aggregator: ag})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(ui)
	defer srv.Close()

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(srv.URL + "/search?url=example.com/&date=2006-01-01")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Location"))

	resp, err = client.Get(srv.URL + resp.Header.Get("Location"))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"), "mementos:", resp.Header.Get("X-Memento-Count"))
	// Output:
	// 303 /list/20060101000000/http://example.com/
	// 200 text/html; charset=utf-8 mementos: 2
}
