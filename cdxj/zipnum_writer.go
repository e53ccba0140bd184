package cdxj

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultLinesPerBlock is the number of index lines per ZipNum block when
// ClusterOptions.LinesPerBlock is 0: 3000, as pywb and Common Crawl use.
const DefaultLinesPerBlock = 3000

// FormatCDXJGzip is the !meta format of the CDXJ secondary index (pywb,
// WACZ): "cdxj-gzip-1.0".
const FormatCDXJGzip = "cdxj-gzip-1.0"

// ClusterOptions configure a ClusterWriter; the zero value (or nil) gives
// blocks of 3000 lines, one part file, the classic tab-separated secondary
// index and no .loc file.
type ClusterOptions struct {
	// LinesPerBlock is the number of lines per gzip block; 0 means
	// DefaultLinesPerBlock.
	LinesPerBlock int
	// BlocksPerPart starts a new part file after this many blocks; 0 puts
	// every block in one part.
	BlocksPerPart int
	// CDXJIndex writes the secondary index in its CDXJ form, with a first
	// line `!meta 0 {"format": "cdxj-gzip-1.0", ...}`, instead of the
	// tab-separated form.
	CDXJIndex bool
	// WriteLoc writes NAME.loc, mapping every part to its file name.
	WriteLoc bool
	// Level is the gzip compression level; 0 means gzip.DefaultCompression.
	Level int
	// NoFinalNewline leaves out the "\n" after the last line of each
	// block, as pywb writes its ZipNum parts (a block's end ends its last
	// line; see Cluster).
	NoFinalNewline bool
}

// ClusterWriter builds a ZipNum cluster (see Cluster) from lines given in
// byte-wise sorted order: part files NAME-00000.gz, NAME-00001.gz, ..., the
// secondary index NAME.idx and, if asked, NAME.loc, all in one folder.
// Everything is written to temporary files in that folder and renamed into
// place by Commit, so an interrupted build leaves no partial cluster and
// never touches existing files before it is complete; Close abandons it.
//
// Memory: one block's compressor and a 64 KiB write buffer; the secondary
// index is written as blocks complete.
type ClusterWriter struct {
	dir, name string
	opt       ClusterOptions

	idxTmp   *os.File
	idx      *bufio.Writer
	partTmp  *os.File
	partBuf  *bufio.Writer
	partCW   *countingWriter
	partName string
	temps    []string // temporary file names, in creation order
	finals   []string // their final names
	parts    []string // part names, in order

	zw         *gzip.Writer
	blockLines int   // lines in the open block
	blockStart int64 // offset of the open block in its part
	blockKey   []byte
	blocks     int // blocks written in total
	partBlocks int // blocks written in the current part
	prev       []byte
	hasPrev    bool
	lines      int64
	done       bool
	err        error
}

// ErrUnsorted is wrapped by the errors for a line out of the module's sort
// order ([SortKey]): by ClusterWriter.WriteLine for a line whose SortKey
// (key and timestamp) sorts before the previous line's, and by
// mementomap.BuildPart for a record whose key sorts before an earlier
// one's ([KeyOrder], the part of the rule a build depends on).
var ErrUnsorted = errors.New("cdxj: line out of byte-wise order")

// CreateCluster starts a ZipNum cluster called name in folder dir (see
// ClusterWriter; "" is the current folder); opt may be nil. A dir that does
// not exist or is no folder is an error naming dir (wrapping
// fs.ErrNotExist for a missing one).
func CreateCluster(dir, name string, opt *ClusterOptions) (*ClusterWriter, error) {
	if dir == "" {
		dir = "."
	}
	w := &ClusterWriter{dir: dir, name: name}
	if opt != nil {
		w.opt = *opt
	}
	if w.opt.LinesPerBlock <= 0 {
		w.opt.LinesPerBlock = DefaultLinesPerBlock
	}
	if w.opt.Level == 0 {
		w.opt.Level = gzip.DefaultCompression
	}
	if name == "" || filepath.Base(name) != name {
		return nil, fmt.Errorf("cdxj: cluster name %q is not a file name", name)
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, w.folderError(err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("cdxj: cluster folder %s is not a folder", dir)
	}
	f, err := w.temp(name + ".idx")
	if err != nil {
		return nil, err
	}
	w.idxTmp, w.idx = f, bufio.NewWriterSize(f, 64<<10)
	if w.opt.CDXJIndex {
		meta := struct {
			Format   string `json:"format"`
			Filename string `json:"filename,omitempty"`
		}{Format: FormatCDXJGzip}
		if w.opt.BlocksPerPart == 0 {
			meta.Filename = w.partFile(0)
		}
		b, _ := json.Marshal(meta)
		fmt.Fprintf(w.idx, "!meta 0 %s\n", b)
	}
	zw, err := gzip.NewWriterLevel(io.Discard, w.opt.Level)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("cdxj: %w", err)
	}
	w.zw = zw
	return w, nil
}

// folderError names the cluster's folder for an error of the file system
// about it or a file created in it (the temporary file's random name says
// nothing to the caller).
func (w *ClusterWriter) folderError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cdxj: cluster folder %s: %w", w.dir, err)
}

func (w *ClusterWriter) partFile(i int) string {
	return fmt.Sprintf("%s-%05d.gz", w.name, i)
}

func (w *ClusterWriter) temp(final string) (*os.File, error) {
	f, err := os.CreateTemp(w.dir, "."+final+".tmp*")
	if err != nil {
		return nil, w.folderError(err)
	}
	// CreateTemp makes the file private (0600); a cluster is data to
	// share, readable like any file the process creates.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("cdxj: %w", err)
	}
	w.temps = append(w.temps, f.Name())
	w.finals = append(w.finals, filepath.Join(w.dir, final))
	return f, nil
}

// IdxPath returns the path the secondary index has after Commit.
func (w *ClusterWriter) IdxPath() string { return filepath.Join(w.dir, w.name+".idx") }

// WriteLine adds one index line (without its "\n"). Lines must come in
// byte-wise order of their SortKey (key and timestamp; lines equal in it
// in any order of the rest, as a binary search of the blocks compares
// only that part); a line out of order gives an
// error wrapping ErrUnsorted, naming its number, and is not written. A
// header line ("!..." or a CDX legend), a blank line or one holding a line
// break is refused too. Other errors (I/O) are final.
func (w *ClusterWriter) WriteLine(line []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errors.New("cdxj: ClusterWriter already committed or closed")
	}
	n := w.lines + 1
	switch {
	case len(bytes.TrimSpace(line)) == 0:
		return fmt.Errorf("cdxj: cluster line %d: blank line", n)
	case isHeaderLine(line):
		return fmt.Errorf("cdxj: cluster line %d: a header line cannot go into a ZipNum block", n)
	case bytes.IndexByte(line, '\n') >= 0:
		return fmt.Errorf("cdxj: cluster line %d: holds a line break", n)
	case w.hasPrev && bytes.Compare(SortKey(line), w.prev) < 0:
		return fmt.Errorf("cdxj: cluster line %d: %w: %q sorts before the previous line", n, ErrUnsorted, clip(line))
	}
	w.prev = append(w.prev[:0], SortKey(line)...)
	w.hasPrev = true
	if w.blockLines == 0 {
		if err := w.startBlock(line); err != nil {
			w.err = err
			return err
		}
	}
	if w.blockLines > 0 {
		if _, err := w.zw.Write(newline); err != nil {
			w.err = err
			return err
		}
	}
	if _, err := w.zw.Write(line); err != nil {
		w.err = err
		return err
	}
	w.lines++
	w.blockLines++
	if w.blockLines == w.opt.LinesPerBlock {
		if err := w.endBlock(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// WriteLines copies every data line of r (header and blank lines are
// passed over) with WriteLine, for building a cluster from a sorted file.
// It stops at the first error: WriteLine's (ErrUnsorted naming the line's
// number in the cluster, or a final I/O error), a line longer than
// DefaultMaxLineSize (ErrLineTooLong, naming its byte offset in r), or
// r's read error as returned.
func (w *ClusterWriter) WriteLines(r io.Reader) error {
	var werr error
	err := scanLines(r, 0, DefaultMaxLineSize, func(line []byte, _ int64) bool {
		if isBlankLine(line) || isHeaderLine(line) {
			return true
		}
		werr = w.WriteLine(line)
		return werr == nil
	})
	if werr != nil {
		return werr
	}
	return err
}

func (w *ClusterWriter) startBlock(first []byte) error {
	if w.partTmp == nil || (w.opt.BlocksPerPart > 0 && w.partBlocks == w.opt.BlocksPerPart) {
		if err := w.endPart(); err != nil {
			return err
		}
		w.partName = w.partFile(len(w.parts))
		f, err := w.temp(w.partName)
		if err != nil {
			return err
		}
		w.parts = append(w.parts, w.partName)
		w.partTmp = f
		w.partBuf = bufio.NewWriterSize(f, 64<<10)
		w.partCW = &countingWriter{w: w.partBuf}
		w.partBlocks = 0
	}
	// The block's key: the first two space-separated fields of its first
	// line (key and timestamp), or the key alone when the second field is
	// the JSON block (the "datetime {json}" form).
	w.blockKey = append(w.blockKey[:0], blockKey(first)...)
	w.blockStart = w.partCW.n
	w.zw.Reset(w.partCW)
	return nil
}

func (w *ClusterWriter) endBlock() error {
	if w.blockLines == 0 {
		return nil
	}
	if !w.opt.NoFinalNewline {
		if _, err := w.zw.Write(newline); err != nil {
			return err
		}
	}
	if err := w.zw.Close(); err != nil {
		return err
	}
	w.blocks++
	w.partBlocks++
	length := w.partCW.n - w.blockStart
	var err error
	if w.opt.CDXJIndex {
		v := struct {
			Offset   int64  `json:"offset"`
			Length   int64  `json:"length"`
			Filename string `json:"filename,omitempty"`
			Lineno   int    `json:"lineno"`
		}{Offset: w.blockStart, Length: length, Lineno: w.blocks}
		if w.opt.BlocksPerPart > 0 {
			v.Filename = w.partName
		}
		b, _ := json.Marshal(v)
		_, err = fmt.Fprintf(w.idx, "%s %s\n", w.blockKey, b)
	} else {
		_, err = fmt.Fprintf(w.idx, "%s\t%s\t%d\t%d\t%d\n", w.blockKey, w.partName, w.blockStart, length, w.blocks)
	}
	w.blockLines = 0
	return err
}

func (w *ClusterWriter) endPart() error {
	if w.partTmp == nil {
		return nil
	}
	err := w.partBuf.Flush()
	if err == nil {
		err = w.partTmp.Sync()
	}
	if cerr := w.partTmp.Close(); err == nil {
		err = cerr
	}
	w.partTmp = nil
	return err
}

// Commit completes the last block, writes the secondary index (and .loc),
// and renames every file into place. The cluster is then ready for
// OpenCluster at IdxPath. On error the temporary files are removed.
func (w *ClusterWriter) Commit() error {
	if w.done {
		return errors.New("cdxj: ClusterWriter already committed or closed")
	}
	err := w.err
	if err == nil {
		err = w.endBlock()
	}
	if err == nil {
		err = w.endPart()
	}
	if err == nil && w.opt.WriteLoc {
		var f *os.File
		if f, err = w.temp(w.name + ".loc"); err == nil {
			bw := bufio.NewWriter(f)
			for _, p := range w.parts {
				bw.WriteString(p + "\t" + p + "\n")
			}
			err = bw.Flush()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err == nil {
		err = w.idx.Flush()
	}
	if err == nil {
		err = w.idxTmp.Sync()
	}
	if cerr := w.idxTmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.Close()
		return fmt.Errorf("cdxj: write cluster %s: %w", w.IdxPath(), err)
	}
	// Parts and .loc first, the .idx last: a reader never sees an index
	// whose parts are missing.
	for i := 1; i < len(w.temps); i++ {
		if err := os.Rename(w.temps[i], w.finals[i]); err != nil {
			w.Close()
			return fmt.Errorf("cdxj: write cluster %s: %w", w.IdxPath(), err)
		}
	}
	if err := os.Rename(w.temps[0], w.finals[0]); err != nil {
		w.Close()
		return fmt.Errorf("cdxj: write cluster %s: %w", w.IdxPath(), err)
	}
	w.temps = nil
	w.done = true
	return nil
}

// Close abandons the cluster if it has not been committed, removing its
// temporary files; after Commit it does nothing. It is safe to defer.
func (w *ClusterWriter) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.partTmp != nil {
		w.partTmp.Close()
	}
	if w.idxTmp != nil {
		w.idxTmp.Close()
	}
	for _, t := range w.temps {
		os.Remove(t)
	}
	w.temps = nil
	return nil
}

// Lines returns the number of lines written so far.
func (w *ClusterWriter) Lines() int64 { return w.lines }

// Blocks returns the number of blocks completed so far.
func (w *ClusterWriter) Blocks() int { return w.blocks }

var newline = []byte{'\n'}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// blockKey returns what a secondary index records of a block's first line:
// its first two space-separated fields, or only the first when the second
// starts a JSON block.
func blockKey(line []byte) []byte {
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		return line
	}
	rest := line[i+1:]
	if len(rest) > 0 && rest[0] == '{' {
		return line[:i]
	}
	if j := bytes.IndexByte(rest, ' '); j >= 0 {
		return line[:i+1+j]
	}
	return line
}
