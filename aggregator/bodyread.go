package aggregator

import (
	"io"
	"strings"
	"sync"
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
// a body of unknown length is read into pooled chunks first and copied
// once. err is nil at the body's end, else the read error, with the bytes
// before it.
func readBody(r io.Reader, length, limit int64) (string, error) {
	var sb strings.Builder
	if length >= 0 {
		sb.Grow(int(min(length, limit+1)))
		c := chunkPool.Get().(*[]byte)
		defer chunkPool.Put(c)
		_, err := io.CopyBuffer(&sb, struct{ io.Reader }{r}, *c)
		return sb.String(), err
	}
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
