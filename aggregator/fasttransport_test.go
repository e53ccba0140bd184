package aggregator

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// connCounter counts the connections a test server accepts.
func connCounter(srv *httptest.Server) *atomic.Int64 {
	var n atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	return &n
}

func fastGet(t *testing.T, rt http.RoundTripper, ctx context.Context, u string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "mementokit-test")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// The transport answers with net/http's response for each body framing,
// keeps the connection when the body is whole and framed (Content-Length,
// chunked, gzip it asked for, 1xx before the answer), sends the request's
// User-Agent and asks for gzip as net/http does; a body read to its end
// without framing (the server closes) is not kept.
func TestFastTransportBodies(t *testing.T) {
	const text = "<http://a.example/web/20100101000000/http://x/>; rel=\"memento\"; datetime=\"Fri, 01 Jan 2010 00:00:00 GMT\"\n"
	for _, tc := range []struct {
		name      string
		handler   http.HandlerFunc
		wantConns int64
		wantGzip  bool // the answer came gzipped and was decoded
	}{
		{name: "content-length", wantConns: 1, handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, text)
		}},
		{name: "chunked", wantConns: 1, handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, text[:10])
			w.(http.Flusher).Flush()
			io.WriteString(w, text[10:])
		}},
		{name: "gzip", wantConns: 1, wantGzip: true, handler: func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Accept-Encoding") != "gzip" {
				http.Error(w, "no gzip asked", http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, text)
			zw.Close()
		}},
		{name: "early-hints", wantConns: 1, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "</a.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Del("Link")
			io.WriteString(w, text)
		}},
		{name: "until-close", wantConns: 3, handler: func(w http.ResponseWriter, r *http.Request) {
			conn, bw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/link-format\r\n\r\n" + text)
			bw.Flush()
			conn.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if ua := r.Header.Get("User-Agent"); ua != "mementokit-test" {
					http.Error(w, "User-Agent "+ua, http.StatusBadRequest)
					return
				}
				tc.handler(w, r)
			}))
			conns := connCounter(srv)
			srv.Start()
			defer srv.Close()
			rt := newFastTransport(&http.Transport{})
			defer rt.CloseIdleConnections()
			for range 3 {
				resp, body := fastGet(t, rt, t.Context(), srv.URL+"/timemap/link/http://x/")
				if resp.StatusCode != http.StatusOK || body != text {
					t.Fatalf("status %d, body %q", resp.StatusCode, body)
				}
				if resp.Uncompressed != tc.wantGzip || tc.wantGzip && resp.Header.Get("Content-Encoding") != "" {
					t.Errorf("Uncompressed %v, Content-Encoding %q", resp.Uncompressed, resp.Header.Get("Content-Encoding"))
				}
			}
			if got := conns.Load(); got != tc.wantConns {
				t.Errorf("3 requests opened %d connections, want %d", got, tc.wantConns)
			}
		})
	}
}

// A kept connection the archive closed while idle costs a request no
// failure: it is sent again on a new connection.
func TestFastTransportRetriesClosedIdle(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	conns := connCounter(srv)
	srv.Start()
	defer srv.Close()
	rt := newFastTransport(&http.Transport{})
	defer rt.CloseIdleConnections()
	fastGet(t, rt, t.Context(), srv.URL)
	srv.CloseClientConnections()
	time.Sleep(20 * time.Millisecond) // the close reaches the client side
	if _, body := fastGet(t, rt, t.Context(), srv.URL); body != "ok" {
		t.Fatalf("body %q", body)
	}
	if got := conns.Load(); got != 2 {
		t.Errorf("%d connections, want 2", got)
	}
}

// The request's context bounds the exchange: canceled before the headers
// came, RoundTrip returns its error; canceled while the body is read, the
// Read does; both at once, and the connection is not kept.
func TestFastTransportContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Length", "100")
			io.WriteString(w, "part")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	conns := connCounter(srv)
	srv.Start()
	defer srv.Close()
	defer close(release)
	rt := newFastTransport(&http.Transport{})
	defer rt.CloseIdleConnections()

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/headers", nil)
	start := time.Now()
	if _, err := rt.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("before the headers: err = %v, want the context's", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %v", d)
	}

	ctx, cancel = context.WithCancel(t.Context())
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/body", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.Canceled) {
		t.Errorf("in the body: err = %v, want context.Canceled", err)
	}
	resp.Body.Close()
	if n := rt.idleCount(); n != 0 {
		t.Errorf("%d idle connections after canceled requests", n)
	}
	if got := conns.Load(); got != 2 {
		t.Errorf("%d connections, want 2", got)
	}
}

// Response headers over MaxResponseHeaderBytes fail with net/http's
// words (isHeaderTooLarge), and the trace hooks the search's progress
// reads are called.
func TestFastTransportHeaderCapAndTrace(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Header().Set("Link", strings.Repeat("x", 8<<10))
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	rt := newFastTransport(&http.Transport{MaxResponseHeaderBytes: 4 << 10})
	defer rt.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/big", nil)
	if _, err := rt.RoundTrip(req); !isHeaderTooLarge(err) {
		t.Errorf("err = %v, want headers over the limit", err)
	}
	var wrote, first atomic.Bool
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{
		WroteRequest:         func(i httptrace.WroteRequestInfo) { wrote.Store(i.Err == nil) },
		GotFirstResponseByte: func() { first.Store(true) },
	})
	fastGet(t, rt, ctx, srv.URL+"/small")
	if !wrote.Load() || !first.Load() {
		t.Errorf("WroteRequest %v, GotFirstResponseByte %v", wrote.Load(), first.Load())
	}
}

// https goes over TLS with the Transport's TLSClientConfig in HTTP/1.1,
// and the connection is kept.
func TestFastTransportTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			http.Error(w, "no TLS", http.StatusBadRequest)
			return
		}
		io.WriteString(w, r.Proto)
	}))
	conns := connCounter(srv)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	cfg := srv.Client().Transport.(*http.Transport).TLSClientConfig
	rt := newFastTransport(&http.Transport{TLSClientConfig: cfg, TLSHandshakeTimeout: 5 * time.Second})
	defer rt.CloseIdleConnections()
	for range 2 {
		if _, body := fastGet(t, rt, t.Context(), srv.URL); body != "HTTP/1.1" {
			t.Fatalf("body %q", body)
		}
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("%d connections, want 1", got)
	}
	// Without the test CA the handshake fails.
	rt2 := newFastTransport(&http.Transport{})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if _, err := rt2.RoundTrip(req); err == nil {
		t.Error("no error from an unknown certificate")
	}
}

// A request the Transport's Proxy sends through a proxy goes to the
// Transport: the proxy sees the absolute URL.
func TestFastTransportProxy(t *testing.T) {
	var seen atomic.Value
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.RequestURI)
		io.WriteString(w, "via proxy")
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	tr := &http.Transport{Proxy: func(r *http.Request) (*url.URL, error) {
		if r.URL.Host == "archive.example" {
			return pu, nil
		}
		return nil, nil
	}}
	rt := newFastTransport(tr)
	defer rt.CloseIdleConnections()
	if _, body := fastGet(t, rt, t.Context(), "http://archive.example/timemap/link/http://x/"); body != "via proxy" {
		t.Fatalf("body %q", body)
	}
	if got, _ := seen.Load().(string); got != "http://archive.example/timemap/link/http://x/" {
		t.Errorf("proxy saw %q", got)
	}
}

// The request line carries the URI-R as given, not re-encoded, and
// exactly the headers of the request.
func TestFastTransportRequestBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		var b strings.Builder
		for {
			line, err := br.ReadString('\n')
			b.WriteString(line)
			if err != nil || line == "\r\n" {
				break
			}
		}
		got <- b.String()
		io.WriteString(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
	}()
	rt := newFastTransport(&http.Transport{DisableCompression: true})
	defer rt.CloseIdleConnections()
	u := "http://" + ln.Addr().String() + "/timemap/link/http://x.example/a%2Fb?q=%7E"
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	req.Header["User-Agent"] = []string{"mementokit-aggregator"}
	req.Header.Set("Accept-Datetime", "Fri, 01 Jan 2010 00:00:00 GMT")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := "GET /timemap/link/http://x.example/a%2Fb?q=%7E HTTP/1.1\r\nHost: " + ln.Addr().String() +
		"\r\nUser-Agent: mementokit-aggregator\r\nAccept-Datetime: Fri, 01 Jan 2010 00:00:00 GMT\r\n\r\n"
	if s := <-got; s != want {
		t.Errorf("request\n%q, want\n%q", s, want)
	}
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// HTTPUpstream sends through its own transport when its Client's
// Transport is an *http.Transport, and through the Transport as it is
// with StdTransport; CloseIdleConnections closes what it keeps.
func TestHTTPUpstreamTransportChoice(t *testing.T) {
	tr := &http.Transport{}
	u := &HTTPUpstream{Client: &http.Client{Transport: tr}}
	if _, ok := u.transport().(*fastTransport); !ok {
		t.Errorf("transport %T, want the fast transport", u.transport())
	}
	if u.transport() != u.transport() {
		t.Error("a new transport per call")
	}
	std := &HTTPUpstream{Client: &http.Client{Transport: tr}, StdTransport: true}
	if got := std.transport(); got != tr {
		t.Errorf("StdTransport: transport %T", got)
	}
	other := &HTTPUpstream{Client: &http.Client{Transport: cannedTransport{[]byte("x")}}}
	if _, ok := other.transport().(cannedTransport); !ok {
		t.Errorf("another RoundTripper: transport %T", other.transport())
	}
	u.CloseIdleConnections()
	other.CloseIdleConnections()
}
