package aggregator

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Archive is one upstream Memento archive as an archive list describes it,
// plus the limits the aggregator applies to it. Request URLs are the
// TimeMap or TimeGate prefix followed by the URI-R, byte for byte, as in
// MemGator's archives.json and the Time Travel archivelist.xml
// (internal/spec/TIMETRAVEL.md §3).
type Archive struct {
	// ID names the archive in rules, caches, outcomes and the
	// Archive-Failures header. Unique within a registry; no control
	// character, space, '"', ',', '=', ';', '<', '>' or '\\'
	// (CheckArchiveID).
	ID string
	// Name is the display name (archivelist.xml longname).
	Name string
	// TimeMap is the prefix to which a URI-R is appended to fetch its
	// TimeMap; empty when the archive has none.
	TimeMap string
	// TimeGate is the prefix to which a URI-R is appended to reach the
	// archive's TimeGate; empty when the archive has none.
	TimeGate string
	// Ignore drops the archive when the list is loaded (MemGator's flag for
	// defunct archives).
	Ignore bool

	// PagingStatus is the archivelist.xml timemap@paging-status: 0 none,
	// 1 index, 2 forward, 3 backward, -1 unknown (the readers' value when
	// the list does not say). Pages are always followed through
	// rel="timemap" links, so this is informational.
	PagingStatus int
	// Redirect is timegate@redirect: "yes", "no" (default) or "refuse".
	Redirect string
	// MementoCompliant is archive@memento-status="yes": the archive
	// answers the Memento protocol itself (RFC 7089), not through a proxy.
	MementoCompliant bool
	// Type is archive@type, such as "snapshot" or "cms" (a content
	// management system: its memento at t is the latest not after t,
	// Aggregator.navigateAt).
	Type string
	// Probability is MemGator's "probability" key: the share of URI-Rs the
	// archive holds, 0 to 1, used by Options.TopK (0 when not given).
	Probability float64

	// Timeout bounds one archive's answer to a search (its TimeGate
	// request, or its whole TimeMap with all pages); 0 means the
	// aggregator's RequestTimeout, never "no time".
	Timeout time.Duration
	// Rate limits requests per second to this archive (golang.org/x/time/rate);
	// 0 means unlimited. Burst is the limiter's bucket size (at least 1).
	Rate  rate.Limit
	Burst int
	// MaxConcurrent caps requests in flight to this archive; 0 means the
	// aggregator's default.
	MaxConcurrent int
	// Map tells where the archive's MementoMap comes from; the zero value
	// means no map (the archive is always asked).
	Map MapSource
	// Hosts names more hosts the archive's answers may lead the aggregator
	// to, besides those of its prefixes and map URL: a TimeGate that
	// redirects to mementos on another host (archive.today's to
	// archive.ph), a TimeMap paged on a mirror. "host" allows ports 80
	// and 443, "host:port" that port (AllowList). Any other host is
	// refused.
	Hosts []string
}

// MapSource says where an archive's MementoMap is loaded from. Exactly one
// of File, URL and Discover should be set; File wins over URL, URL over
// Discover.
type MapSource struct {
	// File is a local MementoMap file (UKVS, internal/spec/MEMENTOMAP.md); a relative
	// path is relative to the process's working directory.
	File string
	// URL is fetched over HTTP and stored under the registry's map folder.
	URL string
	// Discover looks for the map at the archive's /.well-known/mementomap,
	// then at a rel="mementomap" link on the archive's TimeMap endpoint.
	Discover bool
	// Refresh is how often a URL or discovered map is fetched again;
	// 0 means once.
	Refresh time.Duration
}

// Configured reports whether any map source is set.
func (m MapSource) Configured() bool { return m.File != "" || m.URL != "" || m.Discover }

// Errors returned by the archive-list readers; wrapped with the entry's
// position in a *ListError.
var (
	ErrNoID         = errors.New("archive has no id")
	ErrDuplicateID  = errors.New("duplicate archive id")
	ErrBadID        = errors.New("archive id holds a control character, space, '\"', ',', '=', ';', '<' or '>'")
	ErrNoEndpoint   = errors.New("archive has neither a timemap nor a timegate prefix")
	ErrBadEndpoint  = errors.New("endpoint prefix is not an absolute http(s) URL")
	ErrUnknownValue = errors.New("unknown attribute value")
)

// ListError reports a problem in an archive list: Offset is the byte offset
// at which the offending entry begins (JSON: just before it, at the
// separating comma for entries after the first; a syntax error gives the
// offset of the bad byte), or Line the line of its <link> element (XML,
// Line > 0); Entry is its 0-based index.
type ListError struct {
	Offset int64
	Line   int
	Entry  int
	ID     string
	Err    error
}

// Error names the position, the entry and the cause.
func (e *ListError) Error() string {
	where := "byte " + strconv.FormatInt(e.Offset, 10)
	if e.Line > 0 {
		where = "line " + strconv.Itoa(e.Line)
	}
	id := ""
	if e.ID != "" {
		id = " (" + strconv.Quote(e.ID) + ")"
	}
	return fmt.Sprintf("archive list: %s, entry %d%s: %v", where, e.Entry, id, e.Err)
}

// Unwrap returns the cause (ErrNoID, ErrDuplicateID, ..., or a decoder error).
func (e *ListError) Unwrap() error { return e.Err }

// jsonArchive is one entry of a JSON archive list: MemGator's keys plus
// this package's optional limits.
type jsonArchive struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	TimeMap           string   `json:"timemap"`
	TimeGate          string   `json:"timegate"`
	Ignore            bool     `json:"ignore"`
	Timeout           string   `json:"timeout"`
	Rate              float64  `json:"rate"`
	Burst             int      `json:"burst"`
	MaxConcurrent     int      `json:"max_concurrent"`
	MementoMap        string   `json:"mementomap"`
	MementoMapRefresh string   `json:"mementomap_refresh"`
	Hosts             []string `json:"hosts"`
	Probability       float64  `json:"probability"`
	Type              string   `json:"type"`
	MementoCompliant  *bool    `json:"memento_compliant"`
}

func (j *jsonArchive) archive() (Archive, error) {
	a := Archive{ID: strings.TrimSpace(j.ID), Name: j.Name, TimeMap: j.TimeMap, TimeGate: j.TimeGate, Ignore: j.Ignore,
		Rate: rate.Limit(j.Rate), Burst: j.Burst, MaxConcurrent: j.MaxConcurrent, Hosts: j.Hosts,
		Probability: j.Probability, Type: j.Type, MementoCompliant: j.MementoCompliant == nil || *j.MementoCompliant, PagingStatus: -1}
	if j.Rate < 0 || j.Burst < 0 || j.MaxConcurrent < 0 {
		return a, fmt.Errorf("%w: rate, burst and max_concurrent must not be negative", ErrUnknownValue)
	}
	if j.Probability < 0 || j.Probability > 1 {
		return a, fmt.Errorf("%w: probability %v is not in 0..1", ErrUnknownValue, j.Probability)
	}
	for _, d := range []struct {
		name, v string
		to      *time.Duration
	}{{"timeout", j.Timeout, &a.Timeout}, {"mementomap_refresh", j.MementoMapRefresh, &a.Map.Refresh}} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil || v < 0 {
			return a, fmt.Errorf("%w: %s %q is not a duration such as \"10s\"", ErrUnknownValue, d.name, d.v)
		}
		*d.to = v
	}
	switch m := j.MementoMap; {
	case m == "":
	case m == "discover":
		a.Map.Discover = true
	case strings.HasPrefix(m, "http://") || strings.HasPrefix(m, "https://"):
		a.Map.URL = m
	default:
		a.Map.File = m
	}
	return a, nil
}

// ParseArchivesJSON reads MemGator's archive list: a JSON array of objects
// with "id", "name", "timemap", "timegate", an optional "ignore" and
// MemGator's optional "probability" (0 to 1, Archive.Probability; other
// keys are accepted and unused). "type" ("cms", ...) and
// "memento_compliant" set Archive.Type and MementoCompliant; without
// "memento_compliant" an archive is compliant (MemGator lists the
// archives' own Memento TimeMap and TimeGate endpoints). PagingStatus is
// -1 (unknown): MemGator's list does not say. Entries
// with "ignore": true are dropped; the order of the rest is kept. Optional
// keys of this package set an archive's limits: "timeout" and
// "mementomap_refresh" (Go durations, "10s"), "rate" (requests per
// second), "burst", "max_concurrent", "mementomap" (a file path, an
// http(s) URL, or "discover"), and "hosts" (Archive.Hosts). It stops at the first bad entry with a
// *ListError naming its byte offset. Memory is proportional to the list.
func ParseArchivesJSON(r io.Reader) ([]Archive, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, &ListError{Offset: dec.InputOffset(), Err: fmt.Errorf("reading the opening '[': %w", err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, &ListError{Offset: 0, Err: errors.New("archive list must be a JSON array")}
	}
	var out []Archive
	seen := map[string]bool{}
	for i := 0; dec.More(); i++ {
		off := dec.InputOffset()
		var j jsonArchive
		if err := dec.Decode(&j); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off = se.Offset
			}
			return nil, &ListError{Offset: off, Entry: i, Err: err}
		}
		a, err := j.archive()
		if err == nil {
			err = validate(&a, seen)
		}
		if err != nil {
			return nil, &ListError{Offset: off, Entry: i, ID: a.ID, Err: err}
		}
		if !a.Ignore {
			out = append(out, a)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, &ListError{Offset: dec.InputOffset(), Entry: len(out), Err: fmt.Errorf("reading the closing ']': %w", err)}
	}
	return out, nil
}

// CheckArchiveID reports ErrBadID, with the first offending byte and its
// offset, when id holds a byte that cannot stand in a quoted Link
// parameter or an Archive-Failures entry as is (RFC 8288 section 3, RFC
// 7230 section 3.2.6): a control character (0x00-0x1F, 0x7F), space,
// '"', ',', '=', ';', '<', '>' or '\\'.
func CheckArchiveID(id string) error {
	if i := strings.IndexFunc(id, func(r rune) bool {
		return r < 0x20 || r == 0x7f || strings.ContainsRune(" \",=;<>\\", r)
	}); i >= 0 {
		return fmt.Errorf("%w: %q at byte %d", ErrBadID, id[i], i)
	}
	return nil
}

func validate(a *Archive, seen map[string]bool) error {
	if a.ID == "" {
		return ErrNoID
	}
	if err := CheckArchiveID(a.ID); err != nil {
		return err
	}
	if seen[a.ID] {
		return ErrDuplicateID
	}
	seen[a.ID] = true
	if a.TimeMap == "" && a.TimeGate == "" {
		return ErrNoEndpoint
	}
	for _, p := range []*string{&a.TimeMap, &a.TimeGate} {
		if *p == "" {
			continue
		}
		u, err := url.Parse(*p)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w: %q", ErrBadEndpoint, *p)
		}
		// MemGator adds a missing trailing slash to a prefix.
		if !strings.HasSuffix(*p, "/") {
			*p += "/"
		}
	}
	for _, h := range a.Hosts {
		host, port, ok := splitAuthority(h)
		if ok && port != "" {
			n, err := strconv.Atoi(port)
			ok = err == nil && n >= 1 && n <= 65535
		}
		if _, err := NormalizeHost(host); !ok || err != nil {
			return fmt.Errorf("%w: hosts entry %q (want host or host:port)", ErrBadHost, h)
		}
	}
	if a.Name == "" {
		a.Name = a.ID
	}
	return nil
}

type xmlLink struct {
	ID       string `xml:"id,attr"`
	Longname string `xml:"longname,attr"`
	TimeGate []struct {
		URI      string `xml:"uri,attr"`
		Redirect string `xml:"redirect,attr"`
	} `xml:"timegate"`
	TimeMap []struct {
		URI          string `xml:"uri,attr"`
		PagingStatus string `xml:"paging-status,attr"`
	} `xml:"timemap"`
	Archive struct {
		Type          string `xml:"type,attr"`
		MementoStatus string `xml:"memento-status,attr"`
	} `xml:"archive"`
}

// ParseArchivesXML reads the Time Travel archivelist.xml (internal/spec/TIMETRAVEL.md
// §3.1): root <links>, one <link id longname> per archive with <timegate
// uri redirect>, <timemap uri paging-status> and <archive type
// memento-status> children; other children are ignored. When several
// <timegate> or <timemap> elements are given, the first is used. A bad
// entry gives a *ListError naming the entry and the line of the document
// where decoding stopped. Memory is proportional to the list.
func ParseArchivesXML(r io.Reader) ([]Archive, error) {
	dec := xml.NewDecoder(r)
	var out []Archive
	seen := map[string]bool{}
	depth, i, sawRoot := 0, 0, false
	for {
		line, _ := dec.InputPos()
		tok, err := dec.Token()
		if err == io.EOF {
			if depth != 0 || !sawRoot {
				return nil, &ListError{Line: max(line, 1), Entry: i, Err: fmt.Errorf("no complete <links> element: %w", io.ErrUnexpectedEOF)}
			}
			return out, nil
		}
		if err != nil {
			return nil, &ListError{Line: max(line, 1), Entry: i, Err: err}
		}
		switch tok.(type) {
		case xml.EndElement:
			depth--
			continue
		case xml.StartElement:
		default:
			continue
		}
		start := tok.(xml.StartElement)
		if depth == 0 {
			if start.Name.Local != "links" {
				return nil, &ListError{Line: max(line, 1), Err: fmt.Errorf("root element is <%s>, want <links>", start.Name.Local)}
			}
			depth++
			sawRoot = true
			continue
		}
		if start.Name.Local != "link" {
			if err := dec.Skip(); err != nil {
				return nil, &ListError{Line: max(line, 1), Entry: i, Err: err}
			}
			continue
		}
		var l xmlLink
		if err := dec.DecodeElement(&l, &start); err != nil {
			return nil, &ListError{Line: max(line, 1), Entry: i, Err: err}
		}
		a, err := l.archive()
		if err == nil {
			err = validate(&a, seen)
		}
		if err != nil {
			return nil, &ListError{Line: max(line, 1), Entry: i, ID: a.ID, Err: err}
		}
		out = append(out, a)
		i++
	}
}

func (l *xmlLink) archive() (Archive, error) {
	a := Archive{ID: strings.TrimSpace(l.ID), Name: l.Longname, PagingStatus: -1, Redirect: "no", Type: l.Archive.Type}
	if len(l.TimeGate) > 0 {
		a.TimeGate = l.TimeGate[0].URI
		if v := l.TimeGate[0].Redirect; v != "" {
			switch v {
			case "yes", "no", "refuse":
				a.Redirect = v
			default:
				return a, fmt.Errorf("%w: timegate redirect=%q", ErrUnknownValue, v)
			}
		}
	}
	if len(l.TimeMap) > 0 {
		a.TimeMap = l.TimeMap[0].URI
		if v := l.TimeMap[0].PagingStatus; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < -1 || n > 3 {
				return a, fmt.Errorf("%w: paging-status=%q", ErrUnknownValue, v)
			}
			a.PagingStatus = n
		}
	}
	a.MementoCompliant = l.Archive.MementoStatus == "yes"
	return a, nil
}
