package summary

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// truncatedGzip returns a gzip stream of text cut after half its bytes.
func truncatedGzip(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()[:b.Len()/2]
}

// Regression: a reader failing with io.ErrUnexpectedEOF (a truncated gzip
// member) made the compatibility reader loop for ever.
func TestCompatTruncatedGzipEnds(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 2000; i++ {
		text.WriteString("com,example)/ 20200101000000 {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"100\"}\n")
	}
	zr, err := gzip.NewReader(bytes.NewReader(truncatedGzip(t, text.String())))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	c := NewCompat(false, false, nil)
	go func() { done <- c.ReadFile("x.cdxj.gz", zr) }()
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("ReadFile error = %v, want io.ErrUnexpectedEOF", err)
		}
		if c.Stats().FailedFiles != 1 {
			t.Errorf("FailedFiles = %d, want 1", c.Stats().FailedFiles)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ReadFile did not return on a truncated gzip stream")
	}
}
