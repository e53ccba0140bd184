package server_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// A deployment embedded in a program: one local archive, a memory cache,
// served on a loopback port until the context ends.
func Example() {
	archive := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": {time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC)},
	}})
	defer archive.Close()
	dir, err := os.MkdirTemp("", "example-*")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	list := dir + "/archives.json"
	os.WriteFile(list, []byte(`[{"id": "local", "timemap": "`+archive.TimeMapPrefix()+`", "timegate": "`+archive.TimeGatePrefix()+`"}]`), 0o644)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := server.DefaultConfig()
	c.Archives, c.Cache, c.Workers = list, "memory", 0
	c.BaseURL = "http://" + ln.Addr().String()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s, err := server.New(ctx, &c)
	if err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()

	resp, err := http.Get(c.BaseURL + "/timemap/link/http://example.com/")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("X-Memento-Count"))
	stop()
	fmt.Println("shut down:", <-done)
	// Output:
	// 200 1
	// shut down: <nil>
}
