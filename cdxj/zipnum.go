package cdxj

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// ErrZipNum is wrapped by the errors about a malformed ZipNum cluster: a
// secondary index line that does not parse, a part that cannot be located
// or a block that is not gzip data where the index says.
var ErrZipNum = errors.New("cdxj: malformed ZipNum cluster")

// DefaultMaxBlockSize bounds the compressed length of one block a Cluster
// reads (64 MiB), so that a corrupt secondary index cannot make it
// allocate or read without limit.
const DefaultMaxBlockSize = 64 << 20

// IdxEntry is one line of a ZipNum secondary index: where one block is.
type IdxEntry struct {
	Key    string // key and timestamp of the block's first line ("com,example)/ 20140101000000")
	Part   string // part name, resolved through the .loc file if any
	Offset int64  // byte offset of the block's gzip member in the part
	Length int64  // byte length of the member
	Block  int64  // block number as written (1-based), 0 when absent
	At     int64  // byte offset of this line in the secondary index
}

// ParseIdxLine parses one secondary-index line in either form (see
// Cluster): tab-separated, or CDXJ "key ts {json}"
// with "offset", "length" and optionally "filename" and "lineno" (numbers
// or strings). defaultPart is the part of a CDXJ line without a
// "filename" (the !meta header's). Errors wrap ErrZipNum.
func ParseIdxLine(line []byte, defaultPart string) (IdxEntry, error) {
	if i := bytes.IndexByte(line, '\t'); i >= 0 {
		f := strings.Split(string(line), "\t")
		if len(f) < 4 {
			return IdxEntry{}, fmt.Errorf("%w: %d tab-separated fields, want 4 or 5 (key, part, offset, length[, block])", ErrZipNum, len(f))
		}
		e := IdxEntry{Key: f[0], Part: f[1]}
		var err error
		if e.Offset, err = strconv.ParseInt(f[2], 10, 64); err != nil || e.Offset < 0 {
			return IdxEntry{}, fmt.Errorf("%w: bad offset %q", ErrZipNum, f[2])
		}
		if e.Length, err = strconv.ParseInt(f[3], 10, 64); err != nil || e.Length <= 0 {
			return IdxEntry{}, fmt.Errorf("%w: bad length %q", ErrZipNum, f[3])
		}
		if len(f) > 4 && f[4] != "" {
			if e.Block, err = strconv.ParseInt(f[4], 10, 64); err != nil {
				return IdxEntry{}, fmt.Errorf("%w: bad block number %q", ErrZipNum, f[4])
			}
		}
		if e.Part == "" {
			return IdxEntry{}, fmt.Errorf("%w: empty part name", ErrZipNum)
		}
		return e, nil
	}
	j := bytes.Index(line, []byte(" {"))
	if j < 0 {
		return IdxEntry{}, fmt.Errorf("%w: neither tab-separated nor \"key timestamp {json}\"", ErrZipNum)
	}
	var v struct {
		Offset   json.Number `json:"offset"`
		Length   json.Number `json:"length"`
		Filename string      `json:"filename"`
		Lineno   json.Number `json:"lineno"`
	}
	if err := json.Unmarshal(unquoteNumbers(line[j+1:]), &v); err != nil {
		return IdxEntry{}, fmt.Errorf("%w: JSON block: %v", ErrZipNum, err)
	}
	e := IdxEntry{Key: string(line[:j]), Part: v.Filename}
	if e.Part == "" {
		e.Part = defaultPart
	}
	var err error
	if e.Offset, err = v.Offset.Int64(); err != nil || e.Offset < 0 {
		return IdxEntry{}, fmt.Errorf("%w: bad or missing \"offset\" %q", ErrZipNum, v.Offset)
	}
	if e.Length, err = v.Length.Int64(); err != nil || e.Length <= 0 {
		return IdxEntry{}, fmt.Errorf("%w: bad or missing \"length\" %q", ErrZipNum, v.Length)
	}
	if v.Lineno != "" {
		if e.Block, err = v.Lineno.Int64(); err != nil {
			return IdxEntry{}, fmt.Errorf("%w: bad \"lineno\" %q", ErrZipNum, v.Lineno)
		}
	}
	if e.Part == "" {
		return IdxEntry{}, fmt.Errorf("%w: no \"filename\" in the line or in the !meta header", ErrZipNum)
	}
	return e, nil
}

// unquoteNumbers lets json.Number accept "offset": "123" as well as 123:
// it returns b with the quotes around all-digit strings removed.
func unquoteNumbers(b []byte) []byte {
	if !bytes.Contains(b, []byte(`"`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '"' {
			// copy a string; if it is all digits and follows ':', drop quotes
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return append(out, b[i:]...)
			}
			s := b[i+1 : j]
			prev := bytes.TrimRight(out, " \t")
			if len(s) > 0 && len(prev) > 0 && prev[len(prev)-1] == ':' && idxDigits(s) {
				out = append(out, s...)
			} else {
				out = append(out, b[i:j+1]...)
			}
			i = j
			continue
		}
		out = append(out, b[i])
	}
	return out
}

func idxDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(s) > 0
}

// idxKey returns the key part of a secondary-index line: what comes before
// the first tab, or before " {" in the CDXJ form.
func idxKey(line []byte) []byte {
	if i := bytes.IndexByte(line, '\t'); i >= 0 {
		return line[:i]
	}
	if i := bytes.Index(line, []byte(" {")); i >= 0 {
		return line[:i]
	}
	return line
}

// Cluster is an open ZipNum cluster.
//
// ZipNum is the compressed index layout of the Internet Archive's
// webarchive-commons, pywb and Common Crawl: a sorted CDX or CDXJ index
// cut into blocks of a few thousand lines, each block compressed as its
// own gzip member, the members concatenated into one or more part files;
// a secondary index (the summary, ".idx") holds one line per block, its
// first key; an optional location file (".loc") says where each part is.
//
// The secondary index comes in two forms:
//
//	com,example)/ 20140101000000<TAB>part-00000.gz<TAB>0<TAB>18034<TAB>1
//
// (key and timestamp of the block's first line, part name, byte offset and
// length of the gzip member, and an optional 1-based block number), and
// the CDXJ form of pywb and WACZ, marked by a first "!meta" line:
//
//	!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}
//	com,example)/ 20140101000000 {"offset": 0, "length": 18034}
//
// whose lines may carry their own "filename" (else the !meta one) and a
// block number as "lineno". The ".loc" file has lines "part<TAB>path..."
// giving the locations of a part, tried in order until one opens; a
// relative path is tried relative to the .loc file's folder, then as
// given (relative to the working directory, as pywb resolves it). When
// none opens, the error names every location tried and why it failed. A
// line without a location (pywb's samples hold one) gives its part none.
// Without a .loc file, a part is the file of that name next to the .idx
// (the Common Crawl layout: cluster.idx beside cdx-00000.gz ...).
//
// A block holds whole lines; its last line may lack its "\n" (pywb writes
// its blocks so): the block's end ends the line. Reading a part file as
// one multistream gzip stream is right too when a member end counts as a
// line end, as NewDecompressor and Open make it. A block is exactly one
// gzip member of the length the index gives: a length that runs past the
// member's end (into the next block) is an error wrapping ErrZipNum, as
// is a block cut short.
//
// The blocks of each part must tile it: they are listed in one run, in
// order of offset, the first at offset 0, each starting where the one
// before it ends, the last ending at the part file's size; and every part
// file that holds data has a block listed. A missing or wrong .idx line
// breaks that, and a query reports it as an error wrapping ErrZipNum
// naming the .idx file and line, after the lines of the blocks before it,
// instead of answering without that block's lines. Every entry a query
// reads is checked against the one before it (a gap or overlap), so a
// whole walk (Records(cdxj.Query{}), PartRecords, Plan) checks them all;
// every block an entry lists must end within its part file, and a part's
// size is checked when a query reads past its last block (part files are
// local: remote .loc locations are not read), and the unlisted parts at
// the end of a whole walk. An error of a block (a part cut short, a block
// that is not gzip data or longer than MaxBlockSize) is one message
// wherever it is met (a walk on any number of workers, a query, Plan):
// "cdxj: FILE.idx line N (byte B): malformed ZipNum cluster: block at
// PART:OFFSET+LENGTH: cause". The parts of a cluster without a .loc
// file are the !meta "filename" and the files beside the .idx named like
// a listed part (PREFIX-DIGITS.gz for a listed PREFIX-DIGITS.gz). An .idx
// without a block line is an empty cluster only when those parts are
// absent or empty (see OpenCluster).
//
// The secondary index must be sorted. A query reports an entry that sorts
// before the one above it, from the entry before its starting block on,
// as an error wrapping ErrZipNum naming both byte offsets; disorder
// elsewhere in the index is found only by reading all of it (Entries).
//
// A Cluster answers key-range queries through its secondary index: a
// binary search of the .idx finds the block that may hold the first
// match, and blocks are then read while lines can still match.
// Records(cdxj.Query{}) walks every block. The first two blocks of a query
// are decompressed as they are read; from the third on, up to
// OpenOptions.Workers goroutines decompress the next blocks ahead of the
// reader, and their lines are still yielded in index order. Part files
// are opened on first use and kept open until Close. Blocks are
// decompressed with github.com/klauspost/compress/gzip.
//
// A Cluster is safe for concurrent use (but not concurrently with Close).
// Memory per query: the line buffer (64 KiB, grown for long lines up to
// MaxLineSize), a 32 KiB read buffer and one gzip reader, plus, when
// blocks are read ahead, Workers blocks (compressed and decompressed). A
// block, streamed or read ahead, that decompresses to more than 4 ×
// MaxBlockSize bytes is an error wrapping ErrZipNum naming its part,
// offset and length.
type Cluster struct {
	// MaxLineSize is the longest line accepted in the secondary index and
	// in a block; 0 means DefaultMaxLineSize.
	MaxLineSize int
	// MaxBlockSize is the largest compressed block length accepted; 0
	// means DefaultMaxBlockSize.
	MaxBlockSize int64

	opt         OpenOptions
	idxPath     string
	idx         *os.File
	size        int64
	dir         string
	format      string
	defaultPart string
	loc         map[string][]string
	noBlocks    bool // the secondary index has no data line

	mu    sync.Mutex
	parts map[string]*os.File

	blockPool sync.Pool // of *blockReader, reused across queries
}

func (c *Cluster) getBlockReader() *blockReader {
	if b, ok := c.blockPool.Get().(*blockReader); ok {
		return b
	}
	return new(blockReader)
}

// OpenCluster opens the ZipNum cluster whose secondary index is idxPath
// (".idx" or ".summary"); opt may be nil. The location file is idxPath
// with its extension replaced by ".loc", read when it exists. Nothing is
// modified. Errors wrap ErrZipNum for a malformed !meta header or .loc
// file, and for a secondary index that lists no blocks while a part holds
// data ("cluster X.idx lists no blocks, but its part P holds N bytes"):
// the parts are those of the .loc file, the !meta "filename", and the
// files NAME-DIGITS.gz beside NAME.idx (cdx-DIGITS.gz beside cluster.idx);
// a remote .loc location counts as holding data.
func OpenCluster(idxPath string, opt *OpenOptions) (*Cluster, error) {
	f, err := openRegular(idxPath)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	c := &Cluster{idxPath: idxPath, idx: f, size: st.Size(), dir: filepath.Dir(idxPath), parts: map[string]*os.File{}}
	if opt != nil {
		c.opt = *opt
		c.MaxLineSize = opt.MaxLineSize
	}
	if err := c.readMeta(); err != nil {
		f.Close()
		return nil, err
	}
	locPath := strings.TrimSuffix(idxPath, filepath.Ext(idxPath)) + ".loc"
	if lf, err := openRegular(locPath); err == nil {
		c.loc, err = parseLoc(lf, filepath.Dir(locPath))
		lf.Close()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", locPath, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		f.Close()
		return nil, err
	}
	if c.noBlocks {
		if err := c.unlisted(nil); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// readMeta reads the header lines at the top of the secondary index: a
// "!meta" line gives the format and the default part filename.
func (c *Cluster) readMeta() error {
	lf := newLineFile(c.idx, c.size, c.MaxLineSize)
	c.noBlocks = true
	for off := int64(0); off < c.size; {
		line, next, err := lf.lineAt(off)
		if err != nil {
			return err
		}
		if !isHeaderLine(line) {
			if !isBlankLine(line) {
				c.noBlocks = false
				return nil
			}
			off = next
			continue
		}
		if bytes.HasPrefix(line, []byte("!meta")) {
			if j := bytes.IndexByte(line, '{'); j >= 0 {
				var m struct {
					Format   string `json:"format"`
					Filename string `json:"filename"`
				}
				if err := json.Unmarshal(line[j:], &m); err != nil {
					return fmt.Errorf("%w: %s: !meta header: %v", ErrZipNum, c.idxPath, err)
				}
				if m.Format != "" {
					c.format = m.Format
				}
				if m.Filename != "" {
					c.defaultPart = m.Filename
				}
			}
		}
		off = next
	}
	return nil
}

// parseLoc reads a .loc file: "part<TAB>path..." per line.
func parseLoc(r io.Reader, dir string) (map[string][]string, error) {
	loc := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if f[0] == "" {
			return nil, fmt.Errorf("%w: .loc line %d: want \"part<TAB>path...\"", ErrZipNum, n)
		}
		if _, ok := loc[f[0]]; !ok {
			loc[f[0]] = []string{} // a part listed without a location has none
		}
		for _, p := range f[1:] {
			if p == "" {
				continue
			}
			if !strings.Contains(p, "://") && !filepath.IsAbs(p) {
				// Relative to the .loc file's folder first, then as given
				// (pywb resolves it against its working directory).
				if j := filepath.Join(dir, p); j != filepath.Clean(p) {
					loc[f[0]] = append(loc[f[0]], j)
				}
			}
			loc[f[0]] = append(loc[f[0]], p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: .loc line %d: %v", ErrZipNum, n+1, err)
	}
	return loc, nil
}

// Format returns the format the secondary index's !meta header declares
// ("cdxj-gzip-1.0"), or "" for the classic tab-separated form.
func (c *Cluster) Format() string { return c.format }

// Close closes the secondary index and every part file opened.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.idx.Close()
	for name, f := range c.parts {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		delete(c.parts, name)
	}
	return err
}

// part returns the open file of part name.
func (c *Cluster) part(name string) (*os.File, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.parts[name]; ok {
		return f, nil
	}
	paths := c.loc[name]
	if paths == nil {
		if c.loc != nil {
			return nil, fmt.Errorf("%w: part %q is not in the .loc file", ErrZipNum, name)
		}
		if strings.Contains(name, "/") || strings.Contains(name, `\`) || name == ".." {
			return nil, fmt.Errorf("%w: part name %q is not a file name", ErrZipNum, name)
		}
		paths = []string{filepath.Join(c.dir, name)}
	}
	var tried []string
	for _, p := range paths {
		if strings.Contains(p, "://") {
			tried = append(tried, fmt.Sprintf("%s (remote locations are not read)", p))
			continue
		}
		f, err := openRegular(p)
		if errors.Is(err, errNotRegular) {
			tried = append(tried, fmt.Sprintf("%s (%v)", p, errNotRegular))
			continue
		}
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", p, errors.Unwrap(err)))
			continue
		}
		c.parts[name] = f
		return f, nil
	}
	if len(tried) == 0 {
		return nil, fmt.Errorf("%w: part %q has no location in the .loc file", ErrZipNum, name)
	}
	return nil, fmt.Errorf("%w: part %q: no location opens; tried %s", ErrZipNum, name, strings.Join(tried, ", "))
}

// errNotRegular is the cause of openRegular's error for a path that is
// no regular file.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading if it is a regular file. Anything
// else is refused before it is opened, with an error naming path and
// wrapping errNotRegular: opening a named pipe waits for a writer, maybe
// forever, and a device or folder holds no cluster file.
func openRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is %w (%s)", ErrZipNum, path, errNotRegular, fileKind(st.Mode()))
	}
	return os.Open(path)
}

// fileKind names the kind of file of a mode that is no regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}

// Entries returns every entry of the secondary index in order. A line that
// does not parse is yielded as an error naming its byte offset in the
// .idx, and the iteration goes on if the loop continues.
func (c *Cluster) Entries() iter.Seq2[IdxEntry, error] {
	return c.entriesFrom(0)
}

func (c *Cluster) entriesFrom(off int64) iter.Seq2[IdxEntry, error] {
	return func(yield func(IdxEntry, error) bool) {
		lf := newLineFile(c.idx, c.size, c.MaxLineSize)
		stopped := false
		err := lf.scan(off, func(line []byte, at int64) bool {
			if isBlankLine(line) || isHeaderLine(line) {
				return true
			}
			e, err := ParseIdxLine(line, c.defaultPart)
			if err != nil {
				err = c.idxError(at, err)
				if !yield(IdxEntry{}, err) {
					stopped = true
					return false
				}
				return true
			}
			e.At = at
			if !yield(e, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped {
			yield(IdxEntry{}, fmt.Errorf("cdxj: %s: %w", c.idxPath, unprefixed{err}))
		}
	}
}

// BlockLines returns the lines of the block e locates, decompressed as
// they are read (memory: one gzip reader and the line buffer). A block's
// last line may lack its "\n". A block that is not gzip data, one that
// decompresses to more than 4 × MaxBlockSize bytes, or a part that cannot
// be opened, is yielded as an error wrapping ErrZipNum (or the open error)
// and ends the iteration; the lines before it have been yielded.
func (c *Cluster) BlockLines(e IdxEntry) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		br := c.getBlockReader()
		defer c.blockPool.Put(br)
		c.blockLines(br, e, func(line []byte) bool { return yield(line, nil) }, func(err error) { yield(nil, err) })
	}
}

// blockReader holds what reading a block needs, reused from block to block
// within a query.
type blockReader struct {
	zr  gzip.Reader
	lim boundedReader
	br  *bufio.Reader
	buf []byte
}

// boundedReader reads r and fails once more than max bytes have come from
// it, with the error readBounded gives: a block streamed line by line is
// bounded as a block decompressed whole is.
type boundedReader struct {
	r   io.Reader
	n   int64 // bytes read so far
	max int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n > b.max {
		return 0, fmt.Errorf("decompresses to more than %d bytes", b.max)
	}
	if room := b.max + 1 - b.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		return n, fmt.Errorf("decompresses to more than %d bytes", b.max)
	}
	return n, err
}

func (c *Cluster) blockLines(b *blockReader, e IdxEntry, yield func([]byte) bool, fail func(error)) bool {
	maxBlock := c.MaxBlockSize
	if maxBlock <= 0 {
		maxBlock = DefaultMaxBlockSize
	}
	if e.Length > maxBlock {
		fail(c.blockError(e, errBlockLimit(maxBlock)))
		return false
	}
	f, err := c.part(e.Part)
	if err != nil {
		fail(partError(e.Part, err))
		return false
	}
	sr := io.NewSectionReader(f, e.Offset, e.Length)
	if b.br == nil {
		b.br = bufio.NewReaderSize(sr, 32<<10)
	} else {
		b.br.Reset(sr)
	}
	zr := &b.zr
	if err := zr.Reset(b.br); err != nil {
		fail(c.blockError(e, err))
		return false
	}
	// A block is one gzip member. Read only that one: with an index
	// length that runs into the next block, a multistream read would
	// yield the next block's lines too (twice over, once per block).
	zr.Multistream(false)
	max := c.MaxLineSize
	if max <= 0 {
		max = DefaultMaxLineSize
	}
	stopped := false
	b.lim = boundedReader{r: zr, max: 4 * maxBlock}
	err = scanLinesBuf(&b.lim, 0, max, &b.buf, func(line []byte, _ int64) bool {
		if !yield(line) {
			stopped = true
			return false
		}
		return true
	})
	if stopped {
		return false
	}
	if err != nil {
		fail(c.blockError(e, err))
		return false
	}
	// The member has ended; the index length must end with it.
	if rest, _ := io.Copy(io.Discard, b.br); rest > 0 {
		fail(c.blockError(e, fmt.Errorf("its gzip member ends %d bytes before the length the index gives", rest)))
		return false
	}
	return true
}

// Lines returns the lines of the cluster that match q, in index order; see
// Searcher. The secondary index is binary-searched for the last block
// whose first key sorts before the query's first possible line (an earlier
// block may end with lines of that key), and blocks are read from there
// until a block's first key sorts past the last possible line.
func (c *Cluster) Lines(q Query) iter.Seq2[[]byte, error] {
	return c.lines(q, 0, -1, nil)
}

// candidates yields the entries of the blocks that may hold lines matching
// cq, in order: from the last block whose key sorts before cq.start to the
// last block whose key sorts before cq.end. Every entry it reads is
// checked to tile its part with the ones read before it (see tiling);
// with sizes, a part's last block is checked against the part file's size
// too.
func (c *Cluster) candidates(cq *compiled, sizes bool) iter.Seq2[IdxEntry, error] {
	return func(yield func(IdxEntry, error) bool) {
		lf := newLineFile(c.idx, c.size, c.MaxLineSize)
		off, err := lf.search(cq.start, idxKey)
		if err != nil {
			yield(IdxEntry{}, fmt.Errorf("cdxj: %s: %w", c.idxPath, unprefixed{err}))
			return
		}
		prev, err := lf.prevDataLine(off)
		if err != nil {
			yield(IdxEntry{}, fmt.Errorf("cdxj: %s: %w", c.idxPath, unprefixed{err}))
			return
		}
		// With no data line before off, off is the index's first.
		t := tiling{c: c, fromStart: prev < 0, sizes: sizes}
		if prev >= 0 {
			off = prev
		}
		// Read from one entry earlier still, only to check the order
		// and the tiling around the search's landing point (see below).
		check := false
		if prev >= 0 {
			pp, err := lf.prevDataLine(prev)
			if err != nil {
				yield(IdxEntry{}, fmt.Errorf("cdxj: %s: %w", c.idxPath, unprefixed{err}))
				return
			}
			if pp >= 0 {
				off, check = pp, true
			} else {
				t.fromStart = true
			}
		}
		end := string(cq.end)
		prevKey, prevAt := "", int64(-1)
		for e, err := range c.entriesFrom(off) {
			if check {
				// Only for the checks: a bad line there is not this
				// query's concern.
				check = false
				if err == nil {
					prevKey, prevAt = e.Key, e.At
					t.next(e)
				}
				continue
			}
			if err != nil {
				yield(IdxEntry{}, err)
				return
			}
			// The binary search is only right over a sorted index; an
			// entry that sorts before the one above it is reported, not
			// read past (a query would silently miss lines).
			if prevAt >= 0 && e.Key < prevKey {
				yield(IdxEntry{}, c.idxError(e.At, fmt.Errorf("%w: key %q sorts before %q on the line at byte %d (the secondary index is not sorted)", ErrZipNum, e.Key, prevKey, prevAt)))
				return
			}
			prevKey, prevAt = e.Key, e.At
			// A gap before this entry may have held lines of the query
			// even when this block sorts past it.
			if err := t.next(e); err != nil {
				yield(IdxEntry{}, err)
				return
			}
			if cq.end != nil && e.Key >= end {
				return
			}
			if !yield(e, nil) {
				return
			}
		}
		if err := t.end(); err != nil {
			yield(IdxEntry{}, err)
		}
	}
}

// blockPos is where a line of a cluster is: its block, the block's
// number among the blocks the query reads (from 0) and the line's 1-based
// number in the block.
type blockPos struct {
	e    IdxEntry
	n    int
	line int
	// blank, when not nil, is called for each blank line, at its place,
	// instead of counting it in the query's Query.Blank (a part counts
	// only the blank lines inside its range of lines).
	blank func()
}

// lines yields the matching lines of the candidate blocks skip to
// skip+count-1 (count < 0: all from skip on). When at is not nil it holds
// the position of each line while it is yielded.
func (c *Cluster) lines(q Query, skip, count int, at *blockPos) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		cq, err := q.compile()
		if err != nil {
			yield(nil, err)
			return
		}
		// The candidate blocks of this page.
		blocks := func(yield func(IdxEntry, error) bool) {
			i := -1
			for e, err := range c.candidates(cq, true) {
				if err != nil {
					yield(e, err)
					return
				}
				if i++; i < skip {
					continue
				}
				if count >= 0 && i >= skip+count {
					return
				}
				if !yield(e, nil) {
					return
				}
			}
		}
		n := 0
		done := false
		var cur IdxEntry
		ln, bn := 0, -1
		onLine := func(line []byte) bool {
			ln++
			if isBlankLine(line) {
				if at != nil && at.blank != nil {
					at.e, at.n, at.line = cur, bn, ln
					at.blank()
				} else {
					q.countBlank()
				}
				return true
			}
			if isHeaderLine(line) {
				return true
			}
			if at != nil {
				at.e, at.n, at.line = cur, bn, ln
			}
			switch cq.test(line) {
			case vStop:
				done = true
				return false
			case vSkip:
				return true
			}
			if !yield(line, nil) {
				done = true
				return false
			}
			n++
			if q.Limit > 0 && n >= q.Limit {
				done = true
				return false
			}
			return true
		}
		fail := func(err error) { done = true; yield(nil, err) }

		next, stop := iter.Pull2(iter.Seq2[IdxEntry, error](blocks))
		defer stop()
		workers := c.opt.workers()
		var ahead []*fetched // blocks being decompressed, in index order
		defer func() {
			for _, f := range ahead {
				<-f.done
				c.putFetched(f)
			}
		}()
		var endErr error // the error that ends the candidates, after the blocks before it
		exhausted := false
		br := c.getBlockReader()
		defer c.blockPool.Put(br)
		for inline := 0; !done; {
			if inline < 2 || workers <= 1 {
				// A query's first blocks are read as they are
				// decompressed: one that matches a few lines costs no more.
				e, err, ok := next()
				if !ok {
					return
				}
				if err != nil {
					yield(nil, err)
					return
				}
				inline++
				cur, ln, bn = e, 0, bn+1
				ok = c.blockLines(br, e, onLine, fail)
				c.opt.progress(e.Length)
				if !ok {
					return
				}
				continue
			}
			for !exhausted && len(ahead) < workers {
				e, err, ok := next()
				if !ok || err != nil {
					exhausted, endErr = true, err
					break
				}
				ahead = append(ahead, c.fetch(e))
			}
			if len(ahead) == 0 {
				if endErr != nil {
					yield(nil, endErr)
				}
				return
			}
			f := ahead[0]
			ahead = ahead[1:]
			<-f.done
			cur, ln, bn = f.e, 0, bn+1
			if f.err != nil {
				c.putFetched(f)
				fail(f.err)
				return
			}
			err := splitLines(f.data, c.maxLine(), onLine)
			c.putFetched(f)
			c.opt.progress(cur.Length)
			if err != nil && !done {
				fail(c.blockError(cur, err))
				return
			}
		}
	}
}

// partError is the error of a part that cannot be opened: err itself when
// it wraps ErrZipNum (it names the part and the locations tried), else err
// with the part named.
func partError(part string, err error) error {
	if errors.Is(err, ErrZipNum) {
		return err
	}
	return fmt.Errorf("cdxj: ZipNum part %q: %w", part, unprefixed{err})
}

// unprefixed is an error without its leading "cdxj: ", for a message that
// says it once, at the front; errors.Is and errors.As see the error.
type unprefixed struct{ err error }

func (e unprefixed) Error() string { return strings.TrimPrefix(e.err.Error(), "cdxj: ") }
func (e unprefixed) Unwrap() error { return e.err }

func (c *Cluster) maxLine() int {
	if c.MaxLineSize > 0 {
		return c.MaxLineSize
	}
	return DefaultMaxLineSize
}

func (c *Cluster) maxBlock() int64 {
	if c.MaxBlockSize > 0 {
		return c.MaxBlockSize
	}
	return DefaultMaxBlockSize
}

// fetched is one block read and decompressed ahead of its reader.
type fetched struct {
	e    IdxEntry
	comp []byte // the compressed block
	data []byte // its decompressed content
	err  error
	done chan struct{}
	zr   gzip.Reader
	src  bytes.Reader
}

var fetchedPool sync.Pool // of *fetched, buffers reused across blocks

// fetch starts reading and decompressing the block e in a goroutine of its
// own; wait on done.
func (c *Cluster) fetch(e IdxEntry) *fetched {
	f, _ := fetchedPool.Get().(*fetched)
	if f == nil {
		f = new(fetched)
	}
	f.e, f.err, f.done = e, nil, make(chan struct{})
	go func() {
		defer close(f.done)
		f.err = c.decompressBlock(f)
	}()
	return f
}

func (c *Cluster) putFetched(f *fetched) {
	if cap(f.data) > 16<<20 || cap(f.comp) > 16<<20 {
		return // an outsized block: let its buffers go
	}
	fetchedPool.Put(f)
}

// decompressBlock reads block f.e whole and decompresses it into f.data.
func (c *Cluster) decompressBlock(f *fetched) error {
	e := f.e
	where := func(err error) error { return c.blockError(e, err) }
	if e.Length > c.maxBlock() {
		return where(errBlockLimit(c.maxBlock()))
	}
	pf, err := c.part(e.Part)
	if err != nil {
		return partError(e.Part, err)
	}
	if int64(cap(f.comp)) < e.Length {
		f.comp = make([]byte, e.Length)
	}
	f.comp = f.comp[:e.Length]
	if n, err := pf.ReadAt(f.comp, e.Offset); int64(n) < e.Length {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return where(err)
	}
	f.src.Reset(f.comp)
	if err := f.zr.Reset(&f.src); err != nil {
		return where(err)
	}
	f.zr.Multistream(false)
	maxData := 4 * c.maxBlock()
	if f.data, err = readBounded(f.data[:0], &f.zr, maxData, sizeHint(f.comp)); err != nil {
		return where(err)
	}
	if rest := f.src.Len(); rest > 0 {
		return where(fmt.Errorf("its gzip member ends %d bytes before the length the index gives", rest))
	}
	return nil
}

// maxDeflateRatio bounds how many bytes one compressed byte of a deflate
// stream can decompress to (a 258-byte match costs at least 2 bits, so
// 1032 at most).
const maxDeflateRatio = 1032

// sizeHint returns the decompressed length the trailer of the gzip member
// comp gives (its last 4 bytes, the length modulo 2^32), capped at what
// comp could decompress to, so that a lying trailer cannot make a small
// block allocate much; 0 without a trailer.
func sizeHint(comp []byte) int64 {
	if len(comp) < 18 {
		return 0
	}
	n := int64(binary.LittleEndian.Uint32(comp[len(comp)-4:]))
	return min(n, maxDeflateRatio*int64(len(comp)))
}

// readBounded appends to buf what r reads until io.EOF and returns it; more
// than maxN bytes is an error, found with at most maxN+1 bytes held: buf
// grows by doubling (starting at hint, if larger than its capacity) but
// never past maxN+1, so that a gzip bomb costs about 2 × maxN of
// allocations in all and holds maxN+1 bytes at most at the end.
func readBounded(buf []byte, r io.Reader, maxN, hint int64) ([]byte, error) {
	limit := maxN + 1
	if hint = min(hint+1, limit); hint > 1 && int64(cap(buf)) < hint {
		buf = append(make([]byte, 0, hint), buf...)
	}
	for {
		if int64(len(buf)) >= limit {
			return buf, fmt.Errorf("decompresses to more than %d bytes", maxN)
		}
		if len(buf) == cap(buf) {
			n := max(int64(2*cap(buf)), 64<<10)
			if 2*n > limit {
				n = limit // rather than n and then limit
			}
			buf = append(make([]byte, 0, n), buf...)
		}
		room := min(int64(cap(buf)), limit) - int64(len(buf))
		n, err := r.Read(buf[len(buf) : len(buf)+int(room)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > maxN {
				return buf, fmt.Errorf("decompresses to more than %d bytes", maxN)
			}
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// splitLines calls yield for each line of a decompressed block, without
// its terminator ("\n" or "\r\n"; the last line may have none), until it
// returns false. A line longer than max is an error.
func splitLines(data []byte, max int, yield func([]byte) bool) error {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		line = trimCR(line)
		if len(line) > max {
			return fmt.Errorf("%w: a line of more than %d bytes", ErrLineTooLong, max)
		}
		if !yield(line) {
			return nil
		}
	}
	return nil
}

// Pages returns how many pages of pageSize blocks the answer to q spans,
// and how many blocks, as a CDX server's showNumPages=true does for a
// ZipNum index: only the secondary index is read, so a gap or overlap
// between two blocks it lists is an error (see Cluster) but part sizes
// are not checked. pageSize must be positive. Use Page to read one page.
func (c *Cluster) Pages(q Query, pageSize int) (pages, blocks int, err error) {
	if pageSize <= 0 {
		return 0, 0, fmt.Errorf("%w: page size %d", ErrQuery, pageSize)
	}
	cq, err := q.compile()
	if err != nil {
		return 0, 0, err
	}
	for _, err := range c.candidates(cq, false) {
		if err != nil {
			return 0, 0, err
		}
		blocks++
	}
	return (blocks + pageSize - 1) / pageSize, blocks, nil
}

// Page returns the lines matching q in page number page (0-based) of
// pageSize blocks, as a CDX server's page= and pageSize= do: the pages
// of a query together give the same lines as Lines, split at block
// boundaries, so that a client can fetch a large answer piece by piece.
// A page past the last yields nothing. q.Limit applies within the page.
func (c *Cluster) Page(q Query, page, pageSize int) iter.Seq2[[]byte, error] {
	if pageSize <= 0 || page < 0 {
		return func(yield func([]byte, error) bool) {
			yield(nil, fmt.Errorf("%w: page %d of size %d", ErrQuery, page, pageSize))
		}
	}
	return c.lines(q, page*pageSize, pageSize, nil)
}

// Records returns the lines that match q parsed as Records (layout
// inferred per line unless OpenOptions.Layout gives it); see Searcher. A
// line that does not parse yields its *ParseError, whose Source names its
// block ("cdx-00000.gz, block at byte 1234+567": part, offset, length)
// and whose Line is its line number in the block.
func (c *Cluster) Records(q Query) iter.Seq2[*Record, error] {
	var at blockPos
	return records(c.lines(q, 0, -1, &at), nil, c.opt.Layout, c.placeLine(&at))
}

// placeLine returns the place function of records for the lines of a
// cluster query whose position at holds: the block is the source, the
// line number is within the block.
func (c *Cluster) placeLine(at *blockPos) func(pe *ParseError) {
	var src string
	var srcOf IdxEntry
	return func(pe *ParseError) {
		if src == "" || at.e != srcOf {
			src, srcOf = fmt.Sprintf("%s, block at byte %d+%d", at.e.Part, at.e.Offset, at.e.Length), at.e
		}
		pe.Source, pe.Line, pe.Offset = src, int64(at.line), 0
	}
}

var _ Searcher = (*Cluster)(nil)

// Block is one gzip member of a ZipNum part file, as ReadBlocks yields it.
type Block struct {
	Offset int64  // byte offset of the member in the part file
	Length int64  // compressed length in bytes
	Data   []byte // the decompressed content; valid until the next iteration
}

// ReadBlocks reads a ZipNum part file (or any multistream gzip file)
// member by member, yielding each with its offset and length, so that a
// secondary index can be checked or rebuilt. A member that decompresses to
// more than maxData bytes (0 means 64 MiB) or is not gzip data is yielded
// as an error naming its offset, and ends the iteration. Memory: one
// decompressed member.
func ReadBlocks(r io.Reader, maxData int64) iter.Seq2[Block, error] {
	if maxData <= 0 {
		maxData = DefaultMaxBlockSize
	}
	return func(yield func(Block, error) bool) {
		cr := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
		var zr gzip.Reader
		var buf []byte
		for {
			start := cr.n
			if _, err := cr.r.Peek(1); err == io.EOF {
				return
			}
			if err := zr.Reset(cr); err != nil {
				yield(Block{}, fmt.Errorf("%w: member at byte %d: %v", ErrZipNum, start, err))
				return
			}
			zr.Multistream(false)
			var err error
			buf, err = readBounded(buf[:0], &zr, maxData, 0)
			if err != nil {
				yield(Block{}, fmt.Errorf("%w: member at byte %d: %v", ErrZipNum, start, err))
				return
			}
			if !yield(Block{Offset: start, Length: cr.n - start, Data: buf}, nil) {
				return
			}
		}
	}
}

// countingReader counts the bytes consumed through it; as an io.ByteReader
// it lets gzip read exactly one member and no further.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
