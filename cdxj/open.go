package cdxj

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
)

// OpenOptions configure [Open] and the sources it opens; nil means
// defaults.
type OpenOptions struct {
	// MaxLineSize is the longest line accepted, in bytes without its
	// terminator, in a file, a block or a secondary index; 0 means
	// DefaultMaxLineSize. A longer line is an error wrapping
	// ErrLineTooLong.
	MaxLineSize int
	// Layout, if not nil, is the column layout of classic CDX lines in an
	// input without a " CDX" legend line (see Reader.Layout).
	Layout *Layout
	// Workers bounds the goroutines that decompress ZipNum blocks ahead of
	// a query that reads many of them (a whole-cluster walk, a large
	// prefix or domain query); 0 means runtime.GOMAXPROCS(0), 1 reads each
	// block in the calling goroutine.
	Workers int
	// Stdin is what the name "-" opens, as a Stream; nil makes "-" an
	// error.
	Stdin io.Reader
	// Progress, if not nil, is called by a walk with the number of input
	// bytes (as stored: compressed for gzip) it has consumed since its
	// previous call, about every MiB, for a progress display.
	Progress func(n int64)
	// Server configures the CDX server client of an http:// or https://
	// name (see OpenServer); nil means its defaults.
	Server *ServerOptions
}

func (o *OpenOptions) maxLine() int {
	if o == nil || o.MaxLineSize <= 0 {
		return DefaultMaxLineSize
	}
	return o.MaxLineSize
}

func (o *OpenOptions) workers() int {
	if o == nil || o.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Workers
}

func (o *OpenOptions) progress(n int64) {
	if o != nil && o.Progress != nil && n > 0 {
		o.Progress(n)
	}
}

// Open opens the index that name names and returns it as an [Index]: one
// way to read every kind of web archive index, for a whole walk
// (Records(cdxj.Query{})) or key-range queries. name resolves, in this
// order, to:
//
//   - "-": opt.Stdin, read once ([*Stream]) and named "stdin" in errors;
//   - an http:// or https:// URL: a CDX server ([*Server], see
//     OpenServer, with opt.Server), whose whole-index walk reads the part
//     its Scope names;
//   - a folder: the ZipNum cluster in it, whose secondary index is
//     "cluster.idx" (the Common Crawl layout: cluster.idx beside
//     cdx-00000.gz, cdx-00001.gz, ...) or else the one ".idx" file there;
//   - a file ending in ".idx" or ".summary": the ZipNum cluster of that
//     secondary index ([*Cluster], see OpenCluster), with its ".loc" file
//     if there is one;
//   - any other regular file: a CDX or CDXJ file, plain or gzip-compressed
//     (recognised by its magic bytes, whatever its name; [*File]);
//   - anything else that opens (a named pipe, a device): a [*Stream] over
//     it, read once.
//
// The index is never modified. Errors name the path. ctx bounds the
// opening of a remote index; the queries of a local one do not block on
// anything but the disk.
//
// Open is the opener to use. [OpenFile], [OpenCluster] and [OpenServer]
// each open one kind by itself and never resolve a name to another kind,
// for a caller that relies on that kind. Open returns what they return
// for a name of their kind (a type switch on *File, *Cluster, *Server or
// *Stream tells which kind Open found).
func Open(ctx context.Context, name string, opt *OpenOptions) (Index, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if name == "-" {
		if opt == nil || opt.Stdin == nil {
			return nil, errors.New("cdxj: \"-\" names standard input, and none was given (OpenOptions.Stdin)")
		}
		return NewStream("stdin", opt.Stdin, opt), nil
	}
	if l := strings.ToLower(name); strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		var so *ServerOptions
		if opt != nil {
			so = opt.Server
		}
		return OpenServer(ctx, name, so)
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("cdxj: %w", err)
	}
	switch {
	case st.IsDir():
		idx, err := clusterInDir(name)
		if err != nil {
			return nil, err
		}
		return OpenCluster(idx, opt)
	case isIdxName(name):
		return OpenCluster(name, opt)
	case !st.Mode().IsRegular():
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("cdxj: %w", err)
		}
		s := NewStream(name, f, opt)
		s.closer = f
		return s, nil
	}
	return OpenFile(name, opt)
}

func isIdxName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".idx", ".summary":
		return true
	}
	return false
}

// clusterInDir returns the secondary index of the cluster in folder dir.
func clusterInDir(dir string) (string, error) {
	cc := filepath.Join(dir, "cluster.idx")
	if st, err := os.Stat(cc); err == nil && st.Mode().IsRegular() {
		return cc, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("cdxj: %w", err)
	}
	var idx []string
	for _, e := range ents {
		if !e.IsDir() && isIdxName(e.Name()) {
			idx = append(idx, e.Name())
		}
	}
	sort.Strings(idx)
	switch len(idx) {
	case 1:
		return filepath.Join(dir, idx[0]), nil
	case 0:
		return "", fmt.Errorf("cdxj: %s is a folder without a ZipNum secondary index (cluster.idx, or one .idx file)", dir)
	}
	return "", fmt.Errorf("cdxj: %s holds %d secondary indexes (%s); name the one to open", dir, len(idx), strings.Join(idx, ", "))
}

// File is a CDX or CDXJ index file, plain or gzip-compressed, as [Open] and
// [OpenFile] give it.
//
// Records(cdxj.Query{}) walks the whole file in order, sorted or not,
// with the rules of [Reader]: a " CDX" legend line sets the layout of the
// lines after it, headers are passed over, and a bad line yields a
// *ParseError naming the file and the line number, after which the walk
// goes on if the loop continues. A plain file is read through the Reader's
// buffer (memory-mapping it was measured slower: a page fault per 64 KiB
// costs more than the copy of a read); a gzip file is decompressed member
// after member, each member's end a line end (see NewDecompressor). A key-range query on a plain file is a binary search
// ([Sorted]); on a gzip file it reads from the start and stops past the
// last line that can match. Both assume the file is sorted.
//
// A File is safe for concurrent queries; each has its own buffers. Close
// releases the file; the file is never modified.
type File struct {
	path   string
	opt    OpenOptions
	f      *os.File
	size   int64
	gz     bool
	sorted *Sorted // plain files
}

// OpenFile opens the regular file at path as a CDX or CDXJ [File], plain
// or gzip-compressed; opt may be nil. It is [Open] for a path known to be
// one index file: Open gives the same *File for it. Use OpenFile instead of
// Open only when a caller relies on what a File gives and a stream does
// not: queries run many times and concurrently, a key-range query by
// binary search (plain files), byte-range Parts of a plain file ([Plan],
// [File.SetLegends]), [File.Size] and [File.Compressed]. OpenFile never resolves path to
// another kind: a named pipe or device is an error (Open reads it as a
// [Stream]), and a file named ".idx" or ".summary" is read as CDX/CDXJ
// lines (Open reads it as a [Cluster]'s secondary index).
//
// A file that starts with the gzip magic bytes is gzip, whatever its name;
// a file whose name ends in ".gz" and that does not (an empty or truncated
// download) is an error. Errors name the path.
func OpenFile(path string, opt *OpenOptions) (*File, error) {
	// Checked before opening: opening a named pipe waits for a writer.
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("cdxj: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("cdxj: %s is not a regular file (Open reads it as a stream)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cdxj: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cdxj: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("cdxj: %s is not a regular file (Open reads it as a stream)", path)
	}
	x := &File{path: path, f: f, size: st.Size()}
	if opt != nil {
		x.opt = *opt
	}
	var magic [2]byte
	n, _ := f.ReadAt(magic[:], 0)
	x.gz = isGzip(magic[:n])
	if !x.gz && strings.HasSuffix(strings.ToLower(path), ".gz") {
		// A truncated download or a failed compression, not an index.
		f.Close()
		if x.size == 0 {
			return nil, fmt.Errorf("cdxj: %s: empty file, not gzip data", path)
		}
		return nil, fmt.Errorf("cdxj: %s: named .gz but not gzip data (no gzip magic bytes)", path)
	}
	if !x.gz {
		x.sorted = NewSorted(f, x.size)
		x.sorted.MaxLineSize = x.opt.MaxLineSize
		x.sorted.name, x.sorted.def = path, x.opt.Layout
	}
	return x, nil
}

// Path returns the path the File was opened with.
func (f *File) Path() string { return f.path }

// Size returns the file's size in bytes, as stored (compressed for gzip).
func (f *File) Size() int64 { return f.size }

// Compressed reports whether the file is gzip-compressed.
func (f *File) Compressed() bool { return f.gz }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Records returns the records that match q; see Searcher and File.
func (f *File) Records(q Query) iter.Seq2[*Record, error] {
	if !f.gz {
		if cq, err := q.compile(); err == nil && !cq.all {
			return f.sorted.Records(q)
		}
	}
	return walkSeq(q, f.reader, walk)
}

// Lines returns the lines that match q, raw; see Searcher and File.
func (f *File) Lines(q Query) iter.Seq2[[]byte, error] {
	if !f.gz {
		return f.sorted.Lines(q)
	}
	return walkSeq(q, f.reader, walkLines)
}

// reader returns a Reader over the whole file for one walk, and what
// ends the walk.
func (f *File) reader() (*Reader, func(), error) {
	cr := &progressReader{r: io.NewSectionReader(f.f, 0, f.size), opt: &f.opt}
	var src io.Reader = cr
	if f.gz {
		m, err := newMemberReader(cr)
		if err != nil {
			return nil, nil, fmt.Errorf("cdxj: %s: %w", f.path, err)
		}
		src = m
	}
	return walkReader(src, f.path, &f.opt), cr.flush, nil
}

// walkReader returns a Reader of src for one walk of the index name, as
// opt sets it.
func walkReader(src io.Reader, name string, opt *OpenOptions) *Reader {
	r := NewReader(src)
	r.ReuseRecord = true
	r.MaxLineSize = opt.MaxLineSize
	r.Layout = opt.Layout
	r.Source = name
	return r
}

// walkSeq is the iterator of a query q that reads a whole input once: it
// compiles q, opens a Reader by open and yields what each (walk or
// walkLines) yields, and then calls what open returned to end the walk.
// An error of q or of open is yielded alone.
func walkSeq[T any](q Query, open func() (*Reader, func(), error), each func(*Reader, *compiled, int, func(T, error) bool)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cq, err := q.compile()
		if err != nil {
			yield(zero, err)
			return
		}
		r, done, err := open()
		if err != nil {
			yield(zero, err)
			return
		}
		defer done()
		each(r, cq, q.Limit, yield)
		if q.Blank != nil {
			*q.Blank += r.blank
		}
	}
}

// progressReader reports the bytes read through it to opt.Progress, about
// every MiB.
type progressReader struct {
	r       io.Reader
	opt     *OpenOptions
	pending int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.opt.Progress != nil {
		p.pending += int64(n)
		if p.pending >= 1<<20 {
			p.flush()
		}
	}
	return n, err
}

func (p *progressReader) flush() {
	p.opt.progress(p.pending)
	p.pending = 0
}

// readError names the source of r and how far it was read in err, an
// error of the input (a corrupt or truncated gzip member, a failing disk).
func readError(r *Reader, err error) error {
	return fmt.Errorf("cdxj: %s: after line %d (byte %d of the decompressed input): %w", r.Source, r.LineNumber(), r.InputOffset(), err)
}

// walk yields the records r reads that match cq, up to limit (0: all).
func walk(r *Reader, cq *compiled, limit int, yield func(*Record, error) bool) {
	if !cq.whole() {
		r.filter = cq
	}
	n := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				yield(nil, readError(r, err))
				return
			}
		}
		if !yield(rec, err) {
			return
		}
		if err != nil {
			continue
		}
		if n++; limit > 0 && n >= limit {
			return
		}
	}
}

// walkLines yields the data lines r reads that match cq, up to limit.
func walkLines(r *Reader, cq *compiled, limit int, yield func([]byte, error) bool) {
	n := 0
	for {
		line, err := r.readLine()
		if err != nil {
			if pe, ok := err.(*ParseError); ok {
				yield(nil, r.located(pe))
			} else if err != io.EOF {
				yield(nil, readError(r, err))
			}
			return
		}
		if isBlankLine(line) {
			r.blank++
			continue
		}
		if isHeaderLine(line) {
			continue
		}
		switch cq.test(line) {
		case vSkip:
			continue
		case vStop:
			return
		}
		if !yield(line, nil) {
			return
		}
		if n++; limit > 0 && n >= limit {
			return
		}
	}
}

// ErrStreamRead is returned by a query of a [Stream] that has already been
// read.
var ErrStreamRead = errors.New("cdxj: a stream can be read only once")

// Stream is an index read once from an io.Reader (standard input, a pipe,
// a network body, bytes in memory): plain or gzip text, recognised by its
// magic bytes, each gzip member's end a line end. Its first query reads it
// as [File] reads a gzip file (in order, stopping after the last line that
// can match a key-range query); any later query yields ErrStreamRead.
// Close closes what Open opened for it, not a reader given to NewStream.
type Stream struct {
	name   string
	r      io.Reader
	opt    OpenOptions
	used   atomic.Bool
	closer io.Closer
}

// NewStream returns a Stream reading r; name names it in errors and
// records. opt may be nil.
func NewStream(name string, r io.Reader, opt *OpenOptions) *Stream {
	s := &Stream{name: name, r: r}
	if opt != nil {
		s.opt = *opt
	}
	return s
}

// Close closes the file Open opened for the stream, if any.
func (s *Stream) Close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}

func (s *Stream) reader() (*Reader, func(), error) {
	if s.used.Swap(true) {
		return nil, nil, fmt.Errorf("%w: %s", ErrStreamRead, s.name)
	}
	cr := &progressReader{r: s.r, opt: &s.opt}
	d, err := decompress(cr)
	if err != nil {
		return nil, nil, fmt.Errorf("cdxj: %s: %w", s.name, err)
	}
	return walkReader(d, s.name, &s.opt), cr.flush, nil
}

// Records returns the records that match q; see Searcher and Stream.
func (s *Stream) Records(q Query) iter.Seq2[*Record, error] {
	return walkSeq(q, s.reader, walk)
}

// Lines returns the lines that match q, raw; see Searcher and Stream.
func (s *Stream) Lines(q Query) iter.Seq2[[]byte, error] {
	return walkSeq(q, s.reader, walkLines)
}

var (
	_ Index = (*File)(nil)
	_ Index = (*Stream)(nil)
	_ Index = (*Cluster)(nil)
	_ Index = (*Sorted)(nil)
	_ Index = (*Server)(nil)
)
