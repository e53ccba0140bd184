package cdxj

import (
	"strconv"
	"strings"
)

// field names one value a Record can hold.
type field uint8

const (
	fNone field = iota // a column no well-known value takes (legend letter 'e', the IP): one of Layout.other
	fKey
	fTimestamp
	fURL
	fMIME
	fStatus
	fDigest
	fRedirect
	fRobots
	fLength
	fOffset
	fFilename
	fOrigLength
	fOrigOffset
	fOrigFilename
	numFields
)

// maxColumns bounds the number of columns of a classic CDX line.
const maxColumns = 32

// Layout is the column order of classic (space-separated) CDX lines, as the
// letters of a " CDX" header line name it. The letters are those of the
// Internet Archive's CDX legend
// (https://archive.org/web/researcher/cdx_legend.php; IIPC "The CDX File
// Format (2015)"). The reader uses these: N or A (the sort key, a SURT in
// modern files), b (timestamp), a (original URL), m (MIME type), s (HTTP
// status), k (digest; c when there is no k), r (redirect), M (robot flags),
// S (compressed record length; n when there is no S), V (compressed offset; v
// when there is no V), g (file name). A layout with neither N nor A takes its
// key from the first a column, which is then an original URL rather than a
// SURT (wget writes " CDX a b a m s k r M V g u").
//
// No column is dropped: every other column (any other letter, a letter whose
// value another column already gives, such as c beside k) is an other
// column, which [Record.OtherColumns] returns and [AppendLine] writes as a
// JSON member named by [LegendName] (wget's u, the WARC record ID, becomes
// "warc_record_id").
//
// A Layout is immutable; the zero Layout reads nothing and is never used by
// a Reader.
type Layout struct {
	name     string
	cols     []field
	idx      [numFields]int8 // column of each field, -1 when absent
	keyIsURL bool            // the key column is an original URL, not a SURT
	other    []otherCol      // the columns no well-known value takes, in column order
}

// otherCol is a column of a " CDX" legend that no well-known value takes.
type otherCol struct {
	col  int    // its column, 0-based
	name string // its JSON member name, unique within the layout
}

// legendNames gives the JSON member name of a legend letter whose column is
// carried as an other column: the meanings of the Internet Archive's CDX
// legend (https://archive.org/web/researcher/cdx_legend.php), and u, which
// GNU Wget writes for the WARC-Record-ID of the record (its --warc-cdx
// legend is " CDX a b a m s k r M V g u"). Letters that usually map to a
// well-known value are listed for the columns they lose to (a second a, c
// beside k, n beside S, v beside V).
var legendNames = map[string]string{
	"A": "canonized_url", "B": "news_group", "C": "rulespace_category",
	"D": "compressed_dat_offset", "F": "canonized_frame", "G": "languages",
	"H": "canonized_host", "I": "canonized_image", "J": "canonized_jump_point",
	"K": "fbis_changed", "L": "canonized_link", "M": "meta_tags", "N": "massaged_url",
	"P": "canonized_path", "Q": "language", "R": "canonized_redirect",
	"S": "compressed_length", "U": "uniqueness", "V": "compressed_offset",
	"X": "canonized_href_urls", "Y": "canonized_src_urls", "Z": "canonized_script_urls",
	"a": "original_url", "b": "date", "c": "old_checksum", "d": "dat_offset",
	"e": "ip", "f": "frame", "g": "file_name", "h": "original_host", "i": "image",
	"j": "jump_point", "k": "new_checksum", "l": "link", "m": "mime_type",
	"n": "arc_length", "o": "port", "p": "original_path", "r": "redirect_url",
	"s": "response_code", "t": "title", "u": "warc_record_id",
	"v": "uncompressed_offset", "x": "href_urls", "y": "src_urls", "z": "script_urls",
}

// LegendName returns the JSON member name under which [AppendLine] writes a
// column of legend letter (or token) letter that no well-known value takes:
// the name of the letter in the CDX legend ("e" is "ip", wget's "u" is
// "warc_record_id"; see [Layout]), or the token itself for a letter the
// legend does not define. Within one layout a name already taken (by an
// earlier column, or a JSON name of a well-known value such as "url") gets
// the column's 1-based number appended ("ip_4").
func LegendName(letter string) string {
	if n, ok := legendNames[letter]; ok {
		return n
	}
	return letter
}

// The layouts a Reader infers from the field count of a line when the input
// has no " CDX" header. Layout14 has no legend letters for its last three
// columns: they are pywb's resolved-revisit fields, the length, offset and
// file name of the original (non-revisit) record.
var (
	Layout7  = mustLayout("CDX N b a m s k S")         // public CDX server: urlkey timestamp original mimetype statuscode digest length
	Layout9  = mustLayout("CDX N b a m s k r V g")     // older IA / cdxj-indexer cdx09
	Layout10 = mustLayout("CDX N b a m s k r M V g")   // OpenWayback without length
	Layout11 = mustLayout("CDX N b a m s k r M S V g") // IA CDX-Writer default since ~2012
	Layout14 = withOrig(mustLayout("CDX N b a m s k r M S V g"), "CDX N b a m s k r M S V g + orig.length orig.offset orig.filename")
)

func mustLayout(h string) *Layout {
	l, err := ParseLayout(h)
	if err != nil {
		panic(err)
	}
	return l
}

func withOrig(l *Layout, name string) *Layout {
	n := *l
	n.name = name
	n.cols = append(append([]field(nil), l.cols...), fOrigLength, fOrigOffset, fOrigFilename)
	n.idx[fOrigLength], n.idx[fOrigOffset], n.idx[fOrigFilename] = int8(len(l.cols)), int8(len(l.cols)+1), int8(len(l.cols)+2)
	return &n
}

// layoutForCount returns the headerless layout for n columns, or nil.
func layoutForCount(n int) *Layout {
	switch n {
	case 7:
		return Layout7
	case 9:
		return Layout9
	case 10:
		return Layout10
	case 11:
		return Layout11
	case 14:
		return Layout14
	}
	return nil
}

// ParseLayout parses a CDX header line such as " CDX N b a m s k r M S V g".
// The leading space (the legend's field delimiter) may be missing; only a
// space delimiter is supported. It fails, with an error wrapping ErrHeader,
// when the line does not start with "CDX", has more than 32 columns, or
// names no timestamp (b) or no key (N, A or a).
func ParseLayout(header string) (*Layout, error) {
	h := strings.TrimRight(header, "\r\n")
	h = strings.TrimPrefix(h, " ")
	letters, ok := strings.CutPrefix(h, "CDX")
	if !ok || (letters != "" && letters[0] != ' ') {
		return nil, causef(ErrHeader, "%q does not start with \"CDX \"", clipS(header))
	}
	cols := strings.Fields(letters)
	if len(cols) > maxColumns {
		return nil, causef(ErrHeader, "%d columns, at most %d are supported", len(cols), maxColumns)
	}
	l := &Layout{name: "CDX " + strings.Join(cols, " "), cols: make([]field, len(cols))}
	for i := range l.idx {
		l.idx[i] = -1
	}
	set := func(f field, i int) {
		if l.idx[f] < 0 {
			l.idx[f] = int8(i)
			l.cols[i] = f
		}
	}
	// Preferred letters first, fallbacks after, so that "k" wins over "c"
	// whatever their order.
	for _, pass := range [2]string{"NAbamskrMSVg", "cnv"} {
		for i, c := range cols {
			if len(c) != 1 || !strings.Contains(pass, c) {
				continue
			}
			switch c[0] {
			case 'N', 'A':
				set(fKey, i)
			case 'b':
				set(fTimestamp, i)
			case 'a':
				if l.idx[fURL] >= 0 {
					continue
				}
				set(fURL, i)
			case 'm':
				set(fMIME, i)
			case 's':
				set(fStatus, i)
			case 'k', 'c':
				set(fDigest, i)
			case 'r':
				set(fRedirect, i)
			case 'M':
				set(fRobots, i)
			case 'S', 'n':
				set(fLength, i)
			case 'V', 'v':
				set(fOffset, i)
			case 'g':
				set(fFilename, i)
			}
		}
	}
	// wget's " CDX a b a m s k r M V g u": no N or A, so the first 'a' is the
	// key and the last 'a' the original URL.
	if l.idx[fKey] < 0 {
		first, last := -1, -1
		for i, c := range cols {
			if c == "a" {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first >= 0 {
			l.idx[fKey], l.idx[fURL] = int8(first), int8(last)
			l.cols[first], l.cols[last] = fKey, fURL
			l.keyIsURL = true
		}
	}
	if l.idx[fKey] < 0 {
		return nil, causef(ErrHeader, "%q names no key column (N, A or a)", clipS(header))
	}
	if l.idx[fTimestamp] < 0 {
		return nil, causef(ErrHeader, "%q names no timestamp column (b)", clipS(header))
	}
	// The names of well-known values stay theirs, present or not, so that
	// a CDXJ line written from the record reads back the same values.
	taken := map[string]bool{"orig.length": true, "orig.offset": true, "orig.filename": true}
	for _, names := range jsonNames {
		for _, n := range names {
			taken[n] = true
		}
	}
	for i, f := range l.cols {
		if f != fNone {
			continue
		}
		name := LegendName(cols[i])
		if taken[name] {
			name += "_" + strconv.Itoa(i+1)
		}
		taken[name] = true
		l.other = append(l.other, otherCol{col: i, name: name})
	}
	return l, nil
}

// String returns the header line that declares l, such as
// "CDX N b a m s k r M S V g" (without the leading delimiter).
func (l *Layout) String() string { return l.name }

// Columns returns the number of columns of a line in this layout.
func (l *Layout) Columns() int { return len(l.cols) }

// KeyIsSURT reports whether the layout's key column is a canonicalized key
// (N or A) rather than an original URL (wget's layout).
func (l *Layout) KeyIsSURT() bool { return !l.keyIsURL }

func clipS(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
