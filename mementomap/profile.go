package mementomap

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/extsort"
	"github.com/mementokit/mementokit/timestamp"
)

// ProfileOptions sets up [Profile]. The zero value profiles every capture
// of an HTTP(S) URI-R (the filters, key handling, bad-line policy and sort
// memory of [BuildOptions] apply as in [Build]), lists the top 25 URI-Rs
// and runs the compaction of Figure 9 at W_h = W_p = 1.
type ProfileOptions struct {
	BuildOptions

	// Top is the number of most archived URI-Rs listed (Table 5); 0 means 25.
	Top int
	// Compaction sets up the compaction whose output size Figure 9 follows;
	// nil means DefaultCompactOptions. Its Logger and Progress are not used.
	Compaction *CompactOptions
	// NoCompaction leaves Figure 9 out (and with it the second sort of the
	// HxPx keys and the compaction run, about a third of the work).
	NoCompaction bool
}

// ProfileMaxDepth is the deepest host and path depth Table 8 tracks; keys
// deeper than it still count at every depth up to it
// ([ArchiveProfile].Deeper counts them).
const ProfileMaxDepth = 32

// ArchiveProfile is the paper's analysis of an archive's holdings (Alam et
// al., JCDL 2019, Section 5 on Arquivo.pt; internal/spec/MEMENTOMAP.md,
// "Profiling an archive"), as [Profile] computes it. Every count is exact.
// Depth names: H1 is the TLD ("com"), H2 the next label ("com,example");
// P0 the host's root path, P1 the first path segment. A key's host depth is
// its label count, its path depth its segment count ("/a/" has two, the
// second empty, as compaction counts them); queries are cut.
type ArchiveProfile struct {
	Index      IndexStats     `json:"index"`      // Table 2
	TLDs       []TLDShare     `json:"tlds"`       // Table 1, most URI-Rs first
	Mementos   MementoStats   `json:"mementos"`   // Table 4 and Figure 5
	TopURIRs   []URIRCount    `json:"top_urirs"`  // Table 5, most mementos first
	Years      []YearStats    `json:"years"`      // Table 6 and Figure 6, by year
	Items      []DepthItems   `json:"items"`      // Table 7, by depth
	HostDepth  []DepthStats   `json:"host_depth"` // Table 8 and Figure 7, H1, H2, …
	PathDepth  []DepthStats   `json:"path_depth"` // Table 8 and Figure 7, P0, P1, …
	Deeper     DeeperKeys     `json:"deeper"`
	Compaction *CompactionRun `json:"compaction,omitempty"` // Figure 9
	// Fit is the power-law fit of the cutoffs to this profile
	// ([FitCutoffs], every depth with a parent), nil when there are too few
	// depths; FitError then says why.
	Fit      *CutoffFit `json:"fit,omitempty"`
	FitError string     `json:"fit_error,omitempty"`
}

// IndexStats is the paper's Table 2.
type IndexStats struct {
	Lines    int64 `json:"lines"`     // index records read
	URIMs    int64 `json:"urims"`     // captures profiled (after the filters)
	URIRs    int64 `json:"urirs"`     // distinct URI-Rs (full SURTs, query included)
	HxPxKeys int64 `json:"hxpx_keys"` // distinct HxPx keys (the baseline map's data lines)
	Hosts    int64 `json:"hosts"`     // distinct hosts (SURT host parts, port included)
	IPHosts  int64 `json:"ip_hosts"`  // of those, IP addresses (v4 and v6; in no TLD)
	Domains  int64 `json:"domains"`   // distinct registrable domains (public suffix plus one label)
	TLDs     int64 `json:"tlds"`      // distinct first host labels of the hosts that are not IP addresses
	// First and Last are the earliest and latest capture datetimes (UTC);
	// nil (null in JSON) when no capture was profiled.
	First *time.Time `json:"first"`
	Last  *time.Time `json:"last"`
	// IndexBytes is the size of the index lines read (uncompressed, line
	// ends included); MapBytes the size of the baseline map's data lines.
	IndexBytes int64 `json:"index_bytes"`
	MapBytes   int64 `json:"map_bytes"`
	// Filtered, NonHTTP and Bad count the records left out, as in [BuildStats].
	Filtered    int64    `json:"filtered"`
	NonHTTP     int64    `json:"non_http"`
	Bad         int64    `json:"bad"`
	BadExamples []string `json:"bad_examples,omitempty"`
	Mismatched  int64    `json:"mismatched"` // sampled keys that differ from their canonicalized URL
}

// TLDShare is one row of Table 1.
type TLDShare struct {
	TLD   string `json:"tld"` // the first SURT label ("pt"), or "other (N)" for the fold of [MaxProfileTLDs]
	URIRs int64  `json:"urirs"`
	URIMs int64  `json:"urims"`
	// URIRShare and URIMShare are fractions of the index's totals.
	URIRShare float64 `json:"urir_share"`
	URIMShare float64 `json:"urim_share"`
}

// MaxProfileTLDs is the most TLDs [ArchiveProfile].TLDs lists; the
// smallest beyond it (by URI-Rs) are summed into one "other (N)" row.
const MaxProfileTLDs = 1000

// MementoStats is Table 4 and Figure 5: mementos per URI-R.
type MementoStats struct {
	Distribution // N is URI-Rs, Sum URI-Ms, Mean the paper's γ
	Inequality
	// Histogram lists how many URI-Rs have each memento count, by count.
	Histogram []CountFrequency `json:"histogram"`
}

// CountFrequency says that URIRs URI-Rs (or prefixes) hold Count each.
type CountFrequency struct {
	Count uint64 `json:"count"`
	Items uint64 `json:"items"`
}

// URIRCount is one row of Table 5.
type URIRCount struct {
	SURT     string `json:"surt"` // the full SURT, query included
	Mementos uint64 `json:"mementos"`
}

// YearStats is one row of Table 6 (year 0 holds captures without a
// datetime the year of which is known, which cdxj does not produce).
type YearStats struct {
	Year int `json:"year"`
	// URIRs were captured this year; New of them for the first time
	// (URI-R+ is the running total of New, not of URIRs).
	URIRs int64 `json:"urirs"`
	New   int64 `json:"new"`
	URIMs int64 `json:"urims"`
	// CumURIRs and CumURIMs are running totals up to this year.
	CumURIRs int64 `json:"cum_urirs"`
	CumURIMs int64 `json:"cum_urims"`
	// DupShare is the share of this year's URI-Rs seen in an earlier year.
	DupShare float64 `json:"dup_share"`
	// Gamma is URIMs/URIRs, CumGamma CumURIMs/CumURIRs.
	Gamma    float64 `json:"gamma"`
	CumGamma float64 `json:"cum_gamma"`
	// Status counts this year's URI-Ms by HTTP status class: index 2 for
	// 2xx … 5 for 5xx, 0 for everything else (no status, revisits, 1xx,
	// 6xx and up).
	Status [6]int64 `json:"status"`
}

// DepthItems is one row of Table 7: unique items of exactly Depth.
type DepthItems struct {
	Depth   int   `json:"depth"`
	Domains int64 `json:"domains"`   // registrable domains with Depth labels
	Hosts   int64 `json:"hosts"`     // hosts with Depth labels
	Keys    int64 `json:"hxpx_keys"` // HxPx keys with path depth Depth
}

// DepthStats is one row of Table 8: every HxPx key at least Depth deep, cut
// at Depth.
type DepthStats struct {
	// Depth d names the row: the prefixes cut at d, the children at d and
	// their parents at d−1. Table 8, the report's charts and the fit's
	// points ([FitPoint].Depth) all index by it.
	Depth int `json:"depth"`
	// Prefixes is the distribution of keys per distinct cut prefix: N is
	// the paper's Count (and Children), Sum its Sum, with Max, Mean,
	// Median and StdDev.
	Prefixes Distribution `json:"prefixes"`
	// RedQ = (Sum − Count) ÷ all HxPx keys: the share of keys a cut at
	// this depth would remove.
	RedQ float64 `json:"redq"`
	// Parents is the number of nodes at Depth−1 with a child at Depth (for
	// H1 the root, so 1; for P0 0: a host's parent is in the host layer);
	// MeanChildren is Prefixes.N ÷ Parents (0 without parents).
	Parents      int64   `json:"parents"`
	MeanChildren float64 `json:"mean_children"`
	// Children is the distribution of children at Depth per parent.
	Children Distribution `json:"children"`
	// Global and Incremental are the reduction curves of Figure 8: the
	// share of all HxPx keys left as the prefixes at Depth are rolled up,
	// the largest first; and the share of nodes at Depth left as the
	// children of the parents at Depth−1 are rolled into them, the parents
	// with most children first.
	Global      []ReductionPoint `json:"global"`
	Incremental []ReductionPoint `json:"incremental"`
}

// DeeperKeys counts keys deeper than [ProfileMaxDepth].
type DeeperKeys struct {
	Host int64 `json:"host"`
	Path int64 `json:"path"`
}

// CompactionRun is Figure 9: one compaction of the baseline map.
type CompactionRun struct {
	HostFactor float64      `json:"host_factor"`
	PathFactor float64      `json:"path_factor"`
	Stats      CompactStats `json:"stats"`
	// Points follow the output's size (bytes, headers included, pending
	// output that a roll-up may still replace included) as input lines are
	// read: about 400 evenly spaced samples and the end.
	Points []CompactionPoint `json:"points"`
}

// CompactionPoint is one sample of a compaction run.
type CompactionPoint struct {
	InLines  int64 `json:"in_lines"`
	OutBytes int64 `json:"out_bytes"`
}

// Profile reads CDX/CDXJ indexes (any number, sorted or not: whatever
// cdxj.Open opens, files, ZipNum clusters, CDX servers) and computes the
// paper's analysis of the archive ([ArchiveProfile]). Records are filtered
// and keyed as [Build] does (o.BuildOptions); bad lines stop it with an
// error naming source and line unless o.SkipBad, and so does a key holding
// a byte below 0x21 (a control character or a space), which no map line
// could carry.
//
// Memory is bounded whatever the input size: one external sort of the
// records (o.MemoryLimit, spilled to o.TempDir, as [Build]), then one
// streaming pass over it whose state is a trail of open nodes per depth,
// histograms of distinct values (at most √(2·n) entries for n items each),
// the Top heap, one entry per year and at most [MaxProfileTLDs] TLDs. For
// Figure 9 a second external sort of the baseline map's lines feeds
// [Compact]. CPU per record is about that of [Build] plus, for Figure 9, a
// sort and a compaction of the HxPx keys. opts may be nil (the defaults of
// [ProfileOptions]).
func Profile(ctx context.Context, inputs []cdxj.Searcher, opts *ProfileOptions) (*ArchiveProfile, error) {
	var o ProfileOptions
	if opts != nil {
		o = *opts
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultSortMemory
	}
	if o.Top <= 0 {
		o.Top = 25
	}
	p := newProfiler(o)
	b := newBuilder(o.BuildOptions)
	b.s = extsort.New(o.MemoryLimit, o.TempDir)
	defer b.s.Close()
	p.sorter = b.s
	var rec *cdxj.Record
	b.sink = func(k []byte, _ int) error { return p.add(rec, k) }
	for _, in := range inputs {
		n := 0
		for r, err := range in.Records(cdxj.Query{}) {
			if n++; n&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if err == nil {
				b.st.Records++
				p.out.Index.IndexBytes += int64(len(r.Line())) + 1
				rec = r
				err = b.record(r)
				if p.refused {
					b.st.Used-- // counted by the builder before the profile refused its key
					p.refused = false
				}
			}
			if err != nil {
				if err := b.bad(err); err != nil {
					return nil, err
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	ix := &p.out.Index
	ix.Lines, ix.URIMs, ix.Filtered, ix.NonHTTP = b.st.Records, b.st.Used, b.st.Filtered, b.st.NonHTTP
	ix.Bad, ix.BadExamples, ix.Mismatched = b.st.Bad, b.st.BadExamples, b.st.Mismatched
	if !o.NoCompaction {
		p.lines = extsort.New(o.MemoryLimit, o.TempDir)
		defer p.lines.Close()
	}
	n := 0
	err := b.s.Each(func(key []byte, count uint64) error {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return p.entry(key, count)
	})
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	if f, err := FitCutoffs(&p.out, 0); err == nil {
		p.out.Fit = &f
	} else {
		p.out.FitError = err.Error()
	}
	if !o.NoCompaction {
		if err := p.compaction(ctx, o); err != nil {
			return nil, err
		}
	}
	if o.Logger != nil {
		o.Logger.Info("profiled", "records", ix.Lines, "urims", ix.URIMs, "urirs", ix.URIRs,
			"hxpx_keys", ix.HxPxKeys, "hosts", ix.Hosts)
	}
	return &p.out, nil
}

// The profile's sort key is the record's key, its bytes mapped so that
// byte order is the order of label and segment tuples (every prefix at a
// host or path depth is then one contiguous run): a ',' of the host and a
// '/' of the path become sepLabel, the ')' sepHost and the first '?'
// sepQuery; then sepEnd, the capture year (2 bytes, big-endian) and its
// status class (1 byte). Equal sort keys are summed by the sorter. The
// keys of a sorted index come mostly in increasing order (a '/' mapped
// below a '.', a status class lower than the last capture's, are the
// exceptions), so they are appended (extsort.Sorter.Append): keys in
// order go straight to a run on disk and only the others fill the chunk.
// At 4 M cdxgen lines this cut peak memory from 250 MB to 46 MB.
const (
	sepEnd   = 0x00
	sepQuery = 0x01
	sepHost  = 0x02
	sepLabel = 0x03
	keyTail  = 4 // sepEnd, year, class
)

type profiler struct {
	o      ProfileOptions
	out    ArchiveProfile
	sk     []byte
	sorter *extsort.Sorter
	lines  *extsort.Sorter // the baseline map's lines, for Figure 9
	first  []byte          // earliest and latest timestamps seen
	last   []byte

	// The current URI-R, HxPx key, host, domain and TLD (sort-key form).
	urir, hx, host, domain, tld []byte
	ipHost                      bool   // the current host is an IP address (no TLD)
	urirM                       uint64 // mementos of the current URI-R
	urirYear                    int    // the last year seen for it, -1 before
	urirYears                   int    // years it was seen in
	hxM, hxR                    uint64
	tldR, tldM                  int64
	tlds                        []TLDShare
	years                       map[int]*YearStats

	counts  histogram // mementos per URI-R
	top     topHeap
	hostL   [ProfileMaxDepth + 1]trailNode // host trail: [0] is the root, [d] the node at Hd
	pathL   [ProfileMaxDepth + 1]trailNode // path trail: [d] the node at Pd
	hostN   int                            // open host nodes below the root (the last key's host depth, capped)
	pathN   int                            // open path nodes (the last key's path depth + 1, capped)
	hEnds   [ProfileMaxDepth + 1]int       // the current key's prefix ends
	pEnds   [ProfileMaxDepth + 1]int
	sizes   [2][ProfileMaxDepth + 1]histogram // keys per prefix, host and path
	kids    [2][ProfileMaxDepth + 1]histogram // children at d per parent at d−1
	items   map[int]*DepthItems
	line    []byte
	refused bool // add refused the last record's key
}

type trailNode struct {
	end      int    // prefix end in the key it was opened by
	keys     uint64 // HxPx keys below
	children uint64 // distinct children at the next depth
}

func newProfiler(o ProfileOptions) *profiler {
	p := &profiler{o: o, counts: histogram{}, years: map[int]*YearStats{}, items: map[int]*DepthItems{}, urirYear: -1}
	for l := range p.sizes {
		for d := range p.sizes[l] {
			p.sizes[l][d] = histogram{}
			p.kids[l][d] = histogram{}
		}
	}
	return p
}

// add turns one kept record (k is its key, the first '?' made a NUL by the
// builder) into a sort key.
func (p *profiler) add(rec *cdxj.Record, k []byte) error {
	sk := p.sk[:0]
	host := true
	for i, c := range k {
		switch {
		case c == 0:
			sk = append(sk, sepQuery)
			sk = append(sk, k[i+1:]...)
			for _, q := range k[i+1:] {
				if q < 0x21 {
					p.refused = true
					return rec.ParseError(fmt.Errorf("key %q holds the byte %#x, which a map line cannot carry", k, q))
				}
			}
			goto tail
		case c < 0x21:
			p.refused = true
			return rec.ParseError(fmt.Errorf("key %q holds the byte %#x, which a map line cannot carry", k, c))
		case host && c == ',':
			sk = append(sk, sepLabel)
		case host && c == ')':
			sk = append(sk, sepHost)
			host = false
		case !host && c == '/':
			sk = append(sk, sepLabel)
		default:
			sk = append(sk, c)
		}
	}
tail:
	y := rec.Year()
	if y < 0 || y > 0xffff {
		y = 0
	}
	class := rec.Status() / 100
	if class < 2 || class > 5 {
		class = 0
	}
	sk = append(sk, sepEnd, byte(y>>8), byte(y), byte(class))
	p.sk = sk
	if ts := rec.Timestamp(); len(p.first) == 0 || bytes.Compare(ts, p.first) < 0 {
		p.first = append(p.first[:0], ts...)
	}
	if ts := rec.Timestamp(); bytes.Compare(ts, p.last) > 0 {
		p.last = append(p.last[:0], ts...)
	}
	return p.sorter.Append(sk, 1)
}

// entry takes one sorted (URI-R, year, status class) group of count captures.
func (p *profiler) entry(key []byte, count uint64) error {
	n := len(key) - keyTail
	urir := key[:n]
	year := int(key[n+1])<<8 | int(key[n+2])
	class := int(key[n+3])
	if !bytes.Equal(urir, p.urir) || len(p.urir) == 0 {
		hx := urir
		if i := bytes.IndexByte(urir, sepQuery); i >= 0 {
			hx = urir[:i]
		}
		if len(p.urir) > 0 {
			p.endURIR()
		}
		if !bytes.Equal(hx, p.hx) || len(p.hx) == 0 {
			if len(p.hx) > 0 {
				if err := p.endKey(); err != nil {
					return err
				}
			}
			p.startKey(hx)
		}
		p.urir = append(p.urir[:0], urir...)
		p.urirM, p.urirYear, p.urirYears = 0, -1, 0
		p.hxR++
	}
	ys := p.years[year]
	if ys == nil {
		ys = &YearStats{Year: year}
		p.years[year] = ys
	}
	if year != p.urirYear {
		ys.URIRs++
		if p.urirYears == 0 {
			ys.New++
		}
		p.urirYear = year
		p.urirYears++
	}
	ys.URIMs += int64(count)
	ys.Status[class] += int64(count)
	p.urirM += count
	p.hxM += count
	p.tldM += int64(count)
	return nil
}

func (p *profiler) endURIR() {
	p.counts[p.urirM]++
	p.out.Index.URIRs++
	p.tldR++
	if len(p.top) < p.o.Top || p.urirM > p.top[0].Mementos {
		u := URIRCount{SURT: decodeKey(p.urir), Mementos: p.urirM}
		if len(p.top) < p.o.Top {
			heap.Push(&p.top, u)
		} else {
			p.top[0] = u
			heap.Fix(&p.top, 0)
		}
	}
}

// startKey opens the HxPx key hx (sort-key form): its host, domain and TLD
// when they change, and the nodes of both trails that differ from the
// previous key's.
func (p *profiler) startKey(hx []byte) {
	c := commonPrefix(hx, p.hx)
	hostEnd := bytes.IndexByte(hx, sepHost)
	host := hx[:hostEnd]
	// Host depth ends: the label boundaries of the host.
	hn := 0
	for i := 0; i <= len(host); i++ {
		if i == len(host) || host[i] == sepLabel {
			if hn == ProfileMaxDepth {
				p.out.Deeper.Host++
				break
			}
			hn++
			p.hEnds[hn] = i
		}
	}
	// Path depth ends: [0] the host with its ')', then each segment.
	pn := 0
	p.pEnds[0] = hostEnd + 1
	s := hostEnd + 1
	if s < len(hx) && hx[s] == sepLabel {
		s++
	}
	if s < len(hx) {
		for i := s; i <= len(hx); i++ {
			if i == len(hx) || hx[i] == sepLabel {
				if pn == ProfileMaxDepth {
					p.out.Deeper.Path++
					break
				}
				pn++
				p.pEnds[pn] = i
			}
		}
	}
	p.itemsAt(pn).Keys++

	first := len(p.hx) == 0
	// The host layer: the shallowest depth whose prefix differs.
	f := 1
	for f <= hn && f <= p.hostN && p.hostL[f].end == p.hEnds[f] && c >= p.hEnds[f] {
		f++
	}
	p.closeHost(f)
	if first {
		p.hostL[0] = trailNode{}
	}
	for d := f; d <= hn; d++ {
		p.hostL[d] = trailNode{end: p.hEnds[d]}
		p.hostL[d-1].children++
	}
	p.hostN = hn
	for d := 0; d <= hn; d++ {
		p.hostL[d].keys++
	}
	// The path layer, depth 0 (the host) included.
	f = 0
	for f <= pn && f < p.pathN && p.pathL[f].end == p.pEnds[f] && c >= p.pEnds[f] {
		f++
	}
	p.closePath(f)
	for d := f; d <= pn; d++ {
		p.pathL[d] = trailNode{end: p.pEnds[d]}
		if d > 0 {
			p.pathL[d-1].children++
		}
	}
	p.pathN = pn + 1
	for d := 0; d <= pn; d++ {
		p.pathL[d].keys++
	}

	if !bytes.Equal(host, p.host) || first {
		p.newHost(host, hn)
	}
	p.hx = append(p.hx[:0], hx...)
	p.hxM, p.hxR = 0, 0
	p.out.Index.HxPxKeys++
}

// closeHost closes the host nodes at depths ≥ from (deepest first).
func (p *profiler) closeHost(from int) {
	for d := p.hostN; d >= from && d >= 1; d-- {
		n := p.hostL[d]
		p.sizes[0][d][n.keys]++
		if n.children > 0 && d+1 <= ProfileMaxDepth {
			p.kids[0][d+1][n.children]++
		}
	}
	if from == 0 {
		if n := p.hostL[0]; n.children > 0 {
			p.kids[0][1][n.children]++
		}
	}
	if from < 1 {
		from = 1
	}
	if p.hostN >= from {
		p.hostN = from - 1
	}
}

// closePath closes the path nodes at depths ≥ from (deepest first).
func (p *profiler) closePath(from int) {
	for d := p.pathN - 1; d >= from; d-- {
		n := p.pathL[d]
		p.sizes[1][d][n.keys]++
		if n.children > 0 && d+1 <= ProfileMaxDepth {
			p.kids[1][d+1][n.children]++
		}
	}
	if p.pathN > from {
		p.pathN = from
	}
}

func (p *profiler) itemsAt(d int) *DepthItems {
	it := p.items[d]
	if it == nil {
		it = &DepthItems{Depth: d}
		p.items[d] = it
	}
	return it
}

// newHost counts a new host, and its domain and TLD when they change.
func (p *profiler) newHost(host []byte, labels int) {
	ix := &p.out.Index
	ix.Hosts++
	p.itemsAt(labels).Hosts++
	name := strings.ReplaceAll(string(host), "\x03", ",")
	bare := name
	if c := strings.LastIndexByte(bare, ':'); c >= 0 && digitString(bare[c+1:]) {
		bare = bare[:c]
	}
	parts := strings.Split(bare, ",")
	// An IP host: IPv4 as SURT writes it (four reversed decimal labels),
	// IPv6 bare (two colons or more: a name with a port has one) or in
	// brackets. It has no TLD: Table 1 and Index.TLDs leave it out.
	ip := strings.HasPrefix(bare, "[") || strings.Count(name, ":") >= 2 || (len(parts) == 4 && allDigitLabels(parts))
	tld := host
	if i := bytes.IndexByte(host, sepLabel); i >= 0 {
		tld = host[:i]
	}
	switch {
	case ip:
		ix.IPHosts++
		p.endTLD()
		p.tld = p.tld[:0]
		p.ipHost = true
	case p.ipHost || !bytes.Equal(tld, p.tld) || len(p.tld) == 0:
		p.endTLD()
		p.ipHost = false
		if n := len(p.tlds); n == 0 || p.tlds[n-1].TLD != string(tld) {
			ix.TLDs++ // not the TLD that IP hosts interrupted
		}
		p.tld = append(p.tld[:0], tld...)
	}
	// The registrable domain: the first n labels of the host, n the label
	// count of the public suffix plus one.
	var dom []byte
	if !ip {
		slices.Reverse(parts)
		if d, err := publicsuffix.EffectiveTLDPlusOne(strings.Join(parts, ".")); err == nil {
			n := strings.Count(d, ".") + 1
			end := len(host)
			if n < labels {
				end = p.hEnds[n]
			}
			dom = host[:end]
			if !bytes.Equal(dom, p.domain) {
				ix.Domains++
				p.itemsAt(n).Domains++
			}
		}
	}
	p.domain = append(p.domain[:0], dom...)
	p.host = append(p.host[:0], host...)
}

func (p *profiler) endTLD() {
	if len(p.tld) == 0 { // none yet, or IP hosts
		p.tldR, p.tldM = 0, 0
		return
	}
	if n := len(p.tlds); n > 0 && p.tlds[n-1].TLD == string(p.tld) {
		p.tlds[n-1].URIRs += p.tldR
		p.tlds[n-1].URIMs += p.tldM
	} else {
		p.tlds = append(p.tlds, TLDShare{TLD: string(p.tld), URIRs: p.tldR, URIMs: p.tldM})
	}
	p.tldR, p.tldM = 0, 0
}

// endKey ends the current HxPx key: its map line goes to the second sort.
func (p *profiler) endKey() error {
	line := appendDecoded(p.line[:0], p.hx)
	line = append(line, ' ')
	line = strconv.AppendUint(line, p.hxM, 10)
	line = append(line, '/')
	line = strconv.AppendUint(line, p.hxR, 10)
	p.line = line
	p.out.Index.MapBytes += int64(len(line)) + 1
	if p.lines != nil {
		return p.lines.Append(line, 0)
	}
	return nil
}

func (p *profiler) finish() error {
	if len(p.urir) > 0 {
		p.endURIR()
		if err := p.endKey(); err != nil {
			return err
		}
		p.closeHost(0)
		p.closePath(0)
		p.endTLD()
	}
	out := &p.out
	ix := &out.Index
	if len(p.first) > 0 {
		first, last := recordTime(p.first), recordTime(p.last)
		ix.First, ix.Last = &first, &last
	}
	// Table 1.
	slices.SortStableFunc(p.tlds, func(a, b TLDShare) int {
		if a.URIRs != b.URIRs {
			return cmpInt64(b.URIRs, a.URIRs)
		}
		return cmpInt64(b.URIMs, a.URIMs)
	})
	if len(p.tlds) > MaxProfileTLDs {
		o := TLDShare{TLD: fmt.Sprintf("other (%d)", len(p.tlds)-MaxProfileTLDs+1)}
		for _, t := range p.tlds[MaxProfileTLDs-1:] {
			o.URIRs += t.URIRs
			o.URIMs += t.URIMs
		}
		p.tlds = append(p.tlds[:MaxProfileTLDs-1], o)
	}
	for i := range p.tlds {
		t := &p.tlds[i]
		t.URIRShare = ratio(t.URIRs, ix.URIRs)
		t.URIMShare = ratio(t.URIMs, ix.URIMs)
	}
	out.TLDs = p.tlds
	// Table 4, Figure 5.
	out.Mementos.Distribution = p.counts.distribution()
	out.Mementos.Inequality = p.counts.inequality()
	for _, e := range p.counts.sorted() {
		out.Mementos.Histogram = append(out.Mementos.Histogram, CountFrequency{e.v, e.n})
	}
	// Table 5.
	top := slices.Clone(p.top)
	slices.SortFunc(top, func(a, b URIRCount) int {
		if a.Mementos != b.Mementos {
			if a.Mementos > b.Mementos {
				return -1
			}
			return 1
		}
		return strings.Compare(a.SURT, b.SURT)
	})
	out.TopURIRs = top
	// Table 6.
	ys := make([]int, 0, len(p.years))
	for y := range p.years {
		ys = append(ys, y)
	}
	slices.Sort(ys)
	var cr, cm int64
	for _, y := range ys {
		s := *p.years[y]
		cr += s.New
		cm += s.URIMs
		s.CumURIRs, s.CumURIMs = cr, cm
		s.DupShare = ratio(s.URIRs-s.New, s.URIRs)
		s.Gamma = ratio(s.URIMs, s.URIRs)
		s.CumGamma = ratio(cm, cr)
		out.Years = append(out.Years, s)
	}
	// Table 7.
	ds := make([]int, 0, len(p.items))
	for d := range p.items {
		ds = append(ds, d)
	}
	slices.Sort(ds)
	for _, d := range ds {
		out.Items = append(out.Items, *p.items[d])
	}
	// Table 8, Figures 7 and 8.
	total := uint64(ix.HxPxKeys)
	for l, rows := range [2]*[]DepthStats{&out.HostDepth, &out.PathDepth} {
		for d := 0; d <= ProfileMaxDepth; d++ {
			if l == 0 && d == 0 {
				continue
			}
			h := p.sizes[l][d]
			if len(h) == 0 {
				continue
			}
			r := DepthStats{Depth: d, Prefixes: h.distribution(), Children: p.kids[l][d].distribution()}
			r.Parents = int64(r.Children.N)
			r.RedQ = ratio(int64(r.Prefixes.Sum-r.Prefixes.N), int64(total))
			if r.Parents > 0 {
				r.MeanChildren = float64(r.Prefixes.N) / float64(r.Parents)
			}
			r.Global = h.reduction(total)
			r.Incremental = p.kids[l][d].reduction(r.Prefixes.N)
			*rows = append(*rows, r)
		}
	}
	return nil
}

// compaction runs Figure 9: the baseline map's lines, in map order, through
// Compact, sampling the output size.
func (p *profiler) compaction(ctx context.Context, o ProfileOptions) error {
	co := compactOptions(o.Compaction) // a copy: Logger, TempDir and Progress are set below
	co.Logger = nil
	co.TempDir = o.TempDir
	step := max(1, p.out.Index.HxPxKeys/400)
	run := &CompactionRun{HostFactor: co.HostFactor, PathFactor: co.PathFactor}
	co.Progress = func(in, out int64) {
		if in%step == 0 {
			run.Points = append(run.Points, CompactionPoint{in, out})
		}
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		st, err := Compact(io.Discard, pr, &co)
		run.Stats = st
		pr.CloseWithError(err)
		done <- err
	}()
	bw := bufio.NewWriterSize(pw, 1<<16)
	n := 0
	err := p.lines.Each(func(line []byte, _ uint64) error {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		bw.Write(line)
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	pw.CloseWithError(err)
	cerr := <-done
	if err == nil && cerr != nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("mementomap: profile: compaction of the baseline map: %w", err)
	}
	if err != nil {
		return err
	}
	// The end: the output once the last nodes closed.
	end := CompactionPoint{run.Stats.InLines, run.Stats.OutBytes}
	if k := len(run.Points); k > 0 && run.Points[k-1].InLines == end.InLines {
		run.Points[k-1] = end
	} else {
		run.Points = append(run.Points, end)
	}
	p.out.Compaction = run
	return nil
}

// decodeKey turns a sort-key form key back into the SURT it stands for.
func decodeKey(k []byte) string { return string(appendDecoded(nil, k)) }

// appendDecoded appends to dst the SURT that the sort-key form k stands for.
func appendDecoded(dst, k []byte) []byte {
	host := true
	for i, c := range k {
		switch c {
		case sepLabel:
			if host {
				dst = append(dst, ',')
			} else {
				dst = append(dst, '/')
			}
		case sepHost:
			dst = append(dst, ')')
			host = false
		case sepQuery:
			dst = append(dst, '?')
			return append(dst, k[i+1:]...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func recordTime(ts []byte) time.Time {
	d, err := timestamp.Earliest(ts)
	if err != nil {
		return time.Time{}
	}
	return d.Time()
}

func digitString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func allDigitLabels(parts []string) bool {
	for _, s := range parts {
		if !digitString(s) {
			return false
		}
	}
	return true
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// topHeap is a min-heap of URI-Rs by mementos (the smallest on top), ties
// broken so that the SURT later in order goes first.
type topHeap []URIRCount

func (h topHeap) Len() int { return len(h) }
func (h topHeap) Less(i, j int) bool {
	if h[i].Mementos != h[j].Mementos {
		return h[i].Mementos < h[j].Mementos
	}
	return h[i].SURT > h[j].SURT
}
func (h topHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)   { *h = append(*h, x.(URIRCount)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
