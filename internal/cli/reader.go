package cli

import (
	"context"
	"io"
	"os"
)

// Reader returns r read under ctx: once ctx is done, Read returns its
// cause (a [*SignalError] under [Main]) at once, even while a read of r is
// blocked (a FIFO or pipe that sends nothing, a terminal). A regular file
// never blocks for long, so it is read directly and ctx is checked before
// each read; anything else is read by a goroutine of Reader's, one buffer
// at a time, which is left blocked when ctx ends (it ends with the
// process). The returned reader keeps r's Name method, if any, so that
// errors can still name the file.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return &checkedReader{ctx: ctx, r: r, name: f.Name()}
		}
	}
	name := ""
	if n, ok := r.(interface{ Name() string }); ok {
		name = n.Name()
	}
	return &asyncReader{ctx: ctx, r: r, name: name}
}

// checkedReader checks ctx before each read.
type checkedReader struct {
	ctx  context.Context
	r    io.Reader
	name string
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// Name returns the name of the file read ("" when unknown).
func (c *checkedReader) Name() string { return c.name }

// asyncReader reads r in a goroutine, so that a blocked read does not
// hold off ctx.
type asyncReader struct {
	ctx     context.Context
	r       io.Reader
	name    string
	req     chan int // how many bytes the next read may return
	res     chan readResult
	buf     []byte // owned by the goroutine while a read is out
	pending bool   // a read is out
	err     error  // sticky: the cause, once ctx ended, or r's error
}

type readResult struct {
	n   int
	err error
}

// maxAsyncRead bounds one read by the goroutine.
const maxAsyncRead = 256 << 10

func (a *asyncReader) Read(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	if a.ctx.Err() != nil {
		a.err = context.Cause(a.ctx)
		return 0, a.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if a.req == nil {
		a.req = make(chan int)
		a.res = make(chan readResult, 1)
		a.buf = make([]byte, maxAsyncRead)
		go a.loop()
	}
	if !a.pending {
		a.req <- min(len(p), len(a.buf))
		a.pending = true
	}
	select {
	case r := <-a.res:
		a.pending = false
		n := copy(p, a.buf[:r.n])
		if r.err != nil {
			a.err = r.err
			close(a.req)
		}
		return n, r.err
	case <-a.ctx.Done():
		a.err = context.Cause(a.ctx)
		return 0, a.err
	}
}

func (a *asyncReader) loop() {
	for n := range a.req {
		m, err := a.r.Read(a.buf[:n])
		a.res <- readResult{m, err}
		if err != nil {
			return
		}
	}
}

// Name returns the name of the file read ("" when unknown).
func (a *asyncReader) Name() string { return a.name }

// File is an input opened by [Open].
type File struct {
	io.Reader // reads under the context given to Open
	f         *os.File
	name      string
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Name returns the path the file was opened by.
func (f *File) Name() string { return f.name }

// Stat returns the file's information, or the *os.File's Stat error.
func (f *File) Stat() (os.FileInfo, error) { return f.f.Stat() }

// Open opens the file at path for reading under ctx, as [Reader] reads:
// once ctx is done, reads return its cause. Opening a FIFO waits for a
// writer to open it; ctx ends that wait too (the open is left to finish,
// and its file is closed, in the background). Errors are os.Open's
// *fs.PathError naming path, or, when ctx ends first, an *fs.PathError
// (Op "open", path) wrapping context.Cause(ctx).
func Open(ctx context.Context, path string) (*File, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &File{Reader: &checkedReader{ctx: ctx, r: f, name: path}, f: f, name: path}, nil
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened) // unbuffered: an abandoned open closes its file
	abandoned := make(chan struct{})
	go func() {
		f, err := os.Open(path)
		select {
		case ch <- opened{f, err}:
		case <-abandoned:
			if f != nil {
				f.Close()
			}
		}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, o.err
		}
		return &File{Reader: Reader(ctx, o.f), f: o.f, name: path}, nil
	case <-ctx.Done():
		close(abandoned)
		return nil, &os.PathError{Op: "open", Path: path, Err: context.Cause(ctx)}
	}
}
