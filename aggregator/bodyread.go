package aggregator

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/mementokit/mementokit/memento"
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
// error (a limitedBody's), which bound the buffer taken ahead: a body
// with a Content-Length is one string, read into a buffer of its length
// that earlier bodies released (bodyBuffers) or a new one, and own is
// that buffer, which the caller gives back (releaseBody) once no string
// of chunks is used any more, or leaves to the garbage collector. A body
// of unknown length is read through one pooled buffer into strings of at
// most bodyChunk bytes (linkChunks), so that it is never held twice; own
// is nil then. err is nil at the body's end, else the read error, with
// the bytes before it.
func readBody(r io.Reader, length, limit int64) (chunks []string, aligned bool, own []byte, err error) {
	if length >= 0 {
		// Read straight into the buffer: its length (and one byte of
		// room for the read that finds the end), more only for a body
		// longer than its Content-Length.
		want := int(min(length, max(limit, 0)+1) + 1)
		buf := bodyBuffers.get(want, 2*want+64<<10)
		if buf == nil {
			buf = make([]byte, 0, want)
		}
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
					return nil, true, buf, err
				}
				// buf is not written to again until it is released: the
				// string shares its bytes.
				return []string{unsafe.String(unsafe.SliceData(buf), len(buf))}, true, buf, err
			}
		}
	}
	c := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(c)
	chunks, aligned, err = linkChunks(r, *c)
	return chunks, aligned, nil, err
}

// bodyBuffers holds the buffers of bodies with a Content-Length whose
// text is no longer referred to (releaseBody): up to 16 MiB in all,
// each of 16 KiB (smaller ones cost little to allocate) to 4 MiB.
var bodyBuffers = freeList[byte]{most: 16 << 20, least: 16 << 10, one: 4 << 20, dirty: true}

// releaseBody gives own (readBody's) back for the bodies read next; no
// string of its chunks may be used afterwards.
func releaseBody(own []byte) {
	if own != nil {
		bodyBuffers.put(own[:0])
	}
}

// internLinks copies the URI-Ms of ms and the page links next, which
// refer to a body's text, into one new string (their bytes only, not
// zeroed first), so that the body's buffer can be reused.
func internLinks(ms []memento.Memento, next []string) {
	n := 0
	for i := range ms {
		n += len(ms[i].URIM)
	}
	for _, l := range next {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n)
	for i := range ms {
		b.WriteString(ms[i].URIM)
	}
	for _, l := range next {
		b.WriteString(l)
	}
	all := b.String()
	for i := range ms {
		ms[i].URIM, all = all[:len(ms[i].URIM)], all[len(ms[i].URIM):]
	}
	for i := range next {
		next[i], all = all[:len(next[i])], all[len(next[i]):]
	}
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
