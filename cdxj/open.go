package cdxj

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// OpenFile opens the index file at path for reading, decompressing it when
// it starts with the gzip magic bytes (RFC 1952 section 2.3.1), whatever its
// name. A gzip file may hold many concatenated members (multistream, as in
// .cdx.gz files and ZipNum parts); they are read as one stream. Close the
// result to release the file. The file is never modified.
//
// Use it as cdxj.NewReader(f). Memory: a 64 KiB read buffer, plus gzip's
// window when compressed.
func OpenFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rc, err := sniff(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return rc, nil
}

// NewDecompressor returns r as is, or, when its first bytes are the gzip
// magic, a reader of its decompressed (multistream) content. Closing the
// result closes the gzip reader, not r.
func NewDecompressor(r io.Reader) (io.ReadCloser, error) {
	return sniff(nopCloser{r}, "input")
}

type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

func sniff(f io.ReadCloser, name string) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("cdxj: %s: %w", name, err)
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("cdxj: %s: %w", name, err)
		}
		return &gzFile{zr: zr, f: f}, nil
	}
	return &plainFile{Reader: br, f: f}, nil
}

type plainFile struct {
	*bufio.Reader
	f io.Closer
}

func (p *plainFile) Close() error { return p.f.Close() }

type gzFile struct {
	zr *gzip.Reader
	f  io.Closer
}

func (g *gzFile) Read(p []byte) (int, error) { return g.zr.Read(p) }

func (g *gzFile) Close() error {
	err := g.zr.Close()
	if cerr := g.f.Close(); err == nil {
		err = cerr
	}
	return err
}
