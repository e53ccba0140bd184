package archiveserver

import (
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestListenBoundsConnections: under many idle connections (clients that
// connect and send nothing) the server holds at most maxConns open at once,
// closes each after the header timeout, and still answers a real request.
// Before, every connection was accepted: 3000 idle ones held 3011 open
// files of the archive command.
func TestListenBoundsConnections(t *testing.T) {
	const maxConns, idle = 8, 40
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Connections are counted open from their Accept to their Close, below
	// the limit (a ConnState count lags behind the place given back).
	cl := &countingListener{Listener: inner}
	ln := LimitConns(cl, maxConns)
	hs := HTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}), &Timeouts{ReadHeader: 200 * time.Millisecond}, nil, nil)
	go hs.Serve(ln)
	defer hs.Close()

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range idle {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// Each idle connection is accepted in its turn and closed after the
	// header timeout.
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		cl.mu.Lock()
		a := cl.accepted
		cl.mu.Unlock()
		if a >= idle {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("%d of %d idle connections accepted after 30 s", a, idle)
		}
	}
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" {
		t.Errorf("a request after the idle ones: %d %q", resp.StatusCode, b)
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.peak != maxConns {
		t.Errorf("%d connections open at once, want %d (the bound, reached)", cl.peak, maxConns)
	}
	if _, err := Listen("127.0.0.1:0", -1); err == nil {
		t.Error("Listen with -1 connections: no error")
	}
}

// countingListener counts its connections open at once, and the most.
type countingListener struct {
	net.Listener
	mu                   sync.Mutex
	open, peak, accepted int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.accepted++
	l.peak = max(l.peak, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return err
}
