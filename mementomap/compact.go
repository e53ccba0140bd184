package mementomap

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/ukvs"
)

// Default parameters of compaction: the power-law fits of the paper's
// Table 8 (Alam et al., JCDL 2019, Section 5) and the reference tool's
// tracked depths (oduwsdl/MementoMap 0.1.0b2).
const (
	DefaultHostAlpha = 16.329 // a of the host cutoff a·(i+1)^−k
	DefaultHostK     = 0.714  // k of the host cutoff
	DefaultPathAlpha = 24.546 // a of the path cutoff
	DefaultPathK     = 1.429  // k of the path cutoff
	DefaultHostDepth = 8      // host levels tracked (TLD is level 0)
	DefaultPathDepth = 9      // path levels tracked (the host is level 0)

	// MaxDepth bounds HostDepth and PathDepth.
	MaxDepth = maxLevels
)

// CompactOptions sets up [Compact]; a nil *CompactOptions means
// [DefaultCompactOptions]. The weights of a non-nil one are taken literally:
// HostFactor and PathFactor 0 roll up every node that has a child, +Inf never
// rolls up, so start from [DefaultCompactOptions] (the paper's W_h = W_p = 1)
// and change what differs. Zero alpha, k and depth fields take the defaults
// above.
type CompactOptions struct {
	// HostFactor and PathFactor are W_h and W_p, the host and path
	// compaction factors (reference --hcf, --pcf), taken as given: 0 is a
	// cutoff of 0, which rolls up every node with children. A nil
	// *CompactOptions means DefaultCompactOptions (both 1); start from
	// that to change one field.
	HostFactor float64
	PathFactor float64

	HostAlpha, HostK float64 // host cutoff power law; 0 means the default
	PathAlpha, PathK float64 // path cutoff power law; 0 means the default
	HostDepth        int     // host levels tracked, 1..MaxDepth; 0 means 8
	PathDepth        int     // path levels tracked, 1..MaxDepth; 0 means 9

	// Reference turns on the reference tool's behaviour: keys are
	// normalized as it does (query cut, leading and trailing '/' and ','
	// stripped, so the root is written "com,example)"), every frequency is
	// written as a plain URI-M count, and public suffixes may be rolled up.
	// On inputs where the reference tool is correct, the output equals its
	// output byte for byte. Headers are still copied and keys without a
	// comma still kept (the tool drops both: bugs, not behaviour).
	Reference bool

	// IsPublicSuffix reports whether a host key (SURT host form without
	// ')', such as "uk,co") is a public suffix. Nil uses
	// surt.IsPublicSuffix (the list of golang.org/x/net/publicsuffix, ICANN
	// and private sections). Ignored when Reference is set.
	IsPublicSuffix func(hostKey string) bool

	// MemoryLimit bounds the bytes of still-pending output kept in memory
	// (the open subtrees that may yet be rolled up); past it they go to an
	// unlinked temporary file in TempDir. 0 means DefaultCompactMemory.
	MemoryLimit int64
	TempDir     string // "" means os.TempDir()

	// MaxLineLength bounds an input or output line, in bytes without its
	// end; 0 means [MaxLineLength] (16 MiB), the limit of every reader of
	// maps in the module.
	MaxLineLength int

	Logger *slog.Logger // optional; nil logs nothing

	// Progress, when set, is called after each data line with the data
	// lines read so far and the output's size in bytes (headers and the
	// pending output that a roll-up may still replace included), which
	// drops at every roll-up: the paper's Figure 9.
	Progress func(inLines, outBytes int64)
}

// DefaultCompactMemory is the default CompactOptions.MemoryLimit: 64 MiB of
// pending output.
const DefaultCompactMemory = 64 << 20

// DefaultCompactOptions returns the paper's and the reference tool's
// defaults: W_h = W_p = 1, the power-law cutoffs of Table 8, depths 8 and 9,
// and the public-suffix guard on. Each call returns a new value.
func DefaultCompactOptions() *CompactOptions {
	return &CompactOptions{HostFactor: 1, PathFactor: 1}
}

// CompactStats counts what a [Compact] run did.
type CompactStats struct {
	InLines, OutLines int64 // data lines read and written (headers excluded)
	InBytes, OutBytes int64 // bytes read and written, headers included
	Headers           int64 // header lines copied
	Blank             int64 // blank lines skipped
	Rollups           int64 // wildcard lines written by roll-ups
	Dropped           int64 // lines of subtrees that held nothing (all "0"), dropped instead of rolled up
	MaxPending        int64 // the largest pending output region, in bytes
}

// Compaction errors; a *[LineError] wraps them.
var (
	ErrOutOfOrder   = errors.New("key out of byte-wise order")
	ErrLateHeader   = errors.New("header line after the first data line")
	ErrLineTooLong  = errors.New("line too long")
	ErrBadFrequency = errors.New("invalid frequency")
	ErrBadOptions   = errors.New("mementomap: invalid options")
)

// LineError reports a problem on one input line, or in reading it.
type LineError struct {
	// File names the input: the Name of a reader that has a Name method
	// (an *os.File), else "" for [Compact] and "first map" or "second map"
	// for [Merge].
	File string
	Line int64  // 1-based line number
	Key  string // the key of the line, when known
	Err  error
}

// Error formats the file when known, the line number, the key when known,
// and the cause: `mementomap: in.map: line 3 (key "com,a)/"): duplicate key`.
func (e *LineError) Error() string {
	file := ""
	if e.File != "" {
		file = e.File + ": "
	}
	// The cause's own "mementomap: " (an ErrLoneCR, an ErrNotMap) is said
	// once, at the front.
	msg := strings.TrimPrefix(fmt.Sprint(e.Err), "mementomap: ")
	if e.Key != "" {
		return fmt.Sprintf("mementomap: %sline %d (key %q): %s", file, e.Line, clipKey(e.Key), msg)
	}
	return fmt.Sprintf("mementomap: %sline %d: %s", file, e.Line, msg)
}

// clipKey shortens a key for an error message (a key may be megabytes).
func clipKey(k string) string {
	if len(k) > 200 {
		return k[:200] + "..."
	}
	return k
}

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// cutoffs returns a·(i+1)^(−k)·factor for i in [0, depth).
func cutoffs(a, k, factor float64, depth int) []float64 {
	c := make([]float64, depth)
	for i := range c {
		if math.IsInf(factor, 1) {
			c[i] = math.Inf(1)
			continue
		}
		c[i] = a * math.Pow(float64(i+1), -k) * factor
	}
	return c
}

// Cutoffs returns the host and path cutoffs that o gives, per level
// (internal/spec/MEMENTOMAP.md: at factor 1, host levels 1…7 are 9.95, 7.45, 6.07, …; path
// levels 0…8 are 24.55, 9.12, 5.11, …). A node at level i is rolled up when
// its number of distinct children is strictly greater than cutoff[i].
func (o CompactOptions) Cutoffs() (host, path []float64) {
	o = o.withDefaults()
	return cutoffs(o.HostAlpha, o.HostK, o.HostFactor, o.HostDepth),
		cutoffs(o.PathAlpha, o.PathK, o.PathFactor, o.PathDepth)
}

// compactOptions returns *opts, or [DefaultCompactOptions] for nil.
func compactOptions(opts *CompactOptions) CompactOptions {
	if opts == nil {
		return *DefaultCompactOptions()
	}
	return *opts
}

func (o CompactOptions) withDefaults() CompactOptions {
	if o.HostAlpha == 0 {
		o.HostAlpha = DefaultHostAlpha
	}
	if o.HostK == 0 {
		o.HostK = DefaultHostK
	}
	if o.PathAlpha == 0 {
		o.PathAlpha = DefaultPathAlpha
	}
	if o.PathK == 0 {
		o.PathK = DefaultPathK
	}
	if o.HostDepth == 0 {
		o.HostDepth = DefaultHostDepth
	}
	if o.PathDepth == 0 {
		o.PathDepth = DefaultPathDepth
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = DefaultCompactMemory
	}
	if o.MaxLineLength == 0 {
		o.MaxLineLength = MaxLineLength
	}
	return o
}

// Check reports whether o's factors, depths and power laws can compact
// a map: factors and power-law constants not negative and not NaN,
// depths in 1..MaxDepth. Zero values stand for their defaults, as in
// [Compact]. The error wraps [ErrBadOptions] and names the value.
func (o CompactOptions) Check() error { return o.withDefaults().validate() }

func (o CompactOptions) validate() error {
	switch {
	case math.IsNaN(o.HostFactor) || o.HostFactor < 0:
		return fmt.Errorf("%w: host factor %v", ErrBadOptions, o.HostFactor)
	case math.IsNaN(o.PathFactor) || o.PathFactor < 0:
		return fmt.Errorf("%w: path factor %v", ErrBadOptions, o.PathFactor)
	case o.HostDepth < 1 || o.HostDepth > MaxDepth:
		return fmt.Errorf("%w: host depth %d not in 1..%d", ErrBadOptions, o.HostDepth, MaxDepth)
	case o.PathDepth < 1 || o.PathDepth > MaxDepth:
		return fmt.Errorf("%w: path depth %d not in 1..%d", ErrBadOptions, o.PathDepth, MaxDepth)
	case o.HostAlpha < 0 || o.PathAlpha < 0 || math.IsNaN(o.HostK) || math.IsNaN(o.PathK):
		return fmt.Errorf("%w: power law", ErrBadOptions)
	}
	return nil
}

// node is one open node of a layer's trail.
type node struct {
	end      int    // its key is the previous line's key[:end]
	children int    // distinct children so far
	base     runSum // the running sum before its first line
	start    int64  // output offset where its subtree starts
	rollable bool   // it may still be rolled up (not level 0 host, not a public suffix, finite cutoff)
	doomed   bool   // children > cutoff: it (or an ancestor) will be rolled up
}

// compactor holds the streaming state of one Compact run.
type compactor struct {
	o          CompactOptions
	hcut, pcut []float64
	isPS       func(string) bool
	out        *pendingWriter
	st         CompactStats

	prev  []byte // key of the previous data line
	host  []node // host trail, len = levels of prev
	path  []node // path trail
	hends [MaxDepth]int
	pends [MaxDepth]int

	// discard is the trail position of the active doomed node: host
	// levels are 0..hdepth-1, path levels hdepth+level; -1 when none.
	discard  int
	line     []byte          // scratch for reference-mode output
	sum      runSum          // frequencies of every data line so far
	sib      [MaxDepth][]int // per path level, closed leaf siblings that may come back (see siblings)
	dataSeen bool
	lineNo   int64 // the input line being processed
}

// Compact reads a sorted MementoMap from src and writes its compaction to
// dst in one streaming pass, following the MementoMap paper's Figure 3
// (Alam et al., JCDL 2019) and internal/spec/MEMENTOMAP.md, "Compaction": per level of
// the host and path layers it tracks one open node (distinct children,
// frequency sum, output start); when nodes close, the shallowest closing
// node with more distinct children than its cutoff a·(i+1)^(−k)·factor is
// replaced by "KEY,* SUM" (host) or "KEY/* SUM" (path). Host level 0 is
// never rolled up, nor (unless o.Reference) a node whose key is a public
// suffix or sits above one by a wildcard rule of the list ("jp,kawasaki").
//
// Children are distinct keys: a path node that byte order splits in two
// ("/news", "/news-2019", "/news/a") counts once (the reference counts it
// twice, and so does Reference mode).
//
// Totals are conserved: a roll-up's frequency is the sum of what it
// replaces ([ukvs.Frequency.Add]'s rules, taken over the set of lines),
// with a line of unknown URI-R count counted as at least one URI-R. A
// subtree that holds nothing (every line "0") is dropped rather than rolled
// up, since "KEY/* 0" would hide wildcards above it. The output is sorted,
// valid UKVS with the input's headers, and compacts again.
//
// Input: header lines ("!…") first, then data lines "KEY FREQUENCY [REST]"
// in byte-wise order of KEY, ending with LF or CRLF; blank lines are
// skipped, and so is a UTF-8 byte order mark at the start. A CR inside a
// line ([ErrLoneCR]) is an error: lookups would not see the line. A line out of order, a
// header after data, a malformed frequency, a line longer than
// o.MaxLineLength (refused once the limit is passed, without reading on:
// a line that never ends fails at once) or an error reading src stops the
// run with a *[LineError] naming the line, and the file when src has a
// Name method (an *os.File); a roll-up line longer than the limit is
// refused the same way, so that nothing is written that a reader would
// refuse. An error writing dst names it the same way.
// Memory: the trails (at most HostDepth+PathDepth nodes), one line, and at
// most o.MemoryLimit bytes of pending output (more spills to a temporary
// file). On error dst may hold partial output; write to a temporary file
// and rename it only on success.
func Compact(dst io.Writer, src io.Reader, opts *CompactOptions) (CompactStats, error) {
	if opts == nil {
		opts = DefaultCompactOptions()
	}
	o := opts.withDefaults()
	if err := o.validate(); err != nil {
		return CompactStats{}, err
	}
	c := &compactor{o: o, discard: -1}
	c.hcut, c.pcut = o.Cutoffs()
	c.isPS = o.IsPublicSuffix
	if c.isPS == nil {
		c.isPS = surt.IsPublicSuffix
	}
	c.out = newPendingWriter(dst, o.MemoryLimit, o.TempDir)
	c.out.name = nameOf(dst, "the output")
	err := c.run(src)
	if err == nil {
		err = c.finish()
	}
	if err == nil {
		err = c.out.close()
	} else {
		c.out.abort()
	}
	var le *LineError
	if errors.As(err, &le) && le.File == "" {
		le.File = nameOf(src, "")
	}
	c.st.MaxPending = c.out.maxPending
	c.st.OutBytes = c.out.flushed
	c.st.OutLines = c.out.lines - c.st.Headers
	if err != nil {
		return c.st, err
	}
	if o.Logger != nil {
		o.Logger.Info("compacted", "in_lines", c.st.InLines, "out_lines", c.st.OutLines,
			"rollups", c.st.Rollups, "max_pending_bytes", c.st.MaxPending)
	}
	return c.st, nil
}

// ErrLayout reports a map whose !fields header declares other columns
// than one "surt" key and a "frequency" value (a time key column, say):
// Compact reads its second column as the frequency, so it refuses such a
// map rather than roll up datetimes.
var ErrLayout = errors.New("compaction reads maps of \"KEY FREQUENCY\" lines only, and this !fields header declares other columns")

// ErrDuplicateKey reports a key that occurs twice in a map given to Compact.
var ErrDuplicateKey = errors.New("duplicate key")

func (c *compactor) run(src io.Reader) error {
	br := bufio.NewReaderSize(src, 1<<16)
	if err := sniffStream(br); err != nil {
		return err
	}
	var lineNo int64
	var long []byte
	for {
		line, err := readLine(br, &long, c.o.MaxLineLength)
		if _, ok := err.(errLongLine); ok {
			return &LineError{Line: lineNo + 1, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, c.o.MaxLineLength)}
		}
		if err != nil && err != io.EOF {
			return &LineError{Line: lineNo + 1, Err: fmt.Errorf("reading: %w", err)}
		}
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		lineNo++
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte(utf8BOM))
		}
		if n := bodyLen(line); n > c.o.MaxLineLength {
			return &LineError{Line: lineNo, Err: fmt.Errorf("%w: %d bytes, more than %d", ErrLineTooLong, n, c.o.MaxLineLength)}
		}
		c.st.InBytes += int64(len(line))
		if hasInnerCR(line) {
			return &LineError{Line: lineNo, Err: ErrLoneCR}
		}
		in := c.st.InLines
		if perr := c.process(line, lineNo); perr != nil {
			return perr
		}
		if c.o.Progress != nil && c.st.InLines > in {
			c.o.Progress(c.st.InLines, c.out.end())
		}
		if err == io.EOF {
			return nil
		}
	}
}

// sniffStream returns a *LineError wrapping ErrNotMap when the first bytes
// br holds (up to 64 KiB) are binary data (see binaryError), so that a
// map read as a stream refuses random bytes as not a map, rather than for
// a lone CR or a line too long.
func sniffStream(br *bufio.Reader) error {
	b, _ := br.Peek(min(br.Size(), loneCRWindow))
	if at, err := binaryError(b); err != nil {
		return &LineError{Line: int64(bytes.Count(b[:at], []byte{'\n'})) + 1, Err: err}
	}
	return nil
}

// hasInnerCR reports whether line holds a CR other than in its end (the
// CRs before its LF): a lone CR, which [Open] refuses as a line end and
// which no key may hold.
func hasInnerCR(line []byte) bool {
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	return bytes.IndexByte(line, '\r') >= 0
}

// splitLine returns the key and value columns of a data line (columns are
// separated by runs of spaces or tabs) and the line without its end.
func splitLine(line []byte) (key, value, body []byte) {
	body = line
	for len(body) > 0 && (body[len(body)-1] == '\n' || body[len(body)-1] == '\r') {
		body = body[:len(body)-1]
	}
	i := bytes.IndexByte(body, ' ')
	if i < 0 {
		i = len(body)
	}
	if t := bytes.IndexByte(body[:i], '\t'); t >= 0 {
		i = t
	}
	key = body[:i]
	for i < len(body) && (body[i] == ' ' || body[i] == '\t') {
		i++
	}
	j := i
	for j < len(body) && body[j] != ' ' && body[j] != '\t' {
		j++
	}
	return key, body[i:j], body
}

func isBlank(b []byte) bool {
	for _, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' {
			return false
		}
	}
	return true
}

// referenceKey normalizes a key as the reference tool does: cut at '?',
// then strip leading and trailing '/' and ','.
func referenceKey(k []byte) []byte {
	if i := bytes.IndexByte(k, '?'); i >= 0 {
		k = k[:i]
	}
	return bytes.Trim(k, "/,")
}

// countR gives a line without a URI-R count the count it certainly has: 0
// when it holds nothing, else at least one.
func countR(f ukvs.Frequency) ukvs.Frequency {
	if f.URIR.Known {
		return f
	}
	return countRSlow(f)
}

func countRSlow(f ukvs.Frequency) ukvs.Frequency {
	if f.HoldsNothing() {
		f.URIR = ukvs.Exactly(0)
	} else {
		f.URIR = ukvs.Count{N: 1, Known: true, Bound: ukvs.AtLeast}
	}
	return f
}

func (c *compactor) process(line []byte, lineNo int64) error {
	c.lineNo = lineNo
	if isBlank(line) {
		c.st.Blank++
		return nil
	}
	if line[0] == '!' {
		if c.dataSeen {
			return &LineError{Line: lineNo, Err: ErrLateHeader}
		}
		c.st.Headers++
		_, _, body := splitLine(line)
		if l := layoutOf(ukvs.Headers{parseRawHeader(body)}); !l.plain() {
			return &LineError{Line: lineNo, Err: fmt.Errorf("%w: %s", ErrLayout, body)}
		}
		if err := c.out.write(body); err != nil {
			return err
		}
		return c.out.write([]byte{'\n'})
	}
	key, value, body := splitLine(line)
	var f ukvs.Frequency
	if len(value) > 0 && !parseSimpleFrequency(value, &f) {
		if err := f.UnmarshalText(value); err != nil {
			return &LineError{Line: lineNo, Key: string(key), Err: fmt.Errorf("%w: %v", ErrBadFrequency, err)}
		}
	}
	if c.o.Reference {
		key = referenceKey(key)
		if len(key) == 0 {
			return &LineError{Line: lineNo, Err: errors.New("empty key after the reference normalization")}
		}
	}
	if c.dataSeen {
		switch cmp := bytes.Compare(key, c.prev); {
		case cmp < 0:
			return &LineError{Line: lineNo, Key: string(key), Err: fmt.Errorf("%w: after %q", ErrOutOfOrder, c.prev)}
		case cmp == 0:
			return &LineError{Line: lineNo, Key: string(key), Err: ErrDuplicateKey}
		}
	}
	c.dataSeen = true
	c.st.InLines++
	f = countR(f)

	hn := hostEnds(key, c.hends[:], c.o.HostDepth)
	pn := pathEnds(key, c.pends[:], c.o.PathDepth)
	cp := commonPrefix(c.prev, key)
	dh := firstDiff(c.host, c.hends[:hn], cp)
	dp := firstDiff(c.path, c.pends[:pn], cp)
	if dh < len(c.host) {
		dp = 0
	}
	reopened := false
	if !c.o.Reference {
		reopened = c.siblings(dp, pn, cp, key)
	}
	if err := c.close(dh, dp); err != nil {
		return err
	}
	c.prev = append(c.prev[:0], key...)

	base := c.sum
	c.sum.add(f)
	start := c.out.end()
	for j := len(c.host); j < hn; j++ {
		rollable := j > 0 && j < c.o.HostDepth-1 && !math.IsInf(c.hcut[j], 1)
		if rollable && !c.o.Reference && c.guarded(key[:c.hends[j]]) {
			rollable = false
		}
		c.host = append(c.host, node{end: c.hends[j], base: base, start: start, rollable: rollable})
		if j > 0 {
			c.addChild(j-1, c.hcut[j-1])
		}
	}
	for j := len(c.path); j < pn; j++ {
		rollable := j < c.o.PathDepth-1 && !math.IsInf(c.pcut[j], 1)
		c.path = append(c.path, node{end: c.pends[j], base: base, start: start, rollable: rollable})
		if j > 0 && !(reopened && j == dp) {
			c.addChild(c.o.HostDepth+j-1, c.pcut[j-1])
		}
	}

	if c.discard < 0 {
		if c.o.Reference {
			c.line = append(c.line[:0], key...)
			c.line = append(c.line, ' ')
			c.line = strconv.AppendUint(c.line, f.URIM.N, 10)
			c.line = append(c.line, '\n')
			if err := c.out.write(c.line); err != nil {
				return err
			}
		} else {
			c.out.writeLine(body)
		}
	}
	if c.out.end()-c.out.flushed >= flushChunk {
		if err := c.out.flush(c.pendingStart()); err != nil {
			return err
		}
		if int64(len(c.out.mem)-c.out.memHead) > c.o.MemoryLimit {
			return c.out.spillMem()
		}
	}
	return nil
}

// flushChunk is how many bytes may wait in memory before Compact looks for
// output that can no longer be rolled up.
const flushChunk = 64 << 10

// siblings keeps children counts distinct where byte order splits a path
// node: "/news", "/news-2019", "/news.html", "/news/a" holds the node
// "/news" twice, once as a leaf and again with its children, because '-'
// and '.' sort before '/'. Per path level it keeps the lengths of closed
// leaf siblings that are prefixes of the open node and may still come back
// (the next byte sorts before '/'). It runs before the trail at level dp is
// closed and reports whether the node opening there is such a comeback,
// which is then not counted again as a child of its parent. The reference
// tool counts it twice; Reference mode keeps that.
func (c *compactor) siblings(dp, pn, cp int, key []byte) bool {
	for j := dp + 1; j < len(c.sib); j++ {
		c.sib[j] = c.sib[j][:0] // their parents change
	}
	if dp == 0 || dp >= pn || dp >= len(c.path) {
		if dp < len(c.sib) {
			c.sib[dp] = c.sib[dp][:0]
		}
		return false
	}
	x := c.path[dp]
	zLen := c.pends[dp]
	reopened := false
	keep := c.sib[dp][:0]
	for _, l := range c.sib[dp] {
		switch {
		case l > cp:
		case l == zLen:
			reopened = true
		case l < zLen && key[l] < '/':
			keep = append(keep, l)
		}
	}
	if x.children == 0 && x.end <= cp && x.end < zLen && key[x.end] < '/' {
		keep = append(keep, x.end)
	}
	c.sib[dp] = keep
	return reopened
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n {
		x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
		if x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// firstDiff returns the first level of trail whose key differs from the
// new key's level (given by its ends), or the length of the shorter one.
func firstDiff(trail []node, ends []int, cp int) int {
	n := min(len(trail), len(ends))
	for j := 0; j < n; j++ {
		if trail[j].end != ends[j] || ends[j] > cp {
			return j
		}
	}
	return n
}

func (c *compactor) nodeAt(pos int) *node {
	if pos < c.o.HostDepth {
		return &c.host[pos]
	}
	return &c.path[pos-c.o.HostDepth]
}

// addChild counts a new child of the node at trail position pos and dooms
// it when it passes its cutoff.
func (c *compactor) addChild(pos int, cut float64) {
	n := c.nodeAt(pos)
	n.children++
	if !n.rollable || n.doomed || float64(n.children) <= cut {
		return
	}
	n.doomed = true
	if c.discard < 0 || pos < c.discard {
		c.discard = pos
		c.out.truncate(n.start)
	}
}

// close ends the host trail from level dh and the path trail from level dp
// (the whole path trail when any host node closes), writing the roll-up of
// the active doomed node if it is among them.
func (c *compactor) close(dh, dp int) error {
	if c.discard >= 0 {
		pos := c.discard
		closing := (pos < c.o.HostDepth && pos >= dh && pos < len(c.host)) ||
			(pos >= c.o.HostDepth && pos-c.o.HostDepth >= dp)
		if closing {
			n := c.nodeAt(pos)
			c.discard = -1
			c.out.truncate(n.start)
			freq := c.sum.since(&n.base)
			if freq.HoldsNothing() {
				c.st.Dropped++
			} else {
				c.line = append(c.line[:0], c.prev[:n.end]...)
				if pos < c.o.HostDepth {
					c.line = append(c.line, ',', '*', ' ')
				} else {
					c.line = append(c.line, '/', '*', ' ')
				}
				if c.o.Reference {
					c.line = strconv.AppendUint(c.line, freq.URIM.N, 10)
				} else {
					c.line = freq.Append(c.line)
				}
				if len(c.line) > c.o.MaxLineLength {
					return &LineError{Line: c.lineNo, Key: string(c.prev[:n.end]),
						Err: fmt.Errorf("%w: the roll-up line would have %d bytes, more than %d", ErrLineTooLong, len(c.line), c.o.MaxLineLength)}
				}
				c.line = append(c.line, '\n')
				if err := c.out.write(c.line); err != nil {
					return err
				}
				c.st.Rollups++
			}
		}
	}
	if dh < len(c.host) {
		c.host = c.host[:dh]
	}
	if dp < len(c.path) {
		c.path = c.path[:dp]
	}
	return nil
}

// pendingStart returns the output offset before which nothing can be
// rolled up any more: the start of the shallowest open node that may still
// be.
func (c *compactor) pendingStart() int64 {
	for i := range c.host {
		if c.host[i].rollable {
			return c.host[i].start
		}
	}
	for i := range c.path {
		if c.path[i].rollable {
			return c.path[i].start
		}
	}
	return c.out.end()
}

func (c *compactor) finish() error {
	if err := c.close(0, 0); err != nil {
		return err
	}
	return nil
}

// guarded reports whether a host node may not be rolled up: its key is a
// public suffix, or a wildcard rule of the list makes every label below it
// one ("jp,kawasaki" for "*.kawasaki.jp").
func (c *compactor) guarded(hostKey []byte) bool {
	if bytes.IndexByte(hostKey, '*') >= 0 {
		return false
	}
	k := string(hostKey)
	return c.isPS(k) || c.isPS(k+",mementokit-probe")
}

// parseSimpleFrequency parses the common exact forms "M/R" and "M" (plain
// decimal numbers without leading zeros, at most 18 digits) into f and
// reports whether it did; anything else is left to ukvs.
func parseSimpleFrequency(v []byte, f *ukvs.Frequency) bool {
	m, i, ok := simpleCount(v, 0)
	if !ok {
		return false
	}
	*f = ukvs.Frequency{URIM: ukvs.Exactly(m)}
	if i == len(v) {
		return true
	}
	if v[i] != '/' {
		return false
	}
	r, j, ok := simpleCount(v, i+1)
	if !ok || j != len(v) {
		return false
	}
	f.URIR = ukvs.Exactly(r)
	return true
}

func simpleCount(v []byte, i int) (uint64, int, bool) {
	start := i
	var n uint64
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		n = n*10 + uint64(v[i]-'0')
		i++
	}
	d := i - start
	if d == 0 || d > 18 || (d > 1 && v[start] == '0') {
		return 0, i, false
	}
	return n, i, true
}
