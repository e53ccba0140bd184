package aggregator

import (
	"io"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// errReader returns err once the bytes before it are read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// bodyChunk is the size of the pooled buffers readBody reads a body of
// unknown length into.
const bodyChunk = 256 << 10

var chunkPool = sync.Pool{New: func() any { b := make([]byte, bodyChunk); return &b }}

// readBody reads r to its end, or to its first error, into one string of
// exactly the bytes read: a single allocation per body. length is the
// body's Content-Length (-1 unknown) and limit the most r gives before
// its error (a limitedBody's), which bound the string allocated ahead;
// a body with a Content-Length is read into the string's own bytes, one
// of unknown length into pooled chunks first and copied once. err is nil at the body's end, else the read error, with the bytes
// before it.
func readBody(r io.Reader, length, limit int64) (string, error) {
	if length >= 0 {
		// Read straight into the string's bytes: one allocation of the
		// length (and one byte of room for the read that finds the end),
		// more only for a body longer than its Content-Length.
		buf := make([]byte, 0, min(length, max(limit, 0)+1)+1)
		for {
			if len(buf) == cap(buf) {
				buf = slices.Grow(buf, min(len(buf), bodyChunk))
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				// buf is not written to again: the string shares its bytes.
				return unsafe.String(unsafe.SliceData(buf), len(buf)), err
			}
		}
	}
	var sb strings.Builder
	var (
		chunks []*[]byte
		last   int // bytes in the last chunk
		total  int
		err    error
	)
	defer func() {
		for _, c := range chunks {
			chunkPool.Put(c)
		}
	}()
	for err == nil {
		if len(chunks) == 0 || last == bodyChunk {
			chunks = append(chunks, chunkPool.Get().(*[]byte))
			last = 0
		}
		var n int
		n, err = r.Read((*chunks[len(chunks)-1])[last:])
		last += n
		total += n
	}
	if err == io.EOF {
		err = nil
	}
	sb.Grow(total)
	for i, c := range chunks {
		if i == len(chunks)-1 {
			sb.Write((*c)[:last])
		} else {
			sb.Write(*c)
		}
	}
	return sb.String(), err
}
