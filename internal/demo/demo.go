// Package demo runs the project's main job offline, on the real index files
// the project ships (internal/sampledata) plus generated ones
// (internal/cdxgen): three Memento archives on 127.0.0.1 with different,
// overlapping holdings, each publishing its compacted MementoMap at
// /.well-known/mementomap; an aggregator that discovers the maps and routes
// by them; and, for comparison, the same aggregator asking every archive.
// [Run] looks up every URI-R any archive holds and as many that none holds
// and reports the upstream requests with and without routing, the share
// saved, and the recall of routing (1.0: a MementoMap never hides a
// memento). examples/demo is its command line.
package demo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/timestamp"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/internal/archiveserver"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/surt"
)

// Config sets the size of a run. A nil *Config means [DefaultConfig].
type Config struct {
	Gen     int64  // generated CDXJ lines per archive (0: none)
	Seed    uint64 // seed of the generated indexes and absent lookups
	Workers int    // lookups in flight at once, at least 1
	Rows    int    // table rows to print (0: none; < 0: all)
}

// DefaultConfig returns the configuration of `go run ./examples/demo`:
// 300 generated lines per archive, seed 1, 8 lookups at once, every row.
func DefaultConfig() *Config { return &Config{Gen: 300, Seed: 1, Workers: 8, Rows: -1} }

// part is a slice of one index: the lines of a real file or of a generated
// index whose data-line number n (0-based) has n%every == 0.
type part struct {
	real  string // sampledata name, or "" for generated
	gen   uint64 // generated index seed offset (1, 2, 3)
	every int
}

// archiveSpec is one demo archive's holdings.
type archiveSpec struct {
	id, name string
	parts    []part
}

// specs splits the shipped real indexes over three archives so that their
// holdings differ and overlap (example.com is in all three,
// commoncrawl.org in two, a third of the ipwb sample in two), and gives
// each a generated index plus a quarter of another's. The ipwb TimeMap
// file (ipwb_5mementos-timemap.cdxj) is a TimeMap, not an index, and is
// left out.
func specs() []archiveSpec {
	return []archiveSpec{
		{"ia", "Wayback-like archive", []part{
			{real: "real/openwayback_archive-org.cdx", every: 1},
			{real: "real/ia_cdxapi_from-json.cdx7", every: 1},
			{real: "real/cdxjindexer_example-warc.cdx9", every: 1},
			{real: "real/ipwb_sample-1.cdxj", every: 3},
			{gen: 1, every: 1},
		}},
		{"cc", "Common Crawl-like archive", []part{
			{real: "real/cc_commoncrawl-org_from-cdxapi.cdxj", every: 1},
			{real: "real/cdxjindexer_bad-arc.cdx", every: 1},
			{real: "real/cdxjindexer_post-append.cdxj", every: 1},
			{gen: 2, every: 1},
			{gen: 1, every: 4},
		}},
		{"wr", "Webrecorder-like archive", []part{
			{real: "real/ipwb_sample-1.cdxj", every: 1},
			{real: "real/cdxjindexer_example-warc_all-records.cdxj", every: 1},
			{gen: 3, every: 1},
			{gen: 2, every: 4},
		}},
	}
}

// slice returns the lines of b (header lines always, data lines when their
// number n has n%every == 0).
func slice(b []byte, every int) []byte {
	if every <= 1 {
		return b
	}
	var out bytes.Buffer
	n := 0
	for line := range bytes.Lines(b) {
		if len(line) > 0 && (line[0] == '!' || line[0] == ' ') {
			out.Write(line)
			continue
		}
		if n%every == 0 {
			out.Write(line)
		}
		n++
	}
	return out.Bytes()
}

// archive is one running demo archive.
type archive struct {
	spec  archiveSpec
	srv   *archiveserver.Server
	base  string
	load  archiveserver.LoadStats
	stop  func()
	conns atomic.Int64 // TCP connections accepted
}

// recorder counts, per phase and URI-R (by its SURT, since an HTTP client
// may percent-encode a character such as '^' on the way), the lookup
// requests (TimeMap and TimeGate) each archive received.
type recorder struct {
	mu    sync.Mutex
	phase int
	seen  [2]map[string][]int // phase -> URI-R -> count per archive
}

func (rc *recorder) wrap(i, n int, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw := r.RequestURI
		var urir string
		switch {
		case strings.HasPrefix(raw, archiveserver.TimeMapPrefix):
			urir = raw[len(archiveserver.TimeMapPrefix):]
		case strings.HasPrefix(raw, archiveserver.TimeGatePrefix):
			urir = raw[len(archiveserver.TimeGatePrefix):]
		}
		if urir != "" {
			if k, err := surt.Canonicalize(urir); err == nil {
				urir = k
			}
			rc.mu.Lock()
			m := rc.seen[rc.phase]
			if m[urir] == nil {
				m[urir] = make([]int, n)
			}
			m[urir][i]++
			rc.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// serve serves h on a free loopback port; the returned func shuts it down.
func serve(h http.Handler, conns *atomic.Int64) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := archiveserver.HTTPServer(h, nil, nil, nil)
	if conns != nil {
		hs.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
	}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}, nil
}

// lookup is one URI-R the demo asks about.
type lookup struct {
	url     string
	key     string
	real    bool  // held in the shipped real indexes (not only generated ones)
	holders []int // archives holding it (from their indexes)
	truth   int   // distinct URI-Ms the holders list for it

	routed, all result
}

// result is one aggregator answer.
type result struct {
	status    int
	asked     []int // archives that received a request for it
	answering []int // archives whose URI-Ms are in the answer
	urims     map[string]bool
	err       error
}

// Summary is what a run measured.
type Summary struct {
	Held, Absent   int
	RequestsRouted int
	RequestsAll    int
	Saved          float64 // 1 - RequestsRouted/RequestsAll
	MementosRouted int     // URI-Ms listed with routing
	MementosAll    int     // URI-Ms listed asking every archive
	MementosTruth  int     // URI-Ms the indexes hold for the lookups
	Recall         float64 // routed ∩ all / all
	Failures       int     // lookups answered other than 200/404, or with a transport error
	Elapsed        time.Duration
}

// Run runs the whole job with cfg (nil means the defaults: see Config) and
// writes its report to out: one row per URI-R looked up (archives asked,
// skipped, answering; mementos found), at most cfg.Rows of them, then the
// totals. The error is that of starting the archives or the aggregators;
// lookups that fail are counted in Summary.Failures.
func Run(ctx context.Context, cfg *Config, out io.Writer) (Summary, error) {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	if cfg.Gen < 0 || cfg.Workers < 1 {
		return Summary{}, fmt.Errorf("demo: Gen must be >= 0 and Workers >= 1 (have %d and %d)", cfg.Gen, cfg.Workers)
	}
	start := time.Now()
	var sum Summary
	specs := specs()
	n := len(specs)

	gens := map[uint64][]byte{}
	for _, sp := range specs {
		for _, p := range sp.parts {
			if p.real == "" && gens[p.gen] == nil {
				var b bytes.Buffer
				if _, err := cdxgen.New(cdxgen.Config{Lines: cfg.Gen, Seed: cfg.Seed*10 + p.gen}).Write(&b); err != nil {
					return sum, err
				}
				gens[p.gen] = b.Bytes()
			}
		}
	}

	rec := &recorder{seen: [2]map[string][]int{{}, {}}}
	archives := make([]*archive, n)
	defer func() {
		for _, a := range archives {
			if a != nil && a.stop != nil {
				a.stop()
			}
		}
	}()
	for i, sp := range specs {
		var inputs []cdxj.Searcher
		for _, p := range sp.parts {
			var b []byte
			name := p.real
			if p.real != "" {
				var err error
				if b, err = sampledata.ReadFile(p.real); err != nil {
					return sum, err
				}
			} else {
				b = gens[p.gen]
				name = fmt.Sprintf("generated-%d", p.gen)
			}
			inputs = append(inputs, cdxj.NewStream(name, bytes.NewReader(slice(b, p.every)), nil))
		}
		idx, st, err := archiveserver.LoadIndex(ctx, inputs, &archiveserver.LoadOptions{Map: &mementomap.BuildOptions{ArchiveID: sp.id, Name: sp.id}})
		if err != nil {
			return sum, err
		}
		srv, err := archiveserver.New(ctx, idx, &archiveserver.Options{ID: sp.id})
		if err != nil {
			return sum, err
		}
		a := &archive{spec: sp, srv: srv, load: st}
		a.base, a.stop, err = serve(rec.wrap(i, n, srv), &a.conns)
		if err != nil {
			return sum, err
		}
		archives[i] = a
	}

	lookups, err := plan(ctx, cfg, archives)
	if err != nil {
		return sum, err
	}
	for _, l := range lookups {
		if len(l.holders) > 0 {
			sum.Held++
		} else {
			sum.Absent++
		}
		sum.MementosTruth += l.truth
	}

	mapDir, err := os.MkdirTemp("", "mementokit-demo-")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(mapDir)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	upstream := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()

	newAgg := func(routing bool) (*aggregator.Aggregator, error) {
		var list []aggregator.Archive
		for _, a := range archives {
			ar := aggregator.Archive{ID: a.spec.id, Name: a.spec.name,
				TimeMap: a.base + archiveserver.TimeMapPrefix, TimeGate: a.base + archiveserver.TimeGatePrefix}
			if routing {
				ar.Map = aggregator.MapSource{Discover: true}
			}
			list = append(list, ar)
		}
		ag, err := aggregator.New(&aggregator.Options{Archives: list, HTTPClient: upstream, MapDir: mapDir})
		if err != nil {
			return nil, err
		}
		if routing {
			if err := ag.LoadMaps(ctx); err != nil {
				ag.Close()
				return nil, fmt.Errorf("loading the archives' MementoMaps: %w", err)
			}
		}
		return ag, nil
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Workers}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	var routedStats []aggregator.Stats
	for phase, routing := range []bool{true, false} {
		ag, err := newAgg(routing)
		if err != nil {
			return sum, err
		}
		base, stop, err := serve(ag.Handler(), nil)
		if err != nil {
			ag.Close()
			return sum, err
		}
		rec.mu.Lock()
		rec.phase = phase
		rec.mu.Unlock()
		before := lookupRequests(archives)
		err = runLookups(ctx, client, base, cfg.Workers, lookups, archives, routing)
		if routing {
			routedStats = ag.Stats()
		}
		stop()
		ag.Close()
		if err != nil {
			return sum, err
		}
		served := lookupRequests(archives) - before
		attributed := 0
		for _, l := range lookups {
			res := &l.all
			if routing {
				res = &l.routed
			}
			counts := rec.seen[phase][l.key]
			for i, c := range counts {
				if c > 0 {
					res.asked = append(res.asked, i)
				}
				attributed += c
			}
		}
		if attributed != served {
			return sum, fmt.Errorf("the archives served %d lookup requests, %d of them for the demo's URI-Rs", served, attributed)
		}
		if routing {
			sum.RequestsRouted = served
		} else {
			sum.RequestsAll = served
		}
	}

	inter := 0
	for _, l := range lookups {
		sum.MementosRouted += len(l.routed.urims)
		sum.MementosAll += len(l.all.urims)
		for u := range l.all.urims {
			if l.routed.urims[u] {
				inter++
			}
		}
		if l.routed.err != nil || l.all.err != nil {
			sum.Failures++
		}
	}
	sum.Recall = 1
	if sum.MementosAll > 0 {
		sum.Recall = float64(inter) / float64(sum.MementosAll)
	}
	if sum.RequestsAll > 0 {
		sum.Saved = 1 - float64(sum.RequestsRouted)/float64(sum.RequestsAll)
	}
	sum.Elapsed = time.Since(start)
	report(out, cfg, archives, routedStats, lookups, sum)
	return sum, nil
}

// lookupRequests returns the TimeMap and TimeGate requests the archives
// served so far.
func lookupRequests(archives []*archive) int {
	n := 0
	for _, a := range archives {
		st := a.srv.Stats()
		n += int(st.TimeMap + st.TimeGate)
	}
	return n
}

// plan lists the lookups: every URI-R any archive holds (by SURT, in
// byte-wise order), then as many that none holds: a path no archive has on
// each real host, then the generator's plausible absent URIs (other paths
// on held hosts, hosts it never makes), all deterministic.
func plan(ctx context.Context, cfg *Config, archives []*archive) ([]*lookup, error) {
	realKeys, err := realHoldings(ctx)
	if err != nil {
		return nil, err
	}
	byKey := map[string]*lookup{}
	for i, a := range archives {
		for u := range a.srv.Index().All() {
			l := byKey[u.Key]
			if l == nil {
				l = &lookup{key: u.Key, url: u.URL, real: realKeys[u.Key]}
				byKey[u.Key] = l
			}
			if l.url == "" {
				l.url = u.URL
			}
			l.holders = append(l.holders, i)
		}
	}
	var held []*lookup
	for _, l := range byKey {
		if l.url == "" {
			return nil, fmt.Errorf("held URI-R %s has no URL that reaches it", l.key)
		}
		held = append(held, l)
	}
	sort.Slice(held, func(i, j int) bool {
		if held[i].real != held[j].real {
			return held[i].real
		}
		return held[i].key < held[j].key
	})
	for _, l := range held {
		urims := map[string]bool{}
		for _, i := range l.holders {
			caps, err := archives[i].srv.Index().Lookup(l.url)
			if err != nil {
				return nil, err
			}
			for _, c := range caps {
				urims[archives[i].base+"/"+timestamp.Format(c.Time)+"/"+c.URL] = true
			}
		}
		l.truth = len(urims)
	}

	want := len(held)
	var absent []*lookup
	addAbsent := func(u string, real bool) {
		if len(absent) >= want {
			return
		}
		k, err := surt.Canonicalize(u)
		if err != nil || byKey[k] != nil {
			return
		}
		l := &lookup{key: k, url: u, real: real}
		byKey[k] = l
		absent = append(absent, l)
	}
	hosts := map[string]bool{}
	for _, l := range held {
		if !l.real {
			continue
		}
		if u, err := url.Parse(l.url); err == nil {
			hosts[u.Scheme+"://"+u.Host] = true
		}
	}
	var hostList []string
	for h := range hosts {
		hostList = append(hostList, h)
	}
	sort.Strings(hostList)
	for _, h := range hostList {
		addAbsent(h+"/never-archived/", true)
	}
	for g := uint64(1); g <= 3 && len(absent) < want; g++ {
		var b bytes.Buffer
		_, err := cdxgen.WriteLookups(&b, cdxgen.Config{Lines: cfg.Gen, Seed: cfg.Seed*10 + g},
			cdxgen.LookupConfig{N: want, Held: 0})
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(&b)
		for sc.Scan() && len(absent) < want {
			addAbsent(sc.Text(), false)
		}
	}
	sort.Slice(absent, func(i, j int) bool {
		if absent[i].real != absent[j].real {
			return absent[i].real
		}
		return absent[i].key < absent[j].key
	})
	return append(held, absent...), nil
}

// realHoldings returns the SURT keys of every shipped real index the demo
// uses.
func realHoldings(ctx context.Context) (map[string]bool, error) {
	var inputs []cdxj.Searcher
	seen := map[string]bool{}
	for _, sp := range specs() {
		for _, p := range sp.parts {
			if p.real == "" || seen[p.real] {
				continue
			}
			seen[p.real] = true
			b, err := sampledata.ReadFile(p.real)
			if err != nil {
				return nil, err
			}
			inputs = append(inputs, cdxj.NewStream(p.real, bytes.NewReader(b), nil))
		}
	}
	idx, _, err := archiveserver.LoadIndex(ctx, inputs, nil)
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for u := range idx.All() {
		keys[u.Key] = true
	}
	return keys, nil
}

// runLookups asks the aggregator at base for the TimeMap of every lookup,
// workers at a time.
func runLookups(ctx context.Context, client *http.Client, base string, workers int, lookups []*lookup, archives []*archive, routing bool) error {
	next := atomic.Int64{}
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(lookups) || ctx.Err() != nil {
					return
				}
				l := lookups[i]
				res := &l.all
				if routing {
					res = &l.routed
				}
				if err := ask(ctx, client, base, l.url, archives, res); err != nil && ctx.Err() != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := ctx.Err(); err != nil {
		return err
	}
	return <-errc
}

// ask fetches one TimeMap from the aggregator into res; a transport error
// or an unexpected status is kept in res.err.
func ask(ctx context.Context, client *http.Client, base, uriR string, archives []*archive, res *result) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/timemap/link/"+uriR, nil)
	if err != nil {
		res.err = err
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		res.err = err
		return err
	}
	defer resp.Body.Close()
	res.status = resp.StatusCode
	res.urims = map[string]bool{}
	switch resp.StatusCode {
	case http.StatusNotFound:
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	case http.StatusOK:
	default:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		res.err = fmt.Errorf("%s: HTTP %d (%s) %s", uriR, resp.StatusCode, resp.Header.Get("Archive-Failures"), bytes.TrimSpace(b))
		return nil
	}
	tm, err := memento.ReadTimeMap(resp.Body, nil)
	if err != nil {
		res.err = fmt.Errorf("%s: %w", uriR, err)
		return nil
	}
	seen := make([]bool, len(archives))
	for _, m := range tm.Mementos {
		res.urims[m.URIM] = true
		for i, a := range archives {
			if strings.HasPrefix(m.URIM, a.base+"/") {
				seen[i] = true
			}
		}
	}
	for i, s := range seen {
		if s {
			res.answering = append(res.answering, i)
		}
	}
	return nil
}

func ids(archives []*archive, idx []int) string {
	if len(idx) == 0 {
		return "-"
	}
	s := make([]string, len(idx))
	for i, j := range idx {
		s[i] = archives[j].spec.id
	}
	return strings.Join(s, ",")
}
