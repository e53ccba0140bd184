package mementomap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/edsrzf/mmap-go"
	"github.com/mementokit/mementokit/ukvs"
)

// Map is an open MementoMap file, memory-mapped read-only. Lookups binary
// search the mapped bytes, so opening costs one mmap call whatever the
// size, and memory use is the pages the kernel keeps cached, plus, once a
// Map has served a few thousand lookups (2,048), a sparse block index (1–2
// % of the file) and a hash table of every key, about 13 bytes per map
// line (at most 256 MiB: maps of more than about 20 million lines go
// without). The hash table is built by one scan of the map in a goroutine
// of its own, about 0.06 s of CPU per million lines while the table fits
// the caches and 0.3 s beyond (0.9–1.0 s for a 144 MB map of 3.3 million
// lines); until it is ready, and in maps too large for it, lookups search
// the index and line tables built block by block as lookups reach them (8
// bytes per line plus about 64 per 4 KiB block, at most 256 MiB). A Map
// is safe for concurrent use by many goroutines; Close must not race with
// lookups.
//
// A file truncated while it is mapped would end the process with SIGBUS at
// the first read of a page past its new end. A Map turns such a fault into
// an error instead (runtime/debug.SetPanicOnFault around every read of the
// mapping, recovered): the lookup, and every later one, returns an error
// wrapping [ErrChanged], so that an embedder (an aggregator) can drop the
// map and open the file again. [Map.Changed] tells an in-place change
// before any fault.
type Map struct {
	f       *os.File
	path    string
	size    int64     // the file's size when opened
	mtime   time.Time // its modification time when opened
	damaged atomic.Bool
	data    mmap.MMap
	b       []byte // data, or nil for an empty file
	start   int    // offset of the first line after the header section
	headers ukvs.Headers
	lay     mapLayout // its columns, from !fields
	err     error     // why the map cannot be searched (ErrLoneCR), returned by lookups
	pool    sync.Pool // *candidates

	topMu sync.RWMutex
	top   map[string]searchResult // answers for "*" and "tld,*"

	lookups atomic.Int64               // lookups so far, until the index is built
	index   atomic.Pointer[blockIndex] // sparse index, built after indexAfter lookups

	keys     atomic.Pointer[keyHash] // key table, built in the background after indexAfter lookups
	keysDone chan struct{}           // closed when the key table's build ends; nil before it starts
	closing  atomic.Bool             // set by Close: stops the key table's build and the order check

	order     atomic.Int32  // orderUnknown, orderSorted or orderBroken (Map.CheckOrder)
	orderErr  error         // why the map is out of order, set before order is orderBroken
	orderOnce sync.Once     // starts the order check
	orderDone chan struct{} // closed when a check in its own goroutine ends; nil for none
}

// Match is the answer of a lookup.
type Match struct {
	Key       string         // the map key that decided, "" when none matched
	Value     string         // its frequency column as written
	Frequency ukvs.Frequency // Value parsed (zero when Value is malformed or missing)
	Distance  int            // index of Key among the lookup keys tried (0 = exact), -1 when none matched
	// Time is the time key of the line that decided, in a map with a time
	// key column ([Map.TimeKey]): its datetime, or its observation time;
	// "" in other maps, and when the frequency sums several lines.
	Time string
	// Stale, from [Map.LookupObserved], says that the URI-R's latest
	// observation is a negative too old to be trusted: the archive may
	// hold it now.
	Stale bool
}

// Present reports whether the map says the archive may hold the URI: a key
// matched and its frequency does not say "holds nothing" (internal/spec/MEMENTOMAP.md:
// a frequency of 0 is an exclusion line, which means absent).
func (m Match) Present() bool { return m.Distance >= 0 && !m.Frequency.HoldsNothing() }

// ErrClosed is returned by lookups on a closed Map.
var ErrClosed = errors.New("mementomap: map is closed")

// ErrChanged is wrapped by the errors of lookups in a Map whose file was
// truncated while mapped (a read past the new end faulted), and by
// [Map.Changed] for a file changed in place. The Map stays unusable: close
// it and open the file again.
var ErrChanged = errors.New("mementomap: the map file was changed in place while open (truncated or rewritten); open it again")

// ErrNotRegular is wrapped by the error of [Open] for a path that is not a
// regular file (a directory, a FIFO, a device): a map is read in place.
var ErrNotRegular = errors.New("not a regular file")

// ErrLoneCR is returned by [Open] (and by lookups in a Map from
// [FromBytes]) for a map whose first line ends with a lone CR ("\r", the
// old Macintosh line end): its lines are not LF-separated, so a lookup
// would see one line and answer absent for keys the map holds. Lines must
// end with LF or CRLF (UKVS). Only the first 64 KiB are checked, to keep
// Open in constant time; a lone CR further on joins two lines, hides the
// second one's key, and is reported by ukvs.Check.
var ErrLoneCR = errors.New("mementomap: lines end with a lone CR; convert the map to LF line ends")

// ErrNotMap is returned by [Open] (and by lookups in a Map from
// [FromBytes]) for a file that is plainly not a MementoMap: a
// gzip-compressed file (decompress it first), or one whose first data line
// is a CDX or CDXJ index line (a 12–17 digit timestamp where the frequency
// belongs, or more columns than "key frequency [{json}]"), or one with a
// control byte in its first line, or many in its first 64 KiB (binary
// data, or UTF-16 text: a NUL, or a C0 control other than tab, LF, VT, FF
// and CR; the error names the first one's offset). Looking keys up
// in such a file would answer absent, or a timestamp as a count. Only the
// first data line is checked, so Open stays constant-time; a map declaring
// its own columns with a !fields header is checked for gzip only.
var ErrNotMap = errors.New("mementomap: not a MementoMap (UKVS) file")

// checkFirstLine returns an error wrapping ErrNotMap when b (the whole
// file) or its first data line, starting at start, is plainly not a map.
func checkFirstLine(b []byte, start int, headers ukvs.Headers) error {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		return fmt.Errorf("%w: the file is gzip-compressed; decompress it first", ErrNotMap)
	}
	for _, h := range headers {
		if h.Name == "fields" {
			return nil
		}
	}
	if start >= len(b) {
		return nil
	}
	line := b[start:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, "\r")
	// Columns are separated by spaces and tabs only, as keyOf cuts the
	// key: other white space (a form feed) belongs to the column.
	cols := bytes.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(cols) < 2 {
		return nil // a bare key; the lookup reports its value as it is
	}
	if n := len(cols[1]); n >= 12 && n <= 17 && isDigits(cols[1]) {
		return fmt.Errorf("%w: the first data line looks like a CDX/CDXJ index line (a timestamp where the frequency belongs); build a map from it with Build", ErrNotMap)
	}
	if len(cols) > 2 && cols[2][0] != '{' {
		return fmt.Errorf("%w: the first data line has %d columns, not \"key frequency [{json}]\" (a CDX index?)", ErrNotMap, len(cols))
	}
	return nil
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// utf8BOM is the UTF-8 byte order mark, skipped at the start of a map.
const utf8BOM = "\xef\xbb\xbf"

// loneCRWindow is how many leading bytes Open checks for lone CR line ends.
const loneCRWindow = 64 << 10

// hasLoneCR reports whether the first line of b (or its first
// loneCRWindow bytes) holds a CR followed by anything but CR or LF.
func hasLoneCR(b []byte) bool {
	b = b[:min(len(b), loneCRWindow)]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	for {
		i := bytes.IndexByte(b, '\r')
		if i < 0 {
			return false
		}
		b = b[i+1:]
		if len(b) > 0 && b[0] != '\r' {
			return true
		}
	}
}

// binaryAt returns the offset of the first control byte in b when b is
// binary data (or a map written as UTF-16), or -1: a control byte (a NUL
// or another C0 control than tab, LF, vertical tab, form feed and CR,
// which UKVS text does not hold: JSON strings escape them, SURT keys
// percent-encode them) in its first line, or control bytes making 1/16 or
// more of its first loneCRWindow bytes (random bytes: 27 in 256). It is
// looked for before line ends, so that random bytes are taken neither
// for a map with lone CR line ends nor for one cut short. A control byte
// in a later line of a text file is that line's error, found by the
// lookups that read it and by ukvs.Check.
// binaryError returns the error wrapping ErrNotMap for a file whose first
// bytes, b, are binary data (binaryAt, after a byte order mark), naming the
// offset, with that offset; or -1 and nil.
func binaryError(b []byte) (int, error) {
	p := 0
	if bytes.HasPrefix(b, []byte(utf8BOM)) {
		p = len(utf8BOM)
	}
	i := binaryAt(b[p:])
	if i < 0 {
		return -1, nil
	}
	return p + i, fmt.Errorf("%w: byte %d is %#02x, a control byte that no map's text holds (binary data, or UTF-16 text?)", ErrNotMap, p+i, b[p+i])
}

func binaryAt(b []byte) int {
	b = b[:min(len(b), loneCRWindow)]
	first, n := -1, 0
	firstLine := true
	for i, c := range b {
		if c == '\n' {
			firstLine = false
		}
		if c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' {
			if firstLine {
				return i
			}
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n >= 16 && n >= len(b)/16 {
		return first
	}
	return -1
}

// Open memory-maps the MementoMap file at path for lookups. Empty files and
// files holding only headers are valid maps that hold nothing. The header
// section ("!" lines and blank lines at the top) is parsed leniently: a
// header line that is not valid UKVS is kept with its raw value. A UTF-8
// byte order mark at the start is skipped; lines end with LF or CRLF, and
// a map whose first line ends with a lone CR is refused with [ErrLoneCR],
// a gzip-compressed file, a CDX/CDXJ index or binary data (a control
// byte in the first line, or many in the first 64 KiB; UTF-16 text too;
// the error names the byte's offset) with [ErrNotMap], and a
// file whose last line has no line end (a map cut short, whose last
// frequency may be cut too) with an error naming the file and that line
// and wrapping [ErrNoLineEnd] and a *ukvs.ParseError.
//
// A valid map has its data lines sorted byte-wise by key, each key once
// (ukvs.Check, the check command). In an unsorted map a binary search can
// miss a key the file holds; so the map's first lookup checks its order
// ([Map.CheckOrder], which states the guarantee), and on a map out of
// order every lookup returns an error wrapping ukvs.ErrOutOfOrder naming
// the file and the line. Of duplicate keys, the first line decides.
//
// The file is mapped, not copied. Replacing it by renaming a new file over
// its path (what [Compact], [Build] and the command do) leaves an open Map
// reading the old content until it is closed and opened again. Changing
// the file in place while it is open (writing into it, truncating it) is
// not supported: lookups may see the new bytes mid-search. A truncation is
// caught when a lookup reads past the new end: that lookup and every later
// one return an error wrapping [ErrChanged] (the fault is recovered, the
// process lives on); [Map.Changed] reports any in-place change.
//
// A path that is not a regular file (a directory, a FIFO) is refused with
// an error wrapping [ErrNotRegular].
//
// Open differs from the module's other openers (cdxj.Open(ctx, name,
// *OpenOptions), bbolt's Open(path, mode, *Options)) in two ways, on
// purpose. It takes no context: it reads one local file and maps it,
// which never waits on the network or on a peer (cdxj.Open may open a
// CDX server; a FIFO, which would wait for a writer, is opened without
// blocking and refused). It takes no options: opening a map has nothing to set, since
// its layout comes from its own !fields header and its lookup index is
// built by the Map itself once lookups call for it. An options argument,
// should one be needed, is to be a pointer with nil meaning the defaults,
// like those of [Build] and [Compact].
func Open(path string) (_ *Map, err error) {
	// Opened without blocking: a FIFO would wait for a writer. What was
	// opened is then checked, so a path swapped between a check and the
	// open cannot slip through.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("mementomap: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mementomap: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi)
	}
	m := &Map{f: f, path: path, size: fi.Size(), mtime: fi.ModTime()}
	if fi.Size() > 0 {
		m.data, err = mmap.Map(f, mmap.RDONLY, 0)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("mementomap: mmap %s: %w", path, err)
		}
		m.b = m.data
	}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	m.start = m.parseHeaders()
	m.lay = layoutOf(m.headers)
	m.pool.New = func() any { return new(candidates) }
	if m.err == nil {
		m.err = checkFirstLine(m.b, m.start, m.headers)
	}
	if m.err != nil {
		// The file first, as every other error of Open names it.
		return nil, fmt.Errorf("mementomap: %s: %w", path, stripPrefix{m.err})
	}
	if n := len(m.b); n > 0 && m.b[n-1] != '\n' {
		// A map cut short: its last frequency may be cut too.
		line := int64(bytes.Count(m.b, []byte{'\n'})) + 1
		return nil, fmt.Errorf("mementomap: %s: %w", path, &ukvs.ParseError{Line: line, Err: ErrNoLineEnd})
	}
	return m, nil
}

// stripPrefix is an error without its "mementomap: " prefix, for a message
// that says it once at the front; errors.Is and errors.As see the error.
type stripPrefix struct{ err error }

func (e stripPrefix) Error() string { return strings.TrimPrefix(e.err.Error(), "mementomap: ") }
func (e stripPrefix) Unwrap() error { return e.err }

// notRegular is Open's error for a path that is not a regular file.
func notRegular(path string, fi os.FileInfo) error {
	what := "a special file"
	switch t := fi.Mode().Type(); {
	case t&fs.ModeDir != 0:
		what = "a directory"
	case t&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeCharDevice != 0:
		what = "a character device"
	case t&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("mementomap: %s: %w (it is %s); a map is read in place, from a file", path, ErrNotRegular, what)
}

// endFault, deferred by every method that reads the mapping after
// debug.SetPanicOnFault(true) (whose previous setting is old), restores
// the setting and turns a memory fault on the mapping (its file was
// truncated) into an error wrapping ErrChanged; other panics go on.
func (m *Map) endFault(old bool, err *error) {
	debug.SetPanicOnFault(old)
	r := recover()
	if r == nil {
		return
	}
	fault, ok := r.(interface {
		runtime.Error
		Addr() uintptr
	})
	if !ok {
		panic(r)
	}
	m.damaged.Store(true)
	*err = fmt.Errorf("%w: %s: memory fault reading the mapping (%v)", ErrChanged, m.path, fault)
}

// readInBackground runs read, a pass over the mapping, in a goroutine of
// its own and returns a channel closed when it ends. A memory fault on the
// mapping (its file was truncated) ends the pass and marks the Map damaged,
// as endFault does for a lookup.
func (m *Map) readInBackground(read func()) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		defer m.endFault(debug.SetPanicOnFault(true), &err)
		read()
	}()
	return done
}

// readable reports whether a whole-map pass has a mapping to read: false
// with ErrClosed after Close, with nil for an empty file (no mapping), and
// with the ErrChanged error of a Map found damaged.
func (m *Map) readable() (bool, error) {
	if m.b == nil {
		if m.f == nil {
			return false, ErrClosed
		}
		return false, nil
	}
	if m.damaged.Load() {
		return false, m.changedErr()
	}
	return true, nil
}

// changedErr is the error of a Map found damaged.
func (m *Map) changedErr() error { return fmt.Errorf("%w: %s", ErrChanged, m.path) }

// Changed returns an error wrapping [ErrChanged] when the open file was
// changed in place since Open (its size or modification time differs, or
// a read of the mapping faulted), and nil otherwise, also for a Map from
// [FromBytes]. It costs one fstat. A file replaced by renaming another
// over its path is not changed: the Map reads the old file, which is
// intact (compare os.Stat of the path with the file to tell).
func (m *Map) Changed() error {
	if m.damaged.Load() {
		return m.changedErr()
	}
	if m.f == nil {
		return nil
	}
	fi, err := m.f.Stat()
	if err != nil {
		return fmt.Errorf("mementomap: %s: %w", m.path, err)
	}
	if fi.Size() != m.size {
		return fmt.Errorf("%w: %s: %d bytes when opened, %d now", ErrChanged, m.path, m.size, fi.Size())
	}
	if !fi.ModTime().Equal(m.mtime) {
		return fmt.Errorf("%w: %s: modified at %s, after it was opened", ErrChanged, m.path, fi.ModTime().UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// File returns the open file of a Map from [Open] (for os.SameFile with
// its path), or nil.
func (m *Map) File() *os.File { return m.f }

// FromBytes returns a Map over b, a MementoMap held in memory, with the
// same lookups as a file opened by [Open]. b must not change while the Map
// is in use; Close on such a Map only forgets b. Where Open would refuse b
// ([ErrLoneCR], [ErrNotMap]), the Map's lookups return that error.
func FromBytes(b []byte) *Map {
	m := &Map{b: b}
	if m.b == nil {
		m.b = []byte{}
	}
	m.start = m.parseHeaders()
	m.lay = layoutOf(m.headers)
	m.pool.New = func() any { return new(candidates) }
	if m.err == nil {
		m.err = checkFirstLine(m.b, m.start, m.headers)
	}
	return m
}

// parseHeaders reads the "!" lines at the top and returns where data
// starts, after a byte order mark if any. It sets m.err for lone CR line
// ends.
func (m *Map) parseHeaders() int {
	p := 0
	if bytes.HasPrefix(m.b, []byte(utf8BOM)) {
		p = len(utf8BOM)
	}
	if gz := len(m.b) >= 2 && m.b[0] == 0x1f && m.b[1] == 0x8b; !gz {
		if _, err := binaryError(m.b); err != nil {
			m.err = err
			return len(m.b)
		}
	}
	if hasLoneCR(m.b[p:]) {
		m.err = ErrLoneCR
		return len(m.b)
	}
	for p < len(m.b) {
		e := bytes.IndexByte(m.b[p:], '\n')
		end := len(m.b)
		if e >= 0 {
			end = p + e
		}
		line := m.b[p:end]
		switch {
		case isBlank(line):
		case line[0] == '!':
			name, raw, _ := strings.Cut(strings.TrimRight(string(line[1:]), "\r"), " ")
			m.headers = append(m.headers, ukvs.Header{Name: name, Raw: strings.TrimSpace(raw)})
		default:
			return p
		}
		if e < 0 {
			return len(m.b)
		}
		p = end + 1
	}
	return p
}

// Headers returns the header lines of the map (name and raw value only).
func (m *Map) Headers() ukvs.Headers { return m.headers }

// Size returns the size of the mapped file in bytes.
func (m *Map) Size() int { return len(m.b) }

// Close unmaps the file and closes it. Lookups after Close return ErrClosed.
func (m *Map) Close() error {
	m.closing.Store(true)
	if m.keysDone != nil {
		<-m.keysDone
	}
	if m.orderDone != nil {
		<-m.orderDone
	}
	var err error
	if m.data != nil {
		err = m.data.Unmap()
		m.data = nil
	}
	m.b = nil
	m.start = 0
	if m.f != nil {
		if cerr := m.f.Close(); err == nil {
			err = cerr
		}
		m.f = nil
	}
	return err
}

// lineAt returns the bounds of the line containing offset p.
func (m *Map) lineStart(p int) int {
	i := bytes.LastIndexByte(m.b[m.start:p], '\n')
	if i < 0 {
		return m.start
	}
	return m.start + i + 1
}

func (m *Map) lineEnd(p int) int {
	i := bytes.IndexByte(m.b[p:], '\n')
	if i < 0 {
		return len(m.b)
	}
	return p + i
}

// keyOf returns the key column of a line exactly as splitLine does: the
// line without its end ("\r", "\n") up to the first space or tab.
func keyOf(line []byte) []byte {
	for len(line) > 0 && (line[len(line)-1] == '\r' || line[len(line)-1] == '\n') {
		line = line[:len(line)-1]
	}
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		i = len(line)
	}
	k := line[:i]
	if j := bytes.IndexByte(k, '\t'); j >= 0 {
		k = k[:j]
	}
	return k
}

// probe returns the first non-blank line starting in [p, hi): its start
// and end; ok is false when [p, hi) holds only blank lines.
func (m *Map) probe(p, hi int) (ls, le int, ok bool) {
	for p < hi {
		le = m.lineEnd(p)
		if !isBlank(m.b[p:le]) {
			return p, le, true
		}
		p = le + 1
	}
	return 0, 0, false
}

// searchRange finds the first non-blank line whose key is not less than
// key, knowing that every non-blank line starting before lo is less and
// every one starting at or after hi is not (lo and hi are line starts or
// len(b)). It returns its start (or len(b)) and whether its key equals key.
func (m *Map) searchRange(lo, hi int, key []byte) (int, bool) {
	for lo < hi {
		ls := m.nextLineStart(lo+(hi-lo)/2, hi)
		if ls >= hi {
			ls = lo
		}
		ls2, le, ok := m.probe(ls, hi)
		if !ok {
			hi = ls
			continue
		}
		if bytes.Compare(keyOf(m.b[ls2:le]), key) < 0 {
			lo = le + 1
		} else {
			hi = ls
		}
	}
	if ls, le, ok := m.probe(lo, len(m.b)); ok {
		return ls, bytes.Equal(keyOf(m.b[ls:le]), key)
	}
	return len(m.b), false
}

// nextLineStart returns the first line start at or after p, or hi when
// there is none before hi. Scanning forward uses the vectorized IndexByte.
func (m *Map) nextLineStart(p, hi int) int {
	if p <= m.start {
		return m.start
	}
	if p >= hi {
		return hi
	}
	if i := bytes.IndexByte(m.b[p-1:hi], '\n'); i >= 0 {
		return p + i
	}
	return hi
}

// search is searchIn over the whole data section.
func (m *Map) search(key []byte) (int, bool) { return m.searchIn(m.start, len(m.b), key) }

// searchIn is searchRange, through searchFast when key allows it.
func (m *Map) searchIn(lo, hi int, key []byte) (int, bool) {
	if plainKey(key) {
		return m.searchFast(lo, hi, key)
	}
	return m.searchRange(lo, hi, key)
}

// gallopStep is the first step, in bytes, of a galloping search.
const gallopStep = 256

// seek is search started from hint, the start of a line near the answer
// (or len(b)): it gallops away from hint in doubling steps until it
// brackets the answer, then binary searches the bracket. Keys near the
// hint cost a few line reads instead of a full binary search; far ones at
// most twice as many.
func (m *Map) seek(key []byte, hint int) (int, bool) {
	if hint < m.start || hint > len(m.b) {
		return m.search(key)
	}
	ls, le, ok := m.probe(hint, len(m.b))
	if ok && bytes.Compare(keyOf(m.b[ls:le]), key) < 0 {
		lo, step := le+1, gallopStep
		for {
			if lo+step >= len(m.b) {
				return m.searchIn(lo, len(m.b), key)
			}
			hs := m.nextLineStart(lo+step, len(m.b))
			ls2, le2, ok := m.probe(hs, len(m.b))
			if !ok || bytes.Compare(keyOf(m.b[ls2:le2]), key) >= 0 {
				return m.searchIn(lo, hs, key)
			}
			lo, step = le2+1, step*2
		}
	}
	hi := hint
	if ok {
		hi = ls
	}
	for step := gallopStep; ; step *= 2 {
		if hi-step <= m.start {
			return m.searchIn(m.start, hi, key)
		}
		hs := m.nextLineStart(hi-step, hi)
		ls2, le2, ok := m.probe(hs, hi)
		if ok && bytes.Compare(keyOf(m.b[ls2:le2]), key) < 0 {
			return m.searchIn(le2+1, hi, key)
		}
		hi = hs
	}
}

// Get returns the frequency column of the (first) line whose key is
// exactly key.
//
// A Map whose file was truncated while open answers "", false; [Map.Changed]
// then reports it.
func (m *Map) Get(key string) (value string, ok bool) {
	if m.b == nil || m.damaged.Load() {
		return "", false
	}
	var err error
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	p, ok, err := m.searchKey(nil, []byte(key))
	if err != nil || !ok {
		return "", false
	}
	return string(m.valueAt(m.b[p:m.lineEnd(p)])), true
}

// LookupSURT looks up a SURT or HxPx key (the query, if any, is cut): it
// tries the keys of [AppendLookupKeys] most specific first and returns the
// first present in the map. No match returns Distance -1, which, like a
// match whose frequency holds nothing, means absent. Cost: one binary
// search (O(log size) line reads) per key tried; with the index and line
// tables of a Map in steady use, O(log size) in-memory comparisons and one
// line read per key found.
//
// In a map with a "datetime" key column the first key present decides
// with the frequency of all its lines (see [Map.LookupAt] for a lookup at
// a datetime); in an observed map the answer is [Map.LookupObserved]'s at
// the present time.
//
// A key holding a NUL byte is refused with an error wrapping
// ukvs.ErrNULKey: no map holds one ([Map.Lookup] of a SURT escapes it as
// the build does). A lookup that faults on the mapping (its file was
// truncated while open) returns an error wrapping [ErrChanged], as every
// later lookup does.
func (m *Map) LookupSURT(surtKey string) (res Match, err error) {
	if i := strings.IndexByte(surtKey, 0); i >= 0 {
		return Match{Distance: -1}, fmt.Errorf("mementomap: lookup key %q, byte %d: %w (no map holds one; Lookup escapes it as %%00)", surtKey, i, ukvs.ErrNULKey)
	}
	if m.lay.timeKey == TimeKeyObserved {
		return m.LookupObserved(surtKey, time.Now(), 0)
	}
	if m.b == nil {
		if m.f == nil {
			return Match{Distance: -1}, ErrClosed
		}
		return Match{Distance: -1}, nil
	}
	if m.err != nil {
		return Match{Distance: -1}, m.err
	}
	if len(m.b) == 0 {
		return Match{Distance: -1}, nil
	}
	if m.damaged.Load() {
		return Match{Distance: -1}, m.changedErr()
	}
	defer func() {
		if err != nil {
			res = Match{Distance: -1}
		}
	}()
	defer m.endFault(debug.SetPanicOnFault(true), &err)
	c := m.pool.Get().(*candidates)
	defer m.pool.Put(c)
	c.src = append(c.src[:0], surtKey...)
	c.build(c.src)
	c.err = nil
	if sorted, err := m.ordered(); err != nil {
		return Match{Distance: -1}, err
	} else if sorted {
		res = m.lookupCandidates(c)
	} else {
		res = m.lookupChecked(c)
	}
	if c.err != nil {
		return Match{Distance: -1}, c.err
	}
	if res.Distance == 0 {
		// The key is the query-less input, but for "" and "?..." ("*").
		if k0 := c.key(0); strings.HasPrefix(surtKey, string(k0)) {
			res.Key = surtKey[:len(k0)]
		} else {
			res.Key = string(k0)
		}
	}
	return res, nil
}

// lookupCandidates tries the candidates in order. The first (the key K
// itself) is binary searched; its neighbours in the map bound the rest:
// the keys sharing a prefix S with K form one contiguous block that
// contains K's place, so if a candidate C is in the map, one of the two
// lines around K's place shares the prefix lcp(C, K). A candidate whose
// common prefix with K is longer than both neighbours' is therefore absent
// and costs nothing; for a URI of an unknown host that skips every path and
// host wildcard. The others are searched by galloping from K's place.
func (m *Map) lookupCandidates(c *candidates) Match {
	x := m.indexed()
	if h := m.keys.Load(); h != nil && plainKey(c.src) {
		return m.lookupHashed(h, c)
	}
	k0 := c.key(0)
	if x != nil && plainKey(c.src) {
		if h := m.findTable(x, k0, -1); h.b >= 0 {
			return m.lookupTables(x, c, h)
		}
	}
	var p0 int
	var ok bool
	if x != nil {
		p0, ok = m.find(x, k0)
	} else {
		p0, ok = m.search(k0)
	}
	if ok {
		return m.matchAt(c, p0, k0, 0, false)
	}
	shared := 0
	if ls, le, ok := m.probe(p0, len(m.b)); ok {
		shared = commonPrefix(keyOf(m.b[ls:le]), k0)
	}
	if pk := m.prevKey(p0); pk != nil {
		shared = max(shared, commonPrefix(pk, k0))
	}
	for i := 1; i < c.n; i++ {
		if c.prefixWith0(i) > shared {
			continue
		}
		k := c.key(i)
		var p int
		if isTopKey(k) {
			p, ok = m.cachedSearch(x, k)
		} else {
			p, ok = m.seekFrom(x, k, p0)
		}
		if ok {
			return m.matchAt(c, p, k, i, false)
		}
	}
	return Match{Distance: -1}
}

// lookupTables is lookupCandidates once the exact key was searched
// through the line tables (h): the neighbours' common prefix comes from
// the tables, and the other keys are searched starting from K's block.
func (m *Map) lookupTables(x *blockIndex, c *candidates, h tableHit) Match {
	k0 := c.key(0)
	if h.ok {
		return m.matchAt(c, h.p, k0, 0, false)
	}
	for i := 1; i < c.n; i++ {
		if c.prefixWith0(i) > h.shared {
			continue
		}
		k := c.key(i)
		var p int
		var ok bool
		if isTopKey(k) {
			p, ok = m.cachedSearch(x, k)
		} else if hk := m.findTable(x, k, h.b); hk.b >= 0 {
			p, ok = hk.p, hk.ok
		} else {
			p, ok = m.find(x, k)
		}
		if ok {
			return m.matchAt(c, p, k, i, false)
		}
	}
	return Match{Distance: -1}
}

// prevKey returns the key of the last non-blank line before offset p (a
// line start), or nil.
func (m *Map) prevKey(p int) []byte {
	for p > m.start {
		end := p
		if m.b[p-1] == '\n' {
			end = p - 1
		}
		ls := m.lineStart(end)
		if !isBlank(m.b[ls:end]) {
			return keyOf(m.b[ls:end])
		}
		p = ls
	}
	return nil
}

// matchAt returns the Match of the line starting at p, the first of key
// k, candidate i. Its key, frequency column and parsed frequency come from
// c's caches when c returned the same line or value before. A bad line
// (Map.checkLine) sets c.err and matches nothing; checked says the line
// passed that check in an earlier lookup (the key table keeps that), and
// is not checked again.
func (m *Map) matchAt(c *candidates, p int, k []byte, i int, checked bool) Match {
	key := "" // set by LookupSURT for the exact key (i == 0), without a copy
	if i > 0 {
		key = c.keyString(p, k)
	}
	if m.lay.timeKey != "" {
		ls, err := m.keyLines(nil, p, k, &c.rec)
		if err != nil {
			c.err = err
			return Match{Distance: -1}
		}
		v, t, f := anyTime(m.lay.timeKey, ls)
		return Match{Key: key, Value: v, Frequency: f, Distance: i, Time: t}
	}
	line := m.b[p:m.lineEnd(p)]
	if !checked {
		if err := m.checkLine(&c.rec, p, line, 0); err != nil {
			c.err = err
			return Match{Distance: -1}
		}
	}
	v, f := c.frequency(m.valueAt(line))
	return Match{Key: key, Value: v, Frequency: f, Distance: i}
}

// ErrBadLine is wrapped by the error of a lookup that ends on a data line
// of the map that is bad by the rule of ukvs.Check (ukvs.CheckLine: too
// few columns for its !fields, extra columns that are no JSON block, a
// malformed frequency or datetime), and of Map.Totals for such a line: no
// answer is made up from it. Map.Stats counts such lines instead. The
// error names the map's file and the line ("FILE: ukvs: line N, column
// C: cause").
var ErrBadLine = errors.New("mementomap: bad map line")

// checkLine checks the data line line, starting at offset p, by
// ukvs.CheckLine against the map's layout, without the CRs before its
// "\n" (splitLine's line end). lineNo is its 1-based line number, headers
// counted, or 0 to count it (only when it is bad).
func (m *Map) checkLine(rec *ukvs.Record, p int, line []byte, lineNo int64) error {
	line = bytes.TrimRight(line, "\r")
	col, err := ukvs.CheckLine(line, m.lay.fields, rec)
	if err == nil {
		return nil
	}
	if lineNo <= 0 {
		lineNo = int64(bytes.Count(m.b[:p], []byte{'\n'})) + 1
	}
	name := m.path
	if name == "" {
		name = "map"
	}
	return fmt.Errorf("%w: %s: %w", ErrBadLine, name, &ukvs.ParseError{Line: lineNo, Column: col, Err: err})
}

// keySlots and valueSlots are the sizes of the caches of a candidates
// (powers of two, indexed by the top keySlotBits and valueSlotBits of a
// hash): most lookups of a compacted map end on a few thousand wildcard
// keys ("com,example)/*"), and most lines share a few dozen frequencies
// ("1/1", "2/1").
const (
	keySlotBits   = 10
	valueSlotBits = 10
	keySlots      = 1 << keySlotBits
	valueSlots    = 1 << valueSlotBits
)

// keyEntry and valueEntry are entries of the caches of a candidates.
type keyEntry struct {
	p   int // line start + 1; 0 for an empty entry
	key string
}

type valueEntry struct {
	raw string
	f   ukvs.Frequency
}

// keyString returns k, the key of the line starting at p, as a string,
// from the cache when it holds that line (c may be nil: no cache).
func (c *candidates) keyString(p int, k []byte) string {
	if c == nil {
		return string(k)
	}
	e := &c.keys[uint64(p)*xxP1>>(64-keySlotBits)]
	if e.p != p+1 || e.key != string(k) {
		*e = keyEntry{p + 1, string(k)}
	}
	return e.key
}

// frequency returns the frequency column v as a string and parsed, from
// the cache when it holds v (c may be nil: no cache).
func (c *candidates) frequency(v []byte) (string, ukvs.Frequency) {
	if c == nil || len(v) > 16 {
		var f ukvs.Frequency
		_ = f.UnmarshalText(v)
		return string(v), f
	}
	e := &c.values[(prefix8(v)*xxP1^uint64(len(v)))>>(64-valueSlotBits)]
	if e.raw != string(v) || e.raw == "" {
		*e = valueEntry{raw: string(v)}
		_ = e.f.UnmarshalText(v)
	}
	return e.raw, e.f
}

// valueAt returns the frequency column of a data line.
func (m *Map) valueAt(line []byte) []byte {
	if m.lay.plain() {
		_, v, _ := splitLine(line)
		return v
	}
	return column(line, m.lay.freq)
}

// seekFrom searches key through the index when there is one, else by
// galloping from hint.
func (m *Map) seekFrom(x *blockIndex, key []byte, hint int) (int, bool) {
	if x != nil {
		return m.find(x, key)
	}
	return m.seek(key, hint)
}

// isTopKey reports whether k is a key many lookups share, whose answer is
// cached: "*", a host wildcard ("com,*", "com,example,*") or the wildcard
// of a whole host's paths ("com,example)/*"). Lookups of absent paths and
// unknown hosts end on these, and real lookup streams repeat hosts.
func isTopKey(k []byte) bool {
	if len(k) == 1 {
		return k[0] == '*'
	}
	n := len(k)
	return n > 2 && k[n-1] == '*' && (k[n-2] == ',' || (n > 3 && k[n-2] == '/' && k[n-3] == ')'))
}

type searchResult struct {
	p  int
	ok bool
}

// maxTopCache bounds the cache of shared keys: about 64 Ki entries, a few
// MiB. Once full it keeps what it has.
const maxTopCache = 1 << 16

func (m *Map) cachedSearch(x *blockIndex, k []byte) (int, bool) {
	m.topMu.RLock()
	r, hit := m.top[string(k)]
	m.topMu.RUnlock()
	if hit {
		return r.p, r.ok
	}
	var p int
	var ok bool
	if x != nil {
		p, ok = m.find(x, k)
	} else {
		p, ok = m.search(k)
	}
	m.topMu.Lock()
	if m.top == nil {
		m.top = make(map[string]searchResult)
	}
	if len(m.top) < maxTopCache {
		m.top[string(k)] = searchResult{p, ok}
	}
	m.topMu.Unlock()
	return p, ok
}

// Lookup looks up a URI or a SURT through [Map.LookupSURT], with the key
// [Build] makes of the same URI-R. An input whose first ')' ends a host part
// (it comes before any '/', '?' or '#': "com,example)/a", and not
// "example.com/a)b") is taken as a SURT, anything else as a URL, which is
// canonicalized with surt.Canonicalize (the default profile Build uses). A
// SURT is checked as Build checks an index's SURT keys: when the canonical
// SURT of the URL it stands for (http or https) differs from it (a control
// byte or NUL not escaped, "www", upper case or a default port kept:
// "com,example)/a\x00b", whose key in a built map is "com,example)/a%00b"),
// that canonical SURT is looked up, and when it is absent the SURT as given
// (a map made by another tool may hold it). So every URI-R a build took, given as its URL or as its index's SURT
// key, is found present. An input that cannot be canonicalized returns its
// error.
func (m *Map) Lookup(uriOrSURT string) (Match, error) {
	ks, err := lookupKeys(uriOrSURT)
	if err != nil {
		return Match{Distance: -1}, fmt.Errorf("mementomap: %w", err)
	}
	return ks.first(m.LookupSURT)
}

// first looks up the keys in order and returns the first answer that is
// present, else the first key's answer; an error ends the lookups.
func (c *keyChoices) first(look func(string) (Match, error)) (Match, error) {
	var res Match
	for i, k := range c.k[:c.n] {
		r, err := look(k)
		if err != nil || r.Present() {
			return r, err
		}
		if i == 0 {
			res = r
		}
	}
	return res, nil
}

// BatchStats counts a [Map.LookupAll] run.
type BatchStats struct {
	Lookups, Present, Absent, Errors int64
	// FirstError is why the first of the Errors inputs could not be
	// looked up (it cannot be canonicalized, its datetime does not parse,
	// it is too long), naming its input line (1-based); nil when Errors
	// is 0.
	FirstError error
}

// fail counts an input that could not be looked up.
func (st *BatchStats) fail(line int64, in string, err error) {
	st.Errors++
	if st.FirstError == nil {
		if len(in) > 200 {
			in = in[:200] + "…"
		}
		st.FirstError = fmt.Errorf("mementomap: lookup input line %d %q: %w", line, in, err)
	}
}

// LookupAll reads URIs or SURTs from r, one per line (blank lines and lines
// starting with '#' are copied through as they are), and writes one
// tab-separated line per input line, in order: the input, the matched key
// and its frequency; in a map with a time key column ([Map.TimeKey]) the
// matched line's time key comes between them ("-" for none), and in a
// datetime map an input line "URI DATETIME" is looked up at DATETIME
// ([Map.LookupAt]); in any other map an input "URI DATETIME" is answered
// as "URI" once DATETIME is found to be a datetime, and an input whose
// second field is not one could not be looked up. A miss, or an input
// that cannot be canonicalized or is longer than [MaxLineLength], prints
// "-" for both (an input that could
// not be looked up is counted in Errors, and the first one's error is
// FirstError). A closed map, one
// refused as a whole ([ErrLoneCR]) or one whose file was truncated while
// open ([ErrChanged]) stops the run with that error, after writing the
// answers given so far. A lookup that ends on a bad line of the map
// ([ErrBadLine]) is an input that could not be looked up. Memory: one line
// of at most MaxLineLength bytes.
func (m *Map) LookupAll(w io.Writer, r io.Reader) (BatchStats, error) {
	return m.LookupAllAt(w, r, "")
}

// ErrTwoDatetimes is wrapped by the error of an input of
// [Map.LookupAllAt] that carries its own datetime when a datetime for all
// was given: neither is taken over the other.
var ErrTwoDatetimes = errors.New("mementomap: two datetimes: the input's own and the one given for all inputs")

// LookupAllAt is [Map.LookupAll] with a datetime for the inputs that carry
// none: in a datetime map, every input "URI" is looked up at datetime
// ([Map.LookupAt]) and echoed as "URI DATETIME"; an input "URI DATETIME"
// is then not looked up but counted in Errors (printed as "-"), with an
// error wrapping [ErrTwoDatetimes] naming both. datetime "" is LookupAll.
// The same holds in a map without a datetime key column, where a datetime
// (given or carried) is checked and then does not change the answer.
func (m *Map) LookupAllAt(w io.Writer, r io.Reader, datetime string) (BatchStats, error) {
	var st BatchStats
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	var long []byte
	var n int64 // input lines read
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull && len(long) <= MaxLineLength {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > MaxLineLength {
				// Too long to look up: copy it through in pieces.
				st.Lookups++
				n++
				st.fail(n, string(long[:200]), fmt.Errorf("longer than MaxLineLength (%d bytes)", MaxLineLength))
				bw.Write(bytes.TrimRight(long, "\r\n"))
				for err == bufio.ErrBufferFull {
					line, err = br.ReadSlice('\n')
					bw.Write(bytes.TrimRight(line, "\r\n"))
				}
				bw.WriteString("\t-\t-\n")
				if err != nil && err != io.EOF {
					bw.Flush()
					return st, fmt.Errorf("mementomap: reading lookups: %w", err)
				}
				if err == io.EOF {
					break
				}
				continue
			}
			line = long
		}
		if err != nil && err != io.EOF {
			bw.Flush()
			return st, fmt.Errorf("mementomap: reading lookups: %w", err)
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		n++
		if ferr := m.lookupLine(bw, &st, n, line, datetime); ferr != nil {
			bw.Flush()
			return st, ferr
		}
		if err == io.EOF {
			break
		}
	}
	return st, bw.Flush()
}

// lookupLine answers input line n of LookupAllAt (its end included), at
// datetime when the line has none.
func (m *Map) lookupLine(bw *bufio.Writer, st *BatchStats, n int64, raw []byte, datetime string) error {
	line := strings.TrimRight(string(raw), "\r\n")
	in := strings.TrimSpace(line)
	if in == "" || in[0] == '#' {
		bw.WriteString(line)
		bw.WriteByte('\n')
		return nil
	}
	st.Lookups++
	var res Match
	var err error
	// Every map reads an input line the same way, "URI" or "URI
	// DATETIME": a map without a datetime key column checks the datetime
	// and answers as Lookup ([Map.LookupAt]), so that a second field never
	// turns a held URI into a miss, and one that is no datetime is an error.
	at := ""
	if i := strings.IndexAny(in, " \t"); i >= 0 {
		in, at = in[:i], strings.TrimSpace(in[i+1:])
	}
	switch {
	case at != "" && datetime != "":
		err = fmt.Errorf("%w: %q and %q", ErrTwoDatetimes, at, datetime)
	case datetime != "":
		at = datetime
	}
	if err != nil {
		in += " " + at
	} else if at != "" {
		res, err = m.LookupAt(in, at)
		in += " " + at
	} else {
		res, err = m.Lookup(in)
	}
	if errors.Is(err, ErrClosed) || errors.Is(err, ErrLoneCR) || errors.Is(err, ErrNotMap) || errors.Is(err, ErrChanged) || errors.Is(err, ukvs.ErrOutOfOrder) {
		return err
	}
	bw.WriteString(in)
	timed := m.lay.timeKey != ""
	if err != nil || res.Distance < 0 {
		if err != nil {
			st.fail(n, in, err)
		} else {
			st.Absent++
		}
		if timed {
			bw.WriteString("\t-")
		}
		bw.WriteString("\t-\t-\n")
		return nil
	}
	if res.Present() {
		st.Present++
	} else {
		st.Absent++
	}
	bw.WriteByte('\t')
	bw.WriteString(res.Key)
	if timed {
		bw.WriteByte('\t')
		if res.Time == "" {
			bw.WriteByte('-')
		} else {
			bw.WriteString(res.Time)
		}
	}
	bw.WriteByte('\t')
	bw.WriteString(res.Value)
	bw.WriteByte('\n')
	return nil
}
