package aggregator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many requests at once over few kept connections, some bodies closed
// before their end, some contexts ended mid-answer, the archive closing
// idle connections now and then: every answer read whole is its own
// request's (the archive echoes the path), none is another's (run with
// -race too).
func TestFastTransportConcurrentAnswersTheirOwn(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		if n%17 == 0 {
			w.Header().Set("Connection", "close")
		}
		if n%5 == 0 {
			// chunked, in two writes
			io.WriteString(w, "path=")
			w.(http.Flusher).Flush()
			io.WriteString(w, r.URL.Path)
			return
		}
		body := "path=" + r.URL.Path
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		io.WriteString(w, body)
	}))
	srv.Config.IdleTimeout = 30 * time.Millisecond
	srv.Start()
	defer srv.Close()
	rt := newFastTransport(&http.Transport{MaxIdleConnsPerHost: 2})
	defer rt.CloseIdleConnections()
	var wg sync.WaitGroup
	var bad, ok atomic.Int64
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				path := fmt.Sprintf("/g%d/r%d", g, i)
				ctx, cancel := context.WithCancel(context.Background())
				req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					cancel()
					t.Errorf("%s: %v", path, err)
					continue
				}
				switch i % 7 {
				case 3: // closed before the end
					resp.Body.Close()
				case 5: // context ended mid-answer
					cancel()
					io.ReadAll(resp.Body)
					resp.Body.Close()
				default:
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil {
						t.Errorf("%s: %v", path, err)
					} else if string(b) != "path="+path {
						bad.Add(1)
						t.Errorf("%s: answer %q", path, b)
					} else {
						ok.Add(1)
					}
				}
				cancel()
				if i%13 == 0 {
					time.Sleep(40 * time.Millisecond) // past the archive's idle timeout
				}
			}
		}()
	}
	wg.Wait()
	if ok.Load() == 0 || bad.Load() != 0 {
		t.Errorf("%d answers right, %d another's", ok.Load(), bad.Load())
	}
}

// An archive that reads a request on a kept connection and closes it
// without a byte of answer gets the request once more on a new
// connection, as net/http's Transport sends it (a GET: replayable), and
// never a third time; one that began its answer gets no second request.
func TestFastTransportRetryAsNetHTTP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		second string // the answer to the second request on the first connection
	}{
		{"closed-before-answer", ""},
		{"closed-mid-answer", "HTTP/1.1 200 OK\r\nContent-"},
	} {
		got := map[string]int{}
		for name, rt := range transports() {
			a := newRawArchive(t, func(conn, n int, line string) (string, bool) {
				if conn == 0 && n == 1 {
					return tc.second, true
				}
				return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false
			})
			if _, _, err := rawGet(rt, "GET", a.url()+"/first"); err != nil {
				t.Fatal(err)
			}
			rawGet(rt, "GET", a.url()+"/second")
			a.mu.Lock()
			for _, h := range a.heads {
				if strings.HasPrefix(h, "GET /second ") {
					got[name]++
				}
			}
			a.mu.Unlock()
		}
		if got["fast"] != got["net/http"] || got["fast"] > 2 {
			t.Errorf("%s: /second sent %d times by the fast transport, %d by net/http's", tc.name, got["fast"], got["net/http"])
		}
		t.Logf("%s: %v", tc.name, got)
	}
}
