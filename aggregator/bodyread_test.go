package aggregator

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadBody: readBody returns every byte the body gives, up to its
// end or its first error, whether its Content-Length is right, short or
// long, or unknown, read whole, one byte at a time, or with the error
// on the last data read.
func TestReadBody(t *testing.T) {
	const body = "<http://a.example/>; rel=\"original\",\n<http://a.example/web/2005/http://a.example/>; rel=\"memento\""
	errCut := errors.New("connection reset")
	for _, tc := range []struct {
		name    string
		r       func() io.Reader
		length  int64
		limit   int64
		want    string
		wantErr error
	}{
		{"known", func() io.Reader { return strings.NewReader(body) }, int64(len(body)), 1 << 20, body, nil},
		{"known-one-byte", func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) }, int64(len(body)), 1 << 20, body, nil},
		{"known-data-err", func() io.Reader { return iotest.DataErrReader(strings.NewReader(body)) }, int64(len(body)), 1 << 20, body, nil},
		{"length-says-more", func() io.Reader { return strings.NewReader(body) }, int64(len(body)) + 10, 1 << 20, body, nil},
		{"length-says-less", func() io.Reader { return strings.NewReader(body) }, 10, 1 << 20, body, nil},
		{"length-says-less-one-byte", func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) }, 10, 1 << 20, body, nil},
		{"empty", func() io.Reader { return strings.NewReader("") }, 0, 1 << 20, "", nil},
		{"unknown", func() io.Reader { return strings.NewReader(body) }, -1, 1 << 20, body, nil},
		{"known-cut", func() io.Reader { return io.MultiReader(strings.NewReader(body[:20]), iotest.ErrReader(errCut)) }, int64(len(body)), 1 << 20, body[:20], errCut},
		{"unknown-cut", func() io.Reader { return io.MultiReader(strings.NewReader(body[:20]), iotest.ErrReader(errCut)) }, -1, 1 << 20, body[:20], errCut},
		{"after-length-cut", func() io.Reader { return io.MultiReader(strings.NewReader(body), iotest.ErrReader(errCut)) }, int64(len(body)), 1 << 20, body, errCut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunks, _, _, err := readBody(tc.r(), tc.length, tc.limit)
			if got := strings.Join(chunks, ""); got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("readBody = %q, %v; want %q, %v", chunks, err, tc.want, tc.wantErr)
			}
		})
	}
}
