package aggregator

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A gzip bomb (64 MiB of TimeMap in 100-odd KiB of gzip, with
// Content-Encoding: gzip and the compressed Content-Length) is cut at
// MaxBodyBytes of decoded bytes, with the mementos before the cut, over
// the upstream transport as over net/http's.
func TestGzipBombCutAtDecodedBytes(t *testing.T) {
	line := "<http://a.example/web/20010101000000/http://x/>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\",\n"
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestCompression)
	chunk := []byte(strings.Repeat(line, 1<<20/len(line)))
	for written := 0; written < 64<<20; written += len(chunk) {
		zw.Write(chunk)
	}
	zw.Close()
	bomb := zb.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			http.Error(w, "no gzip asked", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/link-format")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(bomb)))
		w.Write(bomb)
	}))
	defer srv.Close()
	const maxBody = 1 << 20
	for _, std := range []bool{false, true} {
		u := &HTTPUpstream{Client: &http.Client{Transport: &http.Transport{}}, StdTransport: std, MaxBodyBytes: maxBody}
		a := &Archive{ID: "bomb", TimeMap: srv.URL + "/tm/"}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ms, _, err := u.TimeMap(ctx, a, "http://x/")
		cancel()
		if r := reasonOf(err); r != ReasonTooLarge {
			t.Errorf("StdTransport %v: reason %q (%v), want %q", std, r, err, ReasonTooLarge)
		}
		if n := len(ms) * len(line); n > maxBody || len(ms) == 0 {
			t.Errorf("StdTransport %v: %d mementos (%d bytes of links), want some and at most %d bytes", std, len(ms), n, maxBody)
		}
		u.CloseIdleConnections()
	}
}
