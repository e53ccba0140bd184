package summary

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"
)

// pyChunk is the size of the reads of Python's io.TextIOWrapper (its
// _CHUNK_SIZE); on a regular file each read returns that many bytes.
const pyChunk = 8192

// pyLineReader reads lines the way the original tool's Python 3 runtime
// does for open(name, 'r', encoding='utf-8'): the bytes are decoded as UTF-8,
// strictly, in chunks of 8192 bytes; universal newlines turn "\r\n" and a
// lone "\r" into "\n"; every line but possibly the last ends in "\n". A
// decoding error loses the whole chunk it occurs in: the lines completed
// before that chunk are returned, then the error.
type pyLineReader struct {
	r         io.Reader
	raw       []byte // undecoded carry: an incomplete UTF-8 sequence
	text      []byte // decoded, translated text not yet returned as lines
	start     int    // start of the unreturned text
	scan      int    // end of the unreturned text already searched for "\n"
	pending   bool   // a "\r" ended the last chunk
	offset    int64  // bytes read so far
	eof       bool
	atEOF     bool // the input gave io.EOF
	zeroReads int
	err       error
	buf       []byte
	joined    []byte // the carry and the chunk after it
}

// errDecode is the cause of a pyLineReader failure on bad UTF-8.
var errDecode = errors.New("invalid UTF-8 (the original tool abandons the rest of the file)")

func newPyLineReader(r io.Reader) *pyLineReader {
	return &pyLineReader{r: r, buf: make([]byte, pyChunk)}
}

// readLine returns the next line including its "\n" (aliasing an internal
// buffer, valid until the next call: copy what is kept), or io.EOF, or a
// decoding error.
func (p *pyLineReader) readLine() (string, error) {
	for {
		// p.text[p.start:p.scan] is known to hold no newline: scan only the
		// bytes added since, so that a long line costs linear time.
		if p.scan < p.start {
			p.scan = p.start
		}
		if i := indexNL(p.text[p.scan:]); i >= 0 {
			end := p.scan + i + 1
			line := p.text[p.start:end]
			p.start, p.scan = end, end
			return unsafe.String(unsafe.SliceData(line), len(line)), nil
		}
		p.scan = len(p.text)
		if p.err != nil {
			return "", p.err
		}
		if p.eof {
			if p.start < len(p.text) {
				line := p.text[p.start:]
				p.start = len(p.text)
				return unsafe.String(unsafe.SliceData(line), len(line)), nil
			}
			return "", io.EOF
		}
		p.fill()
	}
}

func indexNL(b []byte) int { return bytes.IndexByte(b, '\n') }

// readChunk fills p.buf as far as the input allows. It returns io.EOF only
// when no byte was read and the input is at its end; a short last chunk
// comes with a nil error and the following call gives io.EOF. Any other
// error (io.ErrUnexpectedEOF from a truncated gzip member included) is
// returned as is, and the bytes read with it are dropped, as Python's read
// raising an exception drops them.
func (p *pyLineReader) readChunk() (int, error) {
	if p.atEOF {
		return 0, io.EOF
	}
	n := 0
	for n < len(p.buf) {
		m, err := p.r.Read(p.buf[n:])
		n += m
		if err == io.EOF {
			p.atEOF = true
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		if m == 0 {
			p.zeroReads++
			if p.zeroReads > 100 {
				return 0, io.ErrNoProgress
			}
		}
	}
	return n, nil
}

// fill reads and decodes one chunk.
func (p *pyLineReader) fill() {
	// Drop returned text.
	if p.start > 0 {
		n := copy(p.text, p.text[p.start:])
		p.text = p.text[:n]
		p.scan -= p.start
		p.start = 0
	}
	n, err := p.readChunk()
	chunkStart := p.offset
	p.offset += int64(n)
	if err == io.EOF {
		// Python's final decode(b"", final=True).
		p.eof = true
		if len(p.raw) > 0 {
			p.err = fmt.Errorf("byte offset %d: truncated UTF-8 sequence at the end: %w", chunkStart-int64(len(p.raw)), errDecode)
			return
		}
		if p.pending {
			p.pending = false
			p.text = append(p.text, '\n')
		}
		return
	}
	if err != nil {
		p.err = err
		return
	}
	data := p.buf[:n]
	if len(p.raw) > 0 {
		p.joined = append(append(p.joined[:0], p.raw...), data...)
		data = p.joined
	}
	// Validate the whole chunk before using any of it.
	i := 0
	valid := len(data)
	if utf8.Valid(data) {
		i = len(data)
	}
	for i < len(data) {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(data[i:]) {
				valid = i // an incomplete sequence, completed by the next chunk
				break
			}
			p.err = fmt.Errorf("byte offset %d: %w", chunkStart-int64(len(p.raw))+int64(i), errDecode)
			return
		}
		i += size
	}
	p.raw = append(p.raw[:0], data[valid:]...)
	// Universal newlines.
	if !p.pending && bytes.IndexByte(data[:valid], '\r') < 0 {
		p.text = append(p.text, data[:valid]...)
		return
	}
	for _, c := range data[:valid] {
		if p.pending {
			p.pending = false
			p.text = append(p.text, '\n')
			if c == '\n' {
				continue
			}
		}
		if c == '\r' {
			p.pending = true
			continue
		}
		p.text = append(p.text, c)
	}
}
