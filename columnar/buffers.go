package columnar

import (
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// pageFileBuffer is the size of the write buffer in front of each temporary
// page file: a data page reaches the file in four writes (header, levels,
// values), most of them a few hundred bytes, which this gathers into one
// system call per 32 KiB.
const pageFileBuffer = 32 << 10

// filePagePool is a parquet.BufferPool of temporary files in dir, each
// behind a write buffer of pageFileBuffer bytes; a returned file is
// removed.
type filePagePool struct {
	dir string
	err error
}

func newFilePagePool(dir string) parquet.BufferPool {
	abs, err := filepath.Abs(dir)
	return &filePagePool{dir: abs, err: err}
}

func (p *filePagePool) GetBuffer() io.ReadWriteSeeker {
	if p.err != nil {
		return &failedBuffer{p.err}
	}
	f, err := os.CreateTemp(p.dir, ".columnar-buffer-*")
	if err != nil {
		return &failedBuffer{err}
	}
	return &pageFile{f: f}
}

func (p *filePagePool) PutBuffer(b io.ReadWriteSeeker) {
	if pf, ok := b.(*pageFile); ok {
		pf.f.Close()
		os.Remove(pf.f.Name())
	}
}

// pageFile is a temporary file written through a buffer. Seek and Read see
// every byte written before them.
type pageFile struct {
	f   *os.File
	buf []byte
	err error
}

func (b *pageFile) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(b.buf)+len(p) > pageFileBuffer {
		if err := b.flush(); err != nil {
			return 0, err
		}
		if len(p) >= pageFileBuffer {
			n, err := b.f.Write(p)
			b.err = err
			return n, err
		}
	}
	if b.buf == nil {
		b.buf = make([]byte, 0, pageFileBuffer)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *pageFile) flush() error {
	if b.err != nil || len(b.buf) == 0 {
		return b.err
	}
	_, b.err = b.f.Write(b.buf)
	b.buf = b.buf[:0]
	return b.err
}

func (b *pageFile) Seek(offset int64, whence int) (int64, error) {
	if err := b.flush(); err != nil {
		return 0, err
	}
	return b.f.Seek(offset, whence)
}

func (b *pageFile) Read(p []byte) (int, error) {
	if err := b.flush(); err != nil {
		return 0, err
	}
	return b.f.Read(p)
}

// WriteTo copies the rest of the file, from the current offset, to w. When
// w leads to an *os.File (the Writer's countingWriter in front of the output
// file), the kernel copies the pages file to file (copy_file_range(2))
// instead of reading them into memory and writing them out again.
func (b *pageFile) WriteTo(w io.Writer) (int64, error) {
	if err := b.flush(); err != nil {
		return 0, err
	}
	return io.Copy(w, b.f)
}

// failedBuffer is the buffer of a pool that could not make one: every call
// returns its error.
type failedBuffer struct{ err error }

func (b *failedBuffer) Read([]byte) (int, error)       { return 0, b.err }
func (b *failedBuffer) Write([]byte) (int, error)      { return 0, b.err }
func (b *failedBuffer) Seek(int64, int) (int64, error) { return 0, b.err }

// sink returns a pageSink on a new temporary file of the pool.
func (p *filePagePool) sink() (pageSink, error) {
	if p.err != nil {
		return &failedBuffer{p.err}, p.err
	}
	f, err := os.CreateTemp(p.dir, ".columnar-buffer-*")
	if err != nil {
		return &failedBuffer{err}, err
	}
	return &pageFile{f: f}, nil
}

// copyTo writes the whole file to w (see WriteTo).
func (b *pageFile) copyTo(w io.Writer) (int64, error) {
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return b.WriteTo(w)
}

// reset empties the file.
func (b *pageFile) reset() error {
	if err := b.flush(); err != nil {
		return err
	}
	if err := b.f.Truncate(0); err != nil {
		b.err = err
		return err
	}
	_, err := b.f.Seek(0, io.SeekStart)
	b.err = err
	return err
}

// close closes and removes the file.
func (b *pageFile) close() error {
	err := b.f.Close()
	if rerr := os.Remove(b.f.Name()); err == nil {
		err = rerr
	}
	return err
}

func (b *failedBuffer) copyTo(io.Writer) (int64, error) { return 0, b.err }
func (b *failedBuffer) reset() error                    { return b.err }
func (b *failedBuffer) close() error                    { return nil }
