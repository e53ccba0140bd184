package mementomap

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/edsrzf/mmap-go"
	"github.com/mementokit/mementokit/cdxj"
)

// releaseEvery is how many bytes a mapped input reads before it gives the
// pages behind it back to the kernel.
const releaseEvery = 32 << 20

// mappedReader reads a memory-mapped file sequentially.
type mappedReader struct {
	f        *os.File
	m        mmap.MMap
	off      int
	released int
}

func (r *mappedReader) Read(p []byte) (int, error) {
	if r.off >= len(r.m) {
		return 0, io.EOF
	}
	n := copy(p, r.m[r.off:])
	r.off += n
	if r.off-r.released >= releaseEvery {
		// Drop the mapping of what was read: resident memory stays
		// bounded while the page cache keeps the data.
		end := r.off &^ (os.Getpagesize() - 1)
		if end > r.released {
			_ = syscall.Madvise(r.m[r.released:end], syscall.MADV_DONTNEED)
			r.released = end
		}
	}
	return n, nil
}

func (r *mappedReader) Close() error {
	err := r.m.Unmap()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// OpenInput opens an index or map file for one sequential pass. A
// non-empty regular file is memory-mapped, which spares the read system
// calls (the largest cost of reading a multi-gigabyte index from the page
// cache), and the pages already read are released every 32 MiB so that
// resident memory stays bounded; anything else is read normally. A gzip
// file (recognized by its magic bytes) is decompressed, multistream
// included (cdxj.NewDecompressor). The file is never modified; Close
// releases it.
func OpenInput(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var rc io.ReadCloser = f
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		if m, err := mmap.Map(f, mmap.RDONLY, 0); err == nil {
			_ = syscall.Madvise(m, syscall.MADV_SEQUENTIAL)
			rc = &mappedReader{f: f, m: m}
		}
	}
	d, err := cdxj.NewDecompressor(rc)
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("mementomap: %s: %w", path, err)
	}
	return &inputFile{ReadCloser: d, under: rc}, nil
}

// inputFile closes the decompressor and then the file.
type inputFile struct {
	io.ReadCloser
	under io.Closer
}

func (i *inputFile) Close() error {
	err := i.ReadCloser.Close()
	if cerr := i.under.Close(); err == nil {
		err = cerr
	}
	return err
}
