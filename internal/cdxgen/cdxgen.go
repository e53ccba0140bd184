// Package cdxgen generates realistic synthetic web-archive indexes: sorted
// SURT-keyed CDXJ whose shape follows the Arquivo.pt statistics of the
// MementoMap paper (Alam et al., JCDL 2019, Tables 4 and 8, restated in
// internal/spec/MEMENTOMAP.md): a few dominant TLDs (.pt first), host trees where most
// domains have no subdomain and a few have many, host sizes with a heavy
// tail, path trees whose fan-out falls with depth, a share of URIs with
// queries, and mementos per URI-R with median 1, mean ≈2.5 and a long tail.
// Both trees are drawn as branching processes with Table 8's mean children
// per parent and share of parents per depth, so that a profile of the
// output (mementomap.Profile) finds them again: 25 first segments per
// host, then 7.3, 5.0, 3.3, 3.3, 2.7, 2.5, 2.1, 2.0 (host depths need
// millions of lines to show, as they have few parents). Domain names are
// drawn until unique, so the number of hosts grows with the lines asked
// for and the trees keep their shape at any size: seed 1 gives P1 means of
// 27.5 at 1 M lines and 27.7 at 16 M (internal/bench/profile).
//
// Output is deterministic for a seed, already in byte-wise key order (one
// host tree at a time), and streams: memory holds one host's URI-Rs.
// Every key equals surt.Canonicalize of its record's URL, so lookups by URL
// and by key agree. [WriteLookups] writes lookup URIs for evaluations and
// benchmarks, with a stated share of held ones.
package cdxgen

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Config sets up a generator.
type Config struct {
	Lines int64  // number of CDXJ lines to write
	Seed  uint64 // the same seed gives the same index
}

// Stats describes a generated index.
type Stats struct {
	Lines   int64 // CDXJ lines written (mementos)
	URIRs   int64 // distinct URI-Rs (full SURTs)
	Hosts   int64 // distinct hosts with at least one line
	Domains int64 // registered domains generated
}

// suffixes are the public suffixes hosts are registered under, with their
// share of lines (Arquivo.pt is mostly .pt).
var suffixes = []struct {
	key    string
	weight float64
}{
	{"br,com", 0.02}, {"com", 0.20}, {"de", 0.02}, {"es", 0.02}, {"eu", 0.02},
	{"fr", 0.02}, {"info", 0.01}, {"io", 0.01}, {"net", 0.04}, {"org", 0.05},
	{"pt", 0.45}, {"pt,com", 0.05}, {"pt,gov", 0.02}, {"pt,org", 0.03}, {"uk,co", 0.04},
}

var syllables = []string{"sa", "po", "pu", "bli", "co", "rt", "no", "ti", "ci", "as", "jor", "nal",
	"ex", "pres", "so", "di", "ar", "io", "ma", "ga", "zi", "ne", "lis", "boa", "por", "to", "ve", "la",
	"fa", "ro", "mun", "do", "ter", "ra", "luz", "mar", "sol", "ca", "sa", "be", "ja", "ki", "um"}

var subLabels = []string{"m", "blog", "mail", "news", "desporto", "static", "img", "cdn", "api",
	"loja", "forum", "tv", "radio", "arquivo", "wiki", "dev", "shop", "media", "fotos", "eventos"}

var words = []string{"noticias", "artigo", "sociedade", "politica", "desporto", "cultura", "economia",
	"img", "images", "css", "js", "static", "media", "pt", "en", "index", "home", "sobre", "contactos",
	"produtos", "loja", "categoria", "tag", "autor", "pagina", "arquivo", "2010", "2012", "2015", "2018",
	"videos", "fotos", "blog", "post", "forum", "topico", "user", "docs", "download", "uploads"}

var exts = []string{".html", ".htm", ".php", ".asp", ".jpg", ".png", ".gif", ".css", ".js", ".pdf", "", "", ""}

var mimeByExt = map[string]string{".html": "text/html", ".htm": "text/html", ".php": "text/html",
	".asp": "text/html", ".jpg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
	".css": "text/css", ".js": "application/javascript", ".pdf": "application/pdf", "": "text/html"}

// Generator writes one synthetic index.
type Generator struct {
	cfg Config
	r   *rand.Rand
	st  Stats

	// OnURIR, when set, is called for every URI-R written, with its SURT
	// key and URL (used for sampling held lookups).
	OnURIR func(key, url string)
}

// New returns a Generator for cfg.
func New(cfg Config) *Generator {
	return &Generator{cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))}
}

// pareto returns floor(xm·U^(−1/α)), capped.
func (g *Generator) pareto(xm, alpha float64, max int) int {
	u := 1 - g.r.Float64()
	v := xm * math.Pow(u, -1/alpha)
	if v > float64(max) {
		return max
	}
	return int(v)
}

func (g *Generator) name(minSyl, maxSyl int) string {
	n := minSyl + g.r.IntN(maxSyl-minSyl+1)
	var b strings.Builder
	for range n {
		b.WriteString(syllables[g.r.IntN(len(syllables))])
	}
	if g.r.IntN(8) == 0 {
		b.WriteString(strconv.Itoa(g.r.IntN(100)))
	}
	return b.String()
}

// mementos draws the number of captures of one URI-R: a discrete Pareto
// with α = 1.55, so P(1) ≈ 0.66 (median 1) and a mean near the paper's 2.46.
func (g *Generator) mementos() int { return g.pareto(1, 1.55, 5000) }

// writer state
type out struct {
	w    *bufio.Writer
	left int64 // lines left in the current domain's budget (may go below 0)
	rem  int64 // lines left to write in all
	line []byte
}

// Write writes the index as sorted CDXJ to w and returns what it wrote:
// exactly cfg.Lines lines. Domains are planned first (their suffix by the
// shares above, their line budget from a heavy-tailed draw scaled to the
// total), sorted, then generated one host tree at a time.
// Its only errors are w's: writing stops at the first, and the Stats
// returned count what was generated before it.
func (g *Generator) Write(w io.Writer) (Stats, error) {
	o := &out{w: bufio.NewWriterSize(w, 1<<20)}
	n := g.cfg.Lines
	if n <= 0 {
		return g.st, nil
	}
	d := max(1, int(n/meanLinesPerDomain))
	type domain struct {
		key    string
		budget int64
	}
	var doms []domain
	seen := map[string]bool{}
	for _, s := range suffixes {
		c := max(1, int(math.Round(float64(d)*s.weight)))
		for range c {
			// A name drawn twice (or one that is a suffix label) is drawn
			// again: dropping it would leave fewer domains, so fewer
			// hosts, the more lines are asked for (1-syllable names run
			// out first), and every host, its path tree with it, larger.
			k := ""
			for k == "" || seen[k] {
				switch nm := g.name(1, 4); nm {
				case "com", "org", "gov", "co", "net":
				default:
					k = s.key + "," + nm
				}
			}
			seen[k] = true
			doms = append(doms, domain{key: k})
		}
	}
	// Budgets: Pareto draws scaled to sum to n.
	var sum float64
	draws := make([]float64, len(doms))
	for i := range draws {
		draws[i] = 1 / math.Pow(1-g.r.Float64(), 1/1.2)
		sum += draws[i]
	}
	var given int64
	for i := range doms {
		doms[i].budget = int64(float64(n) * draws[i] / sum)
		given += doms[i].budget
	}
	doms[0].budget += n - given
	slices.SortFunc(doms, func(a, b domain) int { return strings.Compare(a.key, b.key) })
	o.rem = n
	var carry int64
	for _, dm := range doms {
		if o.rem <= 0 {
			break
		}
		// A domain's tree is drawn whatever its budget; the budget sizes
		// its hosts, and what it over- or underspends carries on.
		b := max(dm.budget+carry, dm.budget/4, 1)
		o.left = b
		g.st.Domains++
		if err := g.hostTree(o, dm.key, 0, b); err != nil {
			return g.st, err
		}
		carry = dm.budget + carry - (b - o.left)
	}
	// Whatever the trees left unused goes to extra hosts of the last
	// domain, named to sort after its other subdomains.
	for i := 0; o.rem > 0; i++ {
		o.left = max(o.rem, 1)
		if err := g.host(o, fmt.Sprintf("%s,zzzz%06d", doms[len(doms)-1].key, i), min(o.rem, 5000)); err != nil {
			return g.st, err
		}
	}
	return g.st, o.w.Flush()
}

// meanLinesPerDomain sizes the number of domains planned: about 2.8 hosts
// per domain (the host tree below) of about 900 lines each (Arquivo.pt:
// 5.0 billion lines over 5.8 million hosts).
const meanLinesPerDomain = 2500

// The host tree after Table 8 (internal/spec/MEMENTOMAP.md): hostParent[h]
// is the share of hosts h labels below the registered domain that have
// subdomains, hostChildren[h] the mean number they have (H3 8.53, H4 8.95,
// H5 7.77, H6 6.28, H7 3.42, H8 4.55 children per parent).
var (
	hostParent   = [...]float64{0.12, 0.069, 0.024, 0.067, 0.097, 0}
	hostChildren = [...]float64{8.53, 8.95, 7.77, 6.28, 3.42, 0}
)

// The path tree after Table 8: pathChildren[d] is the mean number of
// children at depth d of a parent at depth d−1 (P1 25.00, P2 7.25, ...),
// pathParent[d] the share of nodes at depth d that are parents (Table 8's
// Children ÷ MeanChld of the next depth over its Count: P1 0.275, ...).
var (
	pathChildren = [...]float64{0, 25.00, 7.25, 4.96, 3.26, 3.29, 2.70, 2.48, 2.09, 2.01, 2.0}
	pathParent   = [...]float64{1, 0.275, 0.272, 0.168, 0.223, 0.214, 0.265, 0.248, 0.30, 0.18, 0}
	// pathNodesPerChild is the expected number of nodes in the subtree of
	// one P1 node: 1 + p1·m2·(1 + p2·m3·(1 + …)).
	pathNodesPerChild = func() float64 {
		e := 1.0 // E_d = 1 + pathParent[d]·pathChildren[d+1]·E_{d+1}, from the deepest up to P1
		for d := len(pathChildren) - 2; d >= 1; d-- {
			e = 1 + pathParent[d]*pathChildren[d+1]*e
		}
		return e
	}()
)

// children draws a number of children with the given mean, at least 1: a
// geometric draw on 1, 2, 3, ... (the mean of 1 + Geometric(1/m)).
func (g *Generator) children(mean float64) int {
	if mean <= 1 {
		return 1
	}
	p := 1 / mean
	u := 1 - g.r.Float64()
	return 1 + int(math.Log(u)/math.Log(1-p))
}

// hostTree writes the host key and then its subdomains in order; budget
// is the lines the subtree should hold, shared among its hosts.
func (g *Generator) hostTree(o *out, hostKey string, depth int, budget int64) error {
	if o.rem <= 0 {
		return nil
	}
	var labels []string
	if depth < len(hostParent) && g.r.Float64() < hostParent[depth] {
		k := g.children(hostChildren[depth])
		for range k {
			if g.r.IntN(3) == 0 {
				labels = append(labels, subLabels[g.r.IntN(len(subLabels))]+strconv.Itoa(g.r.IntN(40)))
			} else {
				labels = append(labels, g.name(1, 3))
			}
		}
		slices.Sort(labels)
		labels = slices.Compact(labels)
		labels = slices.DeleteFunc(labels, func(l string) bool { return strings.HasPrefix(l, "www") }) // surt strips a leading www label
	}
	// The budget: this host one share, each subdomain's tree another
	// (heavy-tailed shares).
	w := make([]float64, len(labels)+1)
	var sum float64
	for i := range w {
		w[i] = 1 / math.Pow(1-g.r.Float64(), 1/1.5)
		sum += w[i]
	}
	if err := g.host(o, hostKey, max(1, int64(float64(budget)*w[0]/sum))); err != nil {
		return err
	}
	for i, l := range labels {
		if err := g.hostTree(o, hostKey+","+l, depth+1, max(1, int64(float64(budget)*w[i+1]/sum))); err != nil {
			return err
		}
	}
	return nil
}

func reverseHost(hostKey string) string {
	parts := strings.Split(hostKey, ",")
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

type urir struct {
	key, url, mime string
}

// segment names the i-th child of a path node: distinct for distinct i.
func segment(i, salt int) string {
	w := words[(i+salt)%len(words)]
	if r := i / len(words); r > 0 {
		return w + strconv.Itoa(r)
	}
	return w
}

// host writes every capture of one host, sorted by key, about budget lines.
func (g *Generator) host(o *out, hostKey string, budget int64) error {
	// URI-Rs: about 2.46 lines each; 42 % of them are query strings of a
	// few dynamic pages, which is why an archive has fewer HxPx keys than
	// URI-Rs (Table 8: 1.14 billion HxPx keys for 2.0 billion URI-Rs).
	size := min(int(float64(budget)/2.46)+1, 200000)
	pathKeys := int(float64(size) * 0.58)
	hostName := reverseHost(hostKey)
	scheme := "http://"
	if g.r.IntN(4) == 0 {
		scheme = "https://"
	}
	var us []urir
	add := func(path, query, mime string) {
		key := hostKey + ")" + path
		url := scheme + hostName + path
		if query != "" {
			key += "?" + query
			url += "?" + query
		}
		us = append(us, urir{key, url, mime})
	}
	add("/", "", "text/html")
	// The path tree: C1 first segments, C1 sized so that the tree holds
	// about pathKeys nodes; then each node is a parent with the share and
	// mean children of its depth.
	var leaves []string
	var grow func(prefix string, d, n int)
	grow = func(prefix string, d, n int) {
		salt := g.r.IntN(len(words))
		for i := range n {
			seg := segment(i, salt)
			if d < len(pathParent)-1 && g.r.Float64() < pathParent[d] {
				p := prefix + "/" + seg
				if g.r.IntN(3) == 0 {
					add(p, "", "text/html") // the directory is a page too
				}
				grow(p, d+1, g.children(pathChildren[d+1]))
				continue
			}
			ext := exts[g.r.IntN(len(exts))]
			p := prefix + "/" + seg + ext
			add(p, "", mimeByExt[ext])
			if mimeByExt[ext] == "text/html" {
				leaves = append(leaves, p)
			}
		}
	}
	if c1 := int(math.Round(float64(pathKeys) / pathNodesPerChild)); c1 > 0 {
		grow("", 1, c1)
	} else if pathKeys > 0 {
		grow("", 1, 1)
	}
	// Dynamic pages: a few leaves answer many query strings.
	if q := size - len(us); q > 0 && len(leaves) > 0 {
		scripts := leaves[:min(len(leaves), 1+min(len(leaves)/20, 15))]
		for i := range q {
			sc := scripts[int(float64(len(scripts))*math.Pow(g.r.Float64(), 2))]
			add(sc, "id="+strconv.Itoa(i), "text/html")
		}
	}
	slices.SortFunc(us, func(a, b urir) int { return strings.Compare(a.key, b.key) })
	us = slices.CompactFunc(us, func(a, b urir) bool { return a.key == b.key })
	g.st.Hosts++
	for _, u := range us {
		if o.rem <= 0 {
			return nil
		}
		g.st.URIRs++
		if g.OnURIR != nil {
			g.OnURIR(u.key, u.url)
		}
		m := g.mementos()
		ts := make([]int64, m)
		for i := range ts {
			ts[i] = int64(1996+g.r.IntN(23))*10000000000 + int64(1+g.r.IntN(12))*100000000 +
				int64(1+g.r.IntN(28))*1000000 + int64(g.r.IntN(24))*10000 + int64(g.r.IntN(60))*100 + int64(g.r.IntN(60))
		}
		slices.Sort(ts)
		for _, t := range ts {
			if o.rem <= 0 {
				return nil
			}
			if err := g.line(o, u, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *Generator) line(o *out, u urir, ts int64) error {
	status, mime := "200", u.mime
	switch x := g.r.IntN(100); {
	case x < 5:
		status, mime = "-", "warc/revisit"
	case x < 11:
		status = "301"
	case x < 14:
		status = "302"
	case x < 17:
		status = "404"
	}
	b := o.line[:0]
	b = append(b, u.key...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, ` {"url": "`...)
	b = append(b, u.url...)
	b = append(b, `", "mime": "`...)
	b = append(b, mime...)
	b = append(b, `", "status": "`...)
	b = append(b, status...)
	b = append(b, `", "digest": "sha1:`...)
	b = fmt.Appendf(b, "%032X", g.r.Uint64())
	b = append(b, `", "length": "`...)
	b = strconv.AppendInt(b, 400+int64(g.r.IntN(90000)), 10)
	b = append(b, `", "offset": "`...)
	b = strconv.AppendInt(b, int64(g.r.IntN(1<<30)), 10)
	b = append(b, `", "filename": "arquivo-`...)
	b = strconv.AppendInt(b, ts/1000000, 10)
	b = append(b, `.warc.gz"}`...)
	b = append(b, '\n')
	o.line = b
	o.left--
	o.rem--
	g.st.Lines++
	_, err := o.w.Write(b)
	return err
}
