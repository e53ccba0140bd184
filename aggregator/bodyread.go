package aggregator

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// errReader returns err once the bytes before it are read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// bodyChunk is the size of the pooled buffer readBody reads a body of
// unknown length through, and about the size of its chunks.
const bodyChunk = 256 << 10

var chunkPool = sync.Pool{New: func() any { b := make([]byte, bodyChunk); return &b }}

// readBody reads r to its end, or to its first error, and returns its
// bytes as chunks, each byte held once. length is the body's
// Content-Length (-1 unknown) and limit the most r gives before its
// error (a limitedBody's), which bound the string allocated ahead: a
// body with a Content-Length is one string, read into its own bytes. A
// body of unknown length is
// read through one pooled buffer into strings of at most bodyChunk bytes
// (linkChunks), so that it is never held twice. err is nil at the body's
// end, else the read error, with the bytes before it.
func readBody(r io.Reader, length, limit int64) (chunks []string, aligned bool, err error) {
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
				if len(buf) == 0 {
					return nil, true, err
				}
				// buf is not written to again: the string shares its bytes.
				return []string{unsafe.String(unsafe.SliceData(buf), len(buf))}, true, err
			}
		}
	}
	c := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(c)
	return linkChunks(r, *c)
}

// linkChunks reads r to its end, or to its first error, through buf
// into strings of at most len(buf) bytes. Each full one ends where a
// link-value of a TimeMap does, after its ',' and the white space before
// the next '<', when the second half of the buffer has such a place
// (linkCut); aligned is false when some full chunk had none and was cut
// at the buffer's end. The chunks of an aligned body are link-values
// whole, which fastChunks parses one by one.
func linkChunks(r io.Reader, buf []byte) (chunks []string, aligned bool, err error) {
	aligned = true
	fill := 0
	for err == nil {
		var n int
		n, err = r.Read(buf[fill:])
		fill += n
		if fill == len(buf) {
			cut := linkCut(buf)
			if cut < 0 {
				cut, aligned = fill, false
			}
			chunks = append(chunks, string(buf[:cut]))
			fill = copy(buf, buf[cut:fill])
		}
	}
	if err == io.EOF {
		err = nil
	}
	if fill > 0 {
		chunks = append(chunks, string(buf[:fill]))
	}
	return chunks, aligned, err
}

// linkCut is the offset of the last '<' of the second half of b that
// follows a ',' and white space only (where the next link-value of a
// TimeMap starts), or -1.
func linkCut(b []byte) int {
	half := len(b) / 2
	for end := len(b); end > half; {
		i := bytes.LastIndexByte(b[:end], '<')
		if i < half || i < 1 {
			return -1
		}
		j := i
		for j > 0 && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r' || b[j-1] == '\n') {
			j--
		}
		if j > 0 && b[j-1] == ',' {
			return i
		}
		end = i
	}
	return -1
}

// chunksReader reads the chunks one after the other.
func chunksReader(chunks []string) io.Reader {
	rs := make([]io.Reader, len(chunks))
	for i, c := range chunks {
		rs[i] = strings.NewReader(c)
	}
	return io.MultiReader(rs...)
}

// chunksPrefix is the first chunk, or "".
func chunksPrefix(chunks []string) string {
	if len(chunks) == 0 {
		return ""
	}
	return chunks[0]
}
