package cdxj

import (
	"strings"
)

// field names one value a Record can hold.
type field uint8

const (
	fNone field = iota // a column the reader ignores (e.g. legend letter 'e', the IP)
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
// when there is no V), g (file name). Other letters are read past. A layout
// with neither N nor A takes its key from the first a column, which is then
// an original URL rather than a SURT (wget writes " CDX a b a m s k r M V g u").
//
// A Layout is immutable; the zero Layout reads nothing and is never used by
// a Reader.
type Layout struct {
	name     string
	cols     []field
	idx      [numFields]int8 // column of each field, -1 when absent
	keyIsURL bool            // the key column is an original URL, not a SURT
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
