package columnar

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/summary"
	"github.com/mementokit/mementokit/surt"
	"golang.org/x/net/idna"
)

// Converter fills Rows from index records. It caches what it derived from
// the last host and the last WARC file name, so that a sorted index pays for
// the Public Suffix List and the organization rule once per run of lines.
// Not safe for concurrent use.
type Converter struct {
	org      summary.OrgFunc
	lastHost hostParts
	lastFile fileParts
	lastMIME *mimeParts
	mimes    map[string]*mimeParts // by media type, at most maxCached entries
	buf      []byte
	// arena holds the bytes of the per-row strings (views into it) instead
	// of one allocation each. Bytes handed out are not written again until
	// recycle: a full block is left to the strings viewing it and the GC.
	arena []byte
}

// maxCached bounds the media types a Converter keeps the category of: an
// index meets the same few types again and again.
const maxCached = 1024

// mimeParts is what a media type gives.
type mimeParts struct{ mime, category string }

// NewConverter returns a Converter; org maps WARC file names to
// organizations (nil means summary.OrgByPrefix).
func NewConverter(org summary.OrgFunc) *Converter {
	if org == nil {
		org = summary.OrgByPrefix
	}
	return &Converter{org: org, mimes: map[string]*mimeParts{}}
}

// hostParts is what a host gives, cached by the host as found in a URL.
type hostParts struct {
	raw                              string // the host as in the URL, before normalization
	valid                            bool
	name, reversed                   string
	labels                           [5]string
	registrySuffix, registeredDomain string
	privateSuffix, privateDomain     string
}

// fileParts is what a WARC file name gives.
type fileParts struct {
	name, org, segment, crawl, subset string // views of the arena
	valid                             bool
}

// MinYear and MaxYear bound the capture years a table holds: the instants
// that readers keeping times in int64 nanoseconds (Go's time.UnixNano,
// pandas) can read back.
const (
	MinYear = 1678
	MaxYear = 2261
)

// ErrYear is the cause of a record whose timestamp is outside MinYear to
// MaxYear.
var ErrYear = errors.New("columnar: capture year outside 1678-2261, which Parquet readers with nanosecond times cannot read back")

// ErrNotUTF8 is the cause of a record whose line holds bytes that are not
// UTF-8: Parquet's STRING columns hold UTF-8 only, and readers (DuckDB,
// Arrow) refuse a whole file for one value that is not.
var ErrNotUTF8 = errors.New("columnar: not UTF-8, which Parquet strings must be")

// ccPath matches Common Crawl's (and the End of Term archive's) WARC paths.
var ccPath = regexp.MustCompile(`^crawl-data/([^/]+)/segments/([^/]+)/([^/]+)/`)

// ccPathPrefix is what every path ccPath matches starts with.
const ccPathPrefix = "crawl-data/"

// Row fills dst from rec, read from the input called input. A CDXJ record
// whose JSON block is malformed (its values cannot be trusted), or whose
// SURT key cannot be computed (see SURTKey), or whose year is outside
// MinYear to MaxYear (ErrYear), or whose line is not UTF-8 (ErrNotUTF8,
// with the offset of its first bad byte), gives a *cdxj.ParseError naming
// its line, leaving dst unspecified. dst's strings do not alias rec: they stay valid
// after the next Read of a reusing reader. They are carved from blocks of
// at least 64 KiB that the Converter never writes twice, so a row kept
// alive keeps its block in memory.
func (c *Converter) Row(dst *Row, rec *cdxj.Record, input string) error {
	if err := rec.CheckJSON(); err != nil {
		return err
	}
	if line := rec.Line(); !utf8.Valid(line) {
		return rec.ParseError(fmt.Errorf("%w: byte %d of the line", ErrNotUTF8, firstInvalid(line)))
	}
	if y := rec.Year(); y < MinYear || y > MaxYear {
		return rec.ParseError(fmt.Errorf("%w: %s", ErrYear, rec.Timestamp()))
	}
	*dst = Row{}
	if rec.KeyIsSURT() {
		dst.URLSurtKey = c.str(rec.Key())
	} else {
		var err error
		if c.buf, err = SURTKey(c.buf[:0], rec); err != nil {
			if _, ok := err.(*cdxj.ParseError); !ok {
				err = rec.ParseError(err)
			}
			return err
		}
		dst.URLSurtKey = c.str(c.buf)
	}
	url := c.str(rec.URL())
	dst.URL = url
	c.setURL(dst, url, rec)
	dst.FetchTime = rec.Time()
	ts := rec.Timestamp()
	dst.FetchTimeDigits = int8(len(ts))
	dst.FetchStatus = -1
	if st := summary.RecordStatus(rec); st != 0 {
		dst.FetchStatus = int16(st)
	}
	dst.FetchRedirect = c.str(rec.Redirect())
	dst.ContentDigest = c.str(rec.Digest())
	m := c.mimeParts(rec.MIME())
	dst.ContentMIMEType, dst.ContentMIMECategory = m.mime, m.category
	dst.Revisit = m.mime == "warc/revisit" // rec.IsRevisit without a second look-up
	if rec.IsCDXJ() {
		c.ccFields(dst, rec)
	}
	f := c.fileParts(rec.Filename())
	dst.WARCFilename, dst.Organization = f.name, f.org
	dst.Crawl, dst.WARCSegment, dst.Subset = f.crawl, f.segment, f.subset
	dst.WARCRecordOffset, dst.WARCRecordLength = -1, -1
	if n, ok := rec.Offset(); ok {
		dst.WARCRecordOffset = n
	}
	if n, ok := rec.Length(); ok && n <= summary.MaxRecordLength {
		dst.WARCRecordLength = n
	}
	ts14 := ts
	if len(ts14) > 14 {
		ts14 = ts14[:14]
	}
	c.buf = summary.AppendRecordID(c.buf[:0], url, b2s(ts14), f.name)
	dst.RecordKey = c.str(c.buf)
	dst.InputFile = input
	dst.InputLine = rec.LineNumber()
	return nil
}

// mimeParts returns the media type mime as a string and its category.
func (c *Converter) mimeParts(mime []byte) *mimeParts {
	if m := c.lastMIME; m != nil && m.mime == string(mime) {
		return m
	}
	m := c.mimes[string(mime)]
	if m == nil {
		if len(c.mimes) >= maxCached {
			clear(c.mimes)
		}
		s := string(mime)
		m = &mimeParts{mime: s, category: summary.CategorizeMIME(s).String()}
		c.mimes[s] = m
	}
	c.lastMIME = m
	return m
}

// fileParts returns what the WARC file name file gives: organization, and
// Common Crawl's crawl, segment and subset. Only the last name is kept:
// in key order the file changes from one line to the next.
func (c *Converter) fileParts(file []byte) *fileParts {
	f := &c.lastFile
	if f.valid && f.name == string(file) {
		return f
	}
	*f = fileParts{name: c.str(file), org: summary.UnknownOrg, valid: true}
	if len(file) > 0 {
		f.org = c.org(f.name)
		if strings.HasPrefix(f.name, ccPathPrefix) {
			if m := ccPath.FindStringSubmatch(f.name); m != nil {
				f.crawl, f.segment, f.subset = m[1], m[2], m[3]
			}
		}
	}
	return f
}

// arenaBlock is the size of the Converter's string blocks.
const arenaBlock = 64 << 10

// str returns a copy of b as a string: a view of the bytes appended to the
// arena.
func (c *Converter) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	a := c.arena
	if cap(a)-len(a) < len(b) {
		// A new block: the strings viewing the old one keep it alive.
		a = make([]byte, 0, max(arenaBlock, len(b)))
	}
	n := len(a)
	a = append(a, b...)
	c.arena = a
	return unsafe.String(&a[n], len(b))
}

// recycle lets the arena's current block be written again, from its start.
// Only for a caller that holds none of the strings of the rows filled so
// far (the Table, once its Writers have handed their rows to parquet-go,
// which copies every value).
func (c *Converter) recycle() {
	c.arena = c.arena[:0]
	c.lastFile.valid = false // its strings view the arena
}

// ccFields sets the content_ columns that only Common Crawl's CDXJ members
// give, in one pass over the (well-formed) JSON block. A member's first
// occurrence wins; "charset" wins over "encoding".
func (c *Converter) ccFields(dst *Row, rec *cdxj.Record) {
	var encoding string
	rec.Fields(func(key, raw []byte) bool {
		var p *string
		switch string(key) {
		case "mime-detected":
			p = &dst.ContentMIMEDetected
		case "charset":
			p = &dst.ContentCharset
		case "encoding":
			p = &encoding
		case "languages":
			p = &dst.ContentLanguages
		case "truncated":
			p = &dst.ContentTruncated
		default:
			return true
		}
		if *p == "" {
			*p = c.field(rec, string(key))
		}
		return true
	})
	if dst.ContentCharset == "" {
		dst.ContentCharset = encoding
	}
}

// SURTKey appends to dst the SURT key of rec: its own key when that is a
// SURT (cdxj.Record.KeyIsSURT), else the SURT (surt.Default) of its
// original URL, else, for a key that is itself a URL ("scheme://..."), the
// SURT of the key; a record with none of these (a warcinfo line keyed "-",
// a TimeMap keyed by datetime) keeps its key. A URL member of a CDXJ block
// that cannot be decoded (a bad escape) is the record's *cdxj.ParseError,
// naming line and column; a URL surt cannot canonicalize is an error
// quoting it.
func SURTKey(dst []byte, rec *cdxj.Record) ([]byte, error) {
	if rec.KeyIsSURT() {
		return append(dst, rec.Key()...), nil
	}
	u := rec.URL()
	if u == nil && rec.IsCDXJ() {
		for _, name := range []string{"url", "original_uri", "original"} {
			if _, _, err := rec.Field(name); err != nil {
				return dst, err
			}
		}
	}
	if u == nil && bytes.Contains(rec.Key(), []byte("://")) {
		u = rec.Key()
	}
	if u == nil {
		return append(dst, rec.Key()...), nil
	}
	out, err := surt.Default.AppendCanonical(dst, string(u))
	if err != nil {
		return dst, fmt.Errorf("computing the SURT of %q: %w", u, err)
	}
	return out, nil
}

// field returns a JSON member decoded, "" when absent or "-". The block is
// known to be well formed; a string with a bad escape gives "".
func (c *Converter) field(rec *cdxj.Record, name string) string {
	v, ok, err := rec.Field(name)
	if !ok || err != nil || v == "-" {
		return ""
	}
	return v
}

// setURL fills the url_ columns from url (or, without one, the host of a
// SURT key).
func (c *Converter) setURL(dst *Row, url string, rec *cdxj.Record) {
	var host string
	if url != "" {
		u := splitURL(url)
		dst.URLProtocol = u.scheme
		dst.URLPort = u.port
		dst.URLPath, dst.URLQuery = u.path, u.query
		host = u.host
	} else if rec.KeyIsSURT() {
		if h := summary.HostKey(string(rec.Key()), "", summary.KeyHost); h != summary.NoHostKey && !strings.HasSuffix(h, ":") {
			host = h
		}
	}
	if host == "" {
		return
	}
	if !c.lastHost.valid || host != c.lastHost.raw {
		c.lastHost = deriveHost(strings.Clone(host)) // host may view the arena
	}
	h := &c.lastHost
	dst.URLHostName = h.name
	dst.URLHostTLD, dst.URLHost2ndLastPart, dst.URLHost3rdLastPart = h.labels[0], h.labels[1], h.labels[2]
	dst.URLHost4thLastPart, dst.URLHost5thLastPart = h.labels[3], h.labels[4]
	dst.URLHostRegistrySuffix, dst.URLHostRegisteredDomain = h.registrySuffix, h.registeredDomain
	dst.URLHostPrivateSuffix, dst.URLHostPrivateDomain = h.privateSuffix, h.privateDomain
	dst.URLHostNameReversed = h.reversed
}

// urlParts are the pieces of a URL that the table keeps.
type urlParts struct {
	scheme, host, path, query string
	port                      int32
}

// splitURL cuts an absolute URL into scheme, host, port, path and query
// (RFC 3986 section 3), leniently: archived URLs are whatever crawlers
// met. A "dns:" or "whois:" URL's host is the name it looks up, as Common
// Crawl takes it. A URL without "scheme://" has no host.
func splitURL(u string) urlParts {
	var p urlParts
	i := surt.SchemeLen(u)
	if i <= 0 {
		return p
	}
	p.scheme = strings.ToLower(u[:i])
	rest := u[i+1:]
	if !strings.HasPrefix(rest, "//") {
		switch p.scheme {
		case "dns":
			p.host = rest
		case "whois":
			p.host = strings.TrimLeft(rest, "/")
		}
		return p
	}
	rest = rest[2:]
	end := authorityEnd(rest)
	auth := rest[:end]
	rest = rest[end:]
	if j := strings.LastIndexByte(auth, '@'); j >= 0 {
		auth = auth[j+1:]
	}
	hostEnd := len(auth)
	if strings.HasPrefix(auth, "[") {
		if j := strings.IndexByte(auth, ']'); j >= 0 {
			hostEnd = j + 1
		}
	} else if j := strings.LastIndexByte(auth, ':'); j >= 0 {
		hostEnd = j
	}
	p.host = auth[:hostEnd]
	if port := auth[hostEnd:]; len(port) > 1 && port[0] == ':' {
		var n int64
		for _, d := range port[1:] {
			if d < '0' || d > '9' || n > 65535 {
				n = 0
				break
			}
			n = n*10 + int64(d-'0')
		}
		if n > 0 && n <= 65535 {
			p.port = int32(n)
		}
	}
	if j := strings.IndexByte(rest, '#'); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.IndexByte(rest, '?'); j >= 0 {
		p.query = rest[j+1:]
		rest = rest[:j]
	}
	p.path = rest
	return p
}

// authorityEnd returns the length of the authority at the start of rest
// (the text after "//"): up to the first '/', '?' or '#', else all of it.
// A loop, not strings.IndexAny, which builds its set on every call.
func authorityEnd(rest string) int {
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c == '/' || c == '?' || c == '#' {
			return i
		}
	}
	return len(rest)
}

var (
	icannList = surt.SuffixList{ICANNOnly: true}
	fullList  = surt.SuffixList{}
)

// deriveHost normalizes a host and splits it as Common Crawl's tables do.
func deriveHost(raw string) hostParts {
	h := hostParts{raw: raw, valid: true}
	name := strings.TrimSuffix(strings.ToLower(raw), ".")
	if strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
		if a, err := netip.ParseAddr(name[1 : len(name)-1]); err == nil && a.Is6() {
			h.name = "[" + a.String() + "]"
			return h
		}
	}
	if a, err := netip.ParseAddr(name); err == nil && a.Is4() {
		h.name = a.String()
		return h
	}
	if !isASCII(name) {
		if a, err := idna.ToASCII(name); err == nil {
			name = a
		}
	}
	h.name = name
	if name == "" {
		return h
	}
	// Labels right to left.
	var b strings.Builder
	b.Grow(len(name))
	end := len(name)
	n := 0
	for i := len(name) - 1; i >= -1; i-- {
		if i >= 0 && name[i] != '.' {
			continue
		}
		label := name[i+1 : end]
		if n < len(h.labels) {
			h.labels[n] = label
		}
		n++
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(label)
		end = i
	}
	h.reversed = b.String()
	h.registeredDomain, h.registrySuffix = suffixSplit(icannList, name)
	h.privateDomain, h.privateSuffix = suffixSplit(fullList, name)
	return h
}

// suffixSplit returns the registered domain of host under l and its public
// suffix; a host that is itself a public suffix has no domain and is its
// own suffix.
func suffixSplit(l surt.SuffixList, host string) (domain, suffix string) {
	domain, _ = l.RegisteredDomain(host)
	if domain == "" {
		return "", host
	}
	if i := strings.IndexByte(domain, '.'); i >= 0 {
		return domain, domain[i+1:]
	}
	return domain, ""
}

// b2s views b as a string without copying, for a call that does not keep
// it.
// firstInvalid returns the offset of the first byte of b that does not
// start a valid UTF-8 sequence.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
