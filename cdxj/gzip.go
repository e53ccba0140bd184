package cdxj

import (
	"bufio"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// isGzip reports whether b starts with the gzip magic bytes (RFC 1952
// section 2.3.1).
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// memberReader decompresses a gzip stream of one or more members
// (RFC 1952 section 2.2: "a gzip file consists of a series of members")
// through github.com/klauspost/compress/gzip, one member at a time, and
// ends a member whose data does not end in '\n' with one: a member end is a
// line end. A ZipNum part written by pywb has no '\n' after the last line
// of each block; read as one multistream, that line would join the first
// line of the next block.
//
// It reads src through a *bufio.Reader of its own, which the decompressor
// reads from directly (its fast path), so it never consumes input past the
// member it is in.
type memberReader struct {
	cnt *countReader
	br  *bufio.Reader
	zr  gzip.Reader

	start  int64 // compressed offset of the member being read
	bgzf   bool  // the member is a BGZF block, cut anywhere: its end is no line end
	any    bool  // the member has given data
	last   byte  // its last byte
	owe    bool  // a '\n' is owed before the next member's data
	err    error // sticky
	closed bool
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// newMemberReader starts reading the gzip stream src. An error in the first
// member's header is returned, naming byte 0.
func newMemberReader(src io.Reader) (*memberReader, error) {
	m := &memberReader{cnt: &countReader{r: src}}
	m.br = bufio.NewReaderSize(m.cnt, 256<<10)
	if err := m.zr.Reset(m.br); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("gzip member at byte 0: %w", err)
	}
	m.zr.Multistream(false)
	m.bgzf = isBGZF(m.zr.Header.Extra)
	return m, nil
}

// consumed returns the number of compressed bytes the members read so far
// took (the offset in src of the next unread byte).
func (m *memberReader) consumed() int64 { return m.cnt.n - int64(m.br.Buffered()) }

func (m *memberReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if m.owe {
			m.owe = false
			p[0] = '\n'
			return 1, nil
		}
		if m.err != nil {
			return 0, m.err
		}
		n, err := m.zr.Read(p)
		if n > 0 {
			m.any, m.last = true, p[n-1]
		}
		switch {
		case err == io.EOF:
			// The member ended (its CRC-32 and size checked); a member
			// whose data lacks a final '\n' ends its last line here.
			m.owe = m.any && m.last != '\n' && !m.bgzf
			m.any = false
			m.start = m.consumed()
			if rerr := m.zr.Reset(m.br); rerr != nil {
				if rerr == io.EOF {
					m.err = io.EOF
				} else {
					m.err = fmt.Errorf("gzip member at byte %d: %w", m.start, rerr)
				}
			} else {
				m.zr.Multistream(false)
				m.bgzf = isBGZF(m.zr.Header.Extra)
			}
		case err != nil:
			m.err = fmt.Errorf("gzip member at byte %d: %w", m.start, err)
		}
		if n > 0 {
			return n, nil
		}
	}
}

// isBGZF reports whether the extra field of a gzip header (RFC 1952
// section 2.3.1.1) holds the "BC" subfield of BGZF (the SAM/BAM
// specification, section 4.1), whose members are cut every 64 KiB of data
// wherever that falls, mid-line included.
func isBGZF(extra []byte) bool {
	for len(extra) >= 4 {
		n := int(extra[2]) | int(extra[3])<<8
		if extra[0] == 'B' && extra[1] == 'C' {
			return true
		}
		if len(extra) < 4+n {
			return false
		}
		extra = extra[4+n:]
	}
	return false
}

// NewDecompressor returns a reader of r's content: r itself, or, when r's
// first bytes are the gzip magic (RFC 1952 section 2.3.1), its decompressed
// content, member after member (a multistream .gz file, such as a ZipNum
// part or a concatenation of .cdx.gz files), read with
// github.com/klauspost/compress/gzip. The end of a gzip member is a line
// end: a member whose data does not end in "\n" is followed by one, so that
// its last line never joins the first line of the next member (pywb writes
// ZipNum parts so). The members of a BGZF file (bgzip), which are cut every
// 64 KiB wherever that falls, are read as one stream. A corrupt or truncated member is a read error naming
// its byte offset in r. Closing the result does not close r.
//
// Use it for a stream of index or map lines from a pipe or from memory;
// for a file or a cluster, [Open] gives a Searcher. Memory: a 256 KiB read
// buffer, plus the decompressor's 32 KiB window.
func NewDecompressor(r io.Reader) (io.ReadCloser, error) {
	d, err := decompress(r)
	if err != nil {
		return nil, fmt.Errorf("cdxj: %w", err)
	}
	return io.NopCloser(d), nil
}

// decompress is NewDecompressor without the Closer.
func decompress(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if !isGzip(magic) {
		return br, nil
	}
	return newMemberReader(br)
}
