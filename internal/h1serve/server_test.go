package h1serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// start serves h on a 127.0.0.1 port with edit applied to the server; it
// returns the server and its address, and shuts it down at the test's end.
func start(t testing.TB, h http.Handler, edit func(*Server)) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, WriteTimeout: time.Minute,
		ErrorLog: log.New(io.Discard, "", 0)}
	if edit != nil {
		edit(s)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return s, ln.Addr().String()
}

func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a hung server fails the test, it does not hang it
	return c
}

// echo answers with the method, target, Host and the named headers.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "%s %s host=%s body=%q ua=%s", r.Method, r.RequestURI, r.Host, b, r.Header.Get("User-Agent"))
})

// closedByServer reports whether the server closed c: a read that ends
// with EOF or a reset, after any bytes left.
func closedByServer(c net.Conn) bool {
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout())
}

// TestPipelinedInOrder sends three requests in one write and reads three
// answers, in order, on the same connection, then a fourth after them.
func TestPipelinedInOrder(t *testing.T) {
	_, addr := start(t, echo, nil)
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: a\r\nUser-Agent: x\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for _, want := range []string{`GET /1 host=a body="" ua=`, `POST /2 host=a body="abc" ua=`, `GET /3 host=a body="" ua=x`} {
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		if string(b) != want || res.StatusCode != 200 || res.ContentLength != int64(len(want)) {
			t.Errorf("answer %d %q (length %d), want %q", res.StatusCode, b, res.ContentLength, want)
		}
	}
	_, _ = io.WriteString(c, "POST /chunked HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n")
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if string(b) != `POST /chunked host=a body="abc" ua=` || !res.Close {
		t.Errorf("chunked body: %q, close %v; want its body and the connection closed", b, res.Close)
	}
	if !closedByServer(c) {
		t.Error("connection kept after a chunked body")
	}
	c = dial(t, addr)
	br = bufio.NewReader(c)
	_, _ = io.WriteString(c, "GET /4 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
	res, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	if string(b) != `GET /4 host=a body="" ua=` || !res.Close {
		t.Errorf("after Connection: close: %q, close %v", b, res.Close)
	}
	if !closedByServer(c) {
		t.Error("connection kept after Connection: close")
	}
}

// TestRefusedAndClosed checks that a refused request is answered with its
// status and the connection closed: the request after it, smuggled in the
// same bytes, is never answered.
func TestRefusedAndClosed(t *testing.T) {
	var served atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		io.WriteString(w, "ok")
	})
	_, addr := start(t, h, nil)
	smuggled := "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n"
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"CL.TE", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled, 400},
		{"TE.CL", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n5c\r\n" + smuggled + "\r\n0\r\n\r\n", 400},
		{"TE obfuscated", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n" + smuggled, 501},
		{"TE space before colon", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + smuggled, 400},
		{"two CL", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 38\r\n\r\n" + smuggled, 400},
		{"GET with body", "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 38\r\n\r\n" + smuggled, 400},
		{"GET chunked", "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled, 400},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n Transfer-Encoding: chunked\r\n\r\n" + smuggled, 400},
		{"bare LF", "GET / HTTP/1.1\nHost: a\n\n" + smuggled, 400},
		{"request line too long", "GET /" + strings.Repeat("a", MaxRequestLine) + " HTTP/1.1\r\nHost: a\r\n\r\n" + smuggled, 414},
		{"header fields too large", "GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("a", MaxHeaderLine) + "\r\n\r\n" + smuggled, 431},
		{"header flood", "GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X-Flood: 1\r\n", 10*MaxHeaders) + "\r\n" + smuggled, 431},
		{"head too large", "GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X-Flood: "+strings.Repeat("b", 8000)+"\r\n", 2*MaxHeadBytes/8000) + "\r\n" + smuggled, 431},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505},
	} {
		before := served.Load()
		c := dial(t, addr)
		go io.WriteString(c, tc.req) // the server may refuse before it has read all
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		res.Body.Close()
		if res.StatusCode != tc.status || !res.Close {
			t.Errorf("%s: %d (close %v), want %d and close", tc.name, res.StatusCode, res.Close, tc.status)
		}
		if !closedByServer(c) {
			t.Errorf("%s: connection not closed", tc.name)
		}
		if n := served.Load() - before; n != 0 {
			t.Errorf("%s: %d requests reached the handler", tc.name, n)
		}
	}
}

// TestSlowloris checks that a head sent a byte at a time is cut at
// ReadHeaderTimeout from its first byte, and that a body left unsent
// after an answer is waited for no longer: both connections close.
func TestSlowloris(t *testing.T) {
	_, addr := start(t, echoNoBody, func(s *Server) { s.ReadHeaderTimeout = 300 * time.Millisecond })
	c := dial(t, addr)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		head := "GET / HTTP/1.1\r\nHost: a\r\nX-Slow: " + strings.Repeat("a", 10_000)
		for i := 0; i < len(head); i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := c.Write([]byte{head[i]}); err != nil {
				return
			}
		}
	}()
	if b, _ := io.ReadAll(c); len(b) != 0 {
		t.Errorf("slow head answered: %q", b)
	}

	c2 := dial(t, addr)
	_, _ = io.WriteString(c2, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n0123456789")
	br := bufio.NewReader(c2)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("status %d", res.StatusCode)
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Error("connection with an unsent body kept open")
		}
	}
}

var echoNoBody = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })

// TestHalfClosed checks that a client that ends its writes after its
// request gets the whole answer, and the connection then closes.
func TestHalfClosed(t *testing.T) {
	_, addr := start(t, echo, nil)
	c := dial(t, addr)
	_, _ = io.WriteString(c, "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n")
	c.(*net.TCPConn).CloseWrite()
	br := bufio.NewReader(c)
	for _, want := range []string{`GET /a host=a body="" ua=`, `GET /b host=a body="" ua=`} {
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		if string(b) != want {
			t.Errorf("%q, want %q", b, want)
		}
	}
	if !closedByServer(c) {
		t.Error("half-closed connection not closed")
	}
}

// TestContextCanceledWhenClientGoes checks that a request's context ends
// when its client closes the connection while the handler waits on it,
// and that a request whose handler returned has its context ended.
func TestContextCanceledWhenClientGoes(t *testing.T) {
	started := make(chan struct{})
	canceled := make(chan error, 1)
	var kept context.Context
	var mu sync.Mutex
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/quick" {
			mu.Lock()
			kept = r.Context()
			mu.Unlock()
			io.WriteString(w, "quick")
			return
		}
		close(started)
		select {
		case <-r.Context().Done():
			canceled <- r.Context().Err()
		case <-time.After(20 * time.Second):
			canceled <- errors.New("not canceled")
		}
	})
	_, addr := start(t, h, nil)
	c := dial(t, addr)
	_, _ = io.WriteString(c, "GET /quick HTTP/1.1\r\nHost: a\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	mu.Lock()
	if kept == nil || kept.Err() != context.Canceled {
		t.Errorf("context after the answer: %v", kept.Err())
	}
	select {
	case <-kept.Done():
	default:
		t.Error("Done of an ended request's context not closed")
	}
	mu.Unlock()

	_, _ = io.WriteString(c, "GET /wait HTTP/1.1\r\nHost: a\r\n\r\n")
	<-started
	c.Close()
	if err := <-canceled; err != context.Canceled {
		t.Errorf("context when the client went: %v", err)
	}
}

// TestIdleConnectionsAgainstTheCap opens 10,000 idle connections to a
// server capped at 100: it never holds more than the cap, and a new
// client is still answered.
func TestIdleConnectionsAgainstTheCap(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 connections")
	}
	s, addr := start(t, echoNoBody, func(s *Server) { s.MaxConns = 100 })
	conns := make([]net.Conn, 0, 10_000)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 10_000 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("after %d connections: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	// The server has accepted all the connections once it answers a
	// request on a new one (the listener's queue is in order).
	c := dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || string(b) != "ok" {
		t.Errorf("new client at the cap: %d %q", res.StatusCode, b)
	}
	s.mu.Lock()
	n := len(s.conns)
	s.mu.Unlock()
	if n > 100 {
		t.Errorf("%d connections held, cap 100", n)
	}
}

// TestCapWithNoneIdle checks that at the cap with every connection
// answering, a new connection is answered 503 and closed.
func TestCapWithNoneIdle(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	_, addr := start(t, h, func(s *Server) { s.MaxConns = 2 })
	defer close(release)
	for range 2 {
		c := dial(t, addr)
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		<-entered
	}
	c := dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusServiceUnavailable || !res.Close {
		t.Errorf("at the cap: %d, close %v; want 503 and close", res.StatusCode, res.Close)
	}
}

// TestShutdownGraceful checks that Shutdown closes idle connections at
// once, lets a request being answered finish (its answer says
// Connection: close), and returns nil then.
func TestShutdownGraceful(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(entered)
			<-release
		}
		io.WriteString(w, "done")
	})
	s, addr := start(t, h, nil)
	idle := dial(t, addr)
	_, _ = io.WriteString(idle, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	ibr := bufio.NewReader(idle)
	if res, err := http.ReadResponse(ibr, nil); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	busy := dial(t, addr)
	_, _ = io.WriteString(busy, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
	<-entered
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	if _, err := ibr.ReadByte(); err == nil {
		t.Error("idle connection not closed by Shutdown")
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a request being answered", err)
	default:
	}
	close(release)
	res, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if string(b) != "done" || !res.Close {
		t.Errorf("answer during Shutdown: %q, close %v", b, res.Close)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestFraming checks how answers are framed: a Content-Length for a short
// answer the handler gave none, chunked for a long one or one flushed,
// none for HEAD's body, 204 and 304, and an HTTP/1.0 answer closed.
func TestFraming(t *testing.T) {
	long := strings.Repeat("x", 3*bufferBeforeChunking)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/short":
			io.WriteString(w, "<html>short")
		case "/long":
			io.WriteString(w, long)
		case "/flushed":
			io.WriteString(w, "a")
			w.(http.Flusher).Flush()
			io.WriteString(w, "b")
		case "/204":
			w.WriteHeader(204)
			if _, err := io.WriteString(w, "x"); err != http.ErrBodyNotAllowed {
				panic("write on 204")
			}
		case "/103":
			w.WriteHeader(103)
			w.Header().Set("X-After", "1")
			io.WriteString(w, "after 103")
		case "/cl":
			w.Header().Set("Content-Length", "4")
			io.WriteString(w, "four")
		case "/header-after":
			w.WriteHeader(200)
			w.Header().Set("X-Late", "1")
			io.WriteString(w, "late")
		}
	})
	_, addr := start(t, h, nil)
	for _, tc := range []struct {
		req, wantBody string
		wantCL        int64
		chunked       bool
		wantType      string
		close         bool
	}{
		{req: "GET /short HTTP/1.1", wantBody: "<html>short", wantCL: 11, wantType: "text/html; charset=utf-8"},
		{req: "GET /long HTTP/1.1", wantBody: long, wantCL: -1, chunked: true},
		{req: "GET /flushed HTTP/1.1", wantBody: "ab", wantCL: -1, chunked: true},
		{req: "HEAD /short HTTP/1.1", wantBody: "", wantCL: 11},
		{req: "HEAD /cl HTTP/1.1", wantBody: "", wantCL: 4},
		{req: "GET /cl HTTP/1.1", wantBody: "four", wantCL: 4},
		{req: "GET /204 HTTP/1.1", wantBody: "", wantCL: 0},
		{req: "GET /103 HTTP/1.1", wantBody: "after 103", wantCL: 9},
		{req: "GET /header-after HTTP/1.1", wantBody: "late", wantCL: 4},
		{req: "GET /long HTTP/1.0", wantBody: long, wantCL: -1, close: true},
	} {
		c := dial(t, addr)
		_, _ = io.WriteString(c, tc.req+"\r\nHost: a\r\n\r\n")
		method, _, _ := strings.Cut(tc.req, " ")
		res, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
		if err != nil {
			t.Errorf("%s: %v", tc.req, err)
			continue
		}
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Errorf("%s: body: %v", tc.req, err)
		}
		if string(b) != tc.wantBody || res.ContentLength != tc.wantCL || (len(res.TransferEncoding) > 0) != tc.chunked || res.Close != tc.close {
			t.Errorf("%s: %q, length %d, TE %v, close %v; want %d bytes, length %d, chunked %v, close %v",
				tc.req, b[:min(len(b), 20)], res.ContentLength, res.TransferEncoding, res.Close, len(tc.wantBody), tc.wantCL, tc.chunked, tc.close)
		}
		if tc.wantType != "" && res.Header.Get("Content-Type") != tc.wantType {
			t.Errorf("%s: Content-Type %q, want %q", tc.req, res.Header.Get("Content-Type"), tc.wantType)
		}
		if res.Header.Get("Date") == "" {
			t.Errorf("%s: no Date", tc.req)
		}
		if res.Header.Get("X-Late") != "" || res.Header.Get("X-After") != "1" && strings.Contains(tc.req, "103") {
			t.Errorf("%s: headers %v", tc.req, res.Header)
		}
	}
}

// TestPanicClosesConnection checks that a handler's panic closes its
// connection without an answer and leaves the server serving.
func TestPanicClosesConnection(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic("boom")
		}
		io.WriteString(w, "ok")
	})
	_, addr := start(t, h, nil)
	c := dial(t, addr)
	_, _ = io.WriteString(c, "GET /panic HTTP/1.1\r\nHost: a\r\n\r\n")
	if b, _ := io.ReadAll(c); len(b) != 0 {
		t.Errorf("answer after a panic: %q", b)
	}
	res, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("status %d after a panic", res.StatusCode)
	}
}

// TestIdleConnectionDropsLargeBuffer sends a request head of 990 KB
// (99 header lines of 10 KB) and reads its answer: the connection, idle
// again, holds a read buffer of initialReadBuf bytes, not the 1 MiB the
// head grew it to (300 such idle connections held 695 MB of RSS).
func TestIdleConnectionDropsLargeBuffer(t *testing.T) {
	s, addr := start(t, echo, nil)
	c := dial(t, addr)
	var b strings.Builder
	b.WriteString("GET /big HTTP/1.1\r\nHost: a\r\n")
	for i := range 99 {
		fmt.Fprintf(&b, "X-%02d: %s\r\n", i, strings.Repeat("a", 10000))
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(c, b.String()); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "GET /big host=a") {
		t.Fatalf("answer %d %q", res.StatusCode, body)
	}
	// The connection is idle once its goroutine waits for the next head.
	var size int
	for i := 0; ; i++ {
		s.mu.Lock()
		idle := false
		for sc := range s.conns {
			if sc.state.Load() == stateIdle {
				idle, size = true, len(sc.buf)
			}
		}
		s.mu.Unlock()
		if idle {
			break
		}
		if i == 10000 {
			t.Fatal("the connection never became idle")
		}
		time.Sleep(time.Millisecond)
	}
	if size > initialReadBuf {
		t.Errorf("an idle connection holds a read buffer of %d bytes after a 990 KB head, want %d", size, initialReadBuf)
	}
	// The connection still serves.
	if _, err := io.WriteString(c, "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	if !strings.HasPrefix(string(body), "GET /next host=a") {
		t.Errorf("next answer %q", body)
	}
}

// TestSniffedContentTypeAsNetHTTP answers with handlers that set no
// Content-Type, on this server and on net/http's, and compares the
// Content-Type each sends: sniffed from the body's first bytes when a
// Content-Length comes before them, when the first Write is over 2 KiB
// (the answer is chunked), and on HEAD, whose body is not sent.
func TestSniffedContentTypeAsNetHTTP(t *testing.T) {
	html := "<html><body>" + strings.Repeat("x", 5000) + "</body></html>"
	handlers := map[string]http.HandlerFunc{
		"length before body": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(html)))
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, html)
		},
		"one write over 2 KiB": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, html)
		},
		"small writes": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, html[:100])
			io.WriteString(w, html[100:])
		},
		"nothing written": func(w http.ResponseWriter, r *http.Request) {},
	}
	for name, h := range handlers {
		_, strictAddr := start(t, h, nil)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ns := &http.Server{Handler: h}
		go ns.Serve(ln)
		t.Cleanup(func() { ns.Close() })
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			var types [2]string
			for i, addr := range []string{strictAddr, ln.Addr().String()} {
				req, _ := http.NewRequest(method, "http://"+addr+"/", nil)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if method == http.MethodGet && name != "nothing written" && string(body) != html {
					t.Errorf("%s %s: body of %d bytes, want %d", name, method, len(body), len(html))
				}
				types[i] = strings.Join(res.Header["Content-Type"], ", ")
			}
			if types[0] != types[1] {
				t.Errorf("%s, %s: Content-Type %q, net/http's %q", name, method, types[0], types[1])
			}
		}
	}
}

// TestOptionsAsterisk: OPTIONS * asks about the server itself (RFC 9110,
// 9.3.7): 204 with Allow (Server.Allow, else DefaultAllow), no body, the
// Handler not called, the connection kept for the next request; OPTIONS
// of a path goes to the Handler; a "*" target with another method is
// refused, 400, and the connection closed.
func TestOptionsAsterisk(t *testing.T) {
	var served atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		echo(w, r)
	})
	for _, allow := range []string{"", "GET, HEAD, OPTIONS"} {
		_, addr := start(t, h, func(s *Server) { s.Allow = allow })
		want := allow
		if want == "" {
			want = DefaultAllow
		}
		c := dial(t, addr)
		io.WriteString(c, "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\nOPTIONS /x HTTP/1.1\r\nHost: a\r\n\r\n")
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Allow") != want || len(b) != 0 || res.Close {
			t.Errorf("Allow %q: OPTIONS *: %d, Allow %q, body %q, close %v; want 204, Allow %q, kept",
				allow, res.StatusCode, res.Header.Get("Allow"), b, res.Close, want)
		}
		res, err = http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(res.Body)
		if res.StatusCode != 200 || !strings.HasPrefix(string(b), "OPTIONS /x ") || served.Load() != 1 {
			t.Errorf("OPTIONS /x after it: %d %q, %d requests served; want the handler's answer to it alone", res.StatusCode, b, served.Load())
		}
		served.Store(0)
	}
	_, addr := start(t, h, nil)
	for _, m := range []string{"GET", "HEAD", "POST", "DELETE"} {
		c := dial(t, addr)
		io.WriteString(c, m+" * HTTP/1.1\r\nHost: a\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: m})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 400 || !res.Close || !closedByServer(c) || served.Load() != 0 {
			t.Errorf("%s *: %d (close %v), want 400 and the connection closed, the handler not called", m, res.StatusCode, res.Close)
		}
	}
}
