// Package cdxgen generates realistic synthetic web-archive indexes: sorted
// SURT-keyed CDXJ whose shape follows the Arquivo.pt statistics of the
// MementoMap paper (Alam et al., JCDL 2019, Tables 4 and 8, restated in
// internal/spec/MEMENTOMAP.md): a few dominant TLDs (.pt first), host trees where most
// domains have no subdomain and a few have many, host sizes with a heavy
// tail, path trees whose fan-out falls with depth (≈25 first segments per
// host, then ≈7, 5, 3, ...), a share of URIs with queries, and mementos per
// URI-R with median 1, mean ≈2.5 and a long tail.
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

var scriptNames = []string{"index.php", "noticia.asp", "artigo.php", "pesquisa", "ver.aspx", "show.jsp", "page.php", "view.cfm"}

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
	left int64
	line []byte
}

// Write writes the index as sorted CDXJ to w and returns what it wrote:
// exactly cfg.Lines lines. Domains are planned first (their suffix by the
// shares above, their line budget from a heavy-tailed draw scaled to the
// total), sorted, then generated one host tree at a time.
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
			nm := g.name(1, 4)
			switch nm {
			case "com", "org", "gov", "co", "net":
				continue
			}
			k := s.key + "," + nm
			if !seen[k] {
				seen[k] = true
				doms = append(doms, domain{key: k})
			}
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
	var carry int64
	for _, dm := range doms {
		o.left = dm.budget + carry
		g.st.Domains++
		if err := g.hostTree(o, dm.key, 0); err != nil {
			return g.st, err
		}
		carry = o.left
	}
	// Whatever the trees left unused goes to extra hosts of the last
	// domain, named to sort after its other subdomains.
	for i := 0; carry > 0; i++ {
		o.left = carry
		if err := g.host(o, fmt.Sprintf("%s,zzzz%06d", doms[len(doms)-1].key, i)); err != nil {
			return g.st, err
		}
		carry = o.left
	}
	return g.st, o.w.Flush()
}

// meanLinesPerDomain sizes the number of domains planned.
const meanLinesPerDomain = 600

// hostTree writes the host key and then its subdomains in order.
func (g *Generator) hostTree(o *out, hostKey string, depth int) error {
	if o.left <= 0 {
		return nil
	}
	if depth == 0 || g.r.IntN(10) < 8 {
		if err := g.host(o, hostKey); err != nil {
			return err
		}
	}
	// Subdomains: most hosts have none, a few have many (H3 mean 8.5).
	var k int
	switch {
	case depth >= 4:
	case depth == 0 && g.r.IntN(100) < 35:
		k = g.pareto(1, 0.9, 400)
	case depth > 0 && g.r.IntN(100) < 12:
		k = g.pareto(1, 1.2, 30)
	}
	if k == 0 {
		return nil
	}
	labels := make([]string, 0, k)
	for range k {
		if g.r.IntN(3) == 0 {
			labels = append(labels, subLabels[g.r.IntN(len(subLabels))])
		} else {
			labels = append(labels, g.name(1, 3))
		}
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	for _, l := range labels {
		if strings.HasPrefix(l, "www") {
			continue // surt strips a leading www label
		}
		if err := g.hostTree(o, hostKey+","+l, depth+1); err != nil {
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

// host writes every capture of one host, sorted by key.
func (g *Generator) host(o *out, hostKey string) error {
	size := g.pareto(30, 1.15, 60000)
	if limit := int(float64(o.left)/2.46) + 1; size > limit {
		size = limit
	}
	hostName := reverseHost(hostKey)
	scheme := "http://"
	if g.r.IntN(4) == 0 {
		scheme = "https://"
	}
	seen := make(map[string]bool, size)
	var us []urir
	add := func(path, query, mime string) {
		key := hostKey + ")" + path
		url := scheme + hostName + path
		if query != "" {
			key += "?" + query
			url += "?" + query
		}
		if seen[key] {
			return
		}
		seen[key] = true
		us = append(us, urir{key, url, mime})
	}
	add("/", "", "text/html")
	// Dynamic pages: a few scripts per host answer many query strings,
	// which is why an archive has fewer HxPx keys than URI-Rs (Table 8:
	// 1.14 billion HxPx keys for 2.0 billion URI-Rs).
	scripts := make([]string, 1+min(size/150, 15))
	for i := range scripts {
		scripts[i] = "/" + words[g.r.IntN(len(words))] + "/" + scriptNames[g.r.IntN(len(scriptNames))]
	}
	// Fan-out per level (internal/spec/MEMENTOMAP.md, Table 8: P1 25.0, P2 7.25, P3 4.96, ...).
	fan := []int{0, max(3, min(400, size/6)), 9, 6, 4, 4, 3, 3, 3, 2, 2}
	for len(us) < size {
		if g.r.IntN(100) < 42 {
			sc := scripts[int(float64(len(scripts))*math.Pow(g.r.Float64(), 2))]
			add(sc, "id="+strconv.Itoa(g.r.IntN(4*size+10)), "text/html")
			if len(seen) > 4*size+100 {
				break
			}
			continue
		}
		depth := 1 + g.depth()
		var p strings.Builder
		for d := 1; d <= depth; d++ {
			p.WriteByte('/')
			// Zipf-like choice among fan[d] segment names of this level.
			f := fan[min(d, len(fan)-1)]
			i := int(float64(f) * math.Pow(g.r.Float64(), 2))
			p.WriteString(words[(i*7+d)%len(words)])
			if i >= len(words)/4 {
				p.WriteString(strconv.Itoa(i))
			}
		}
		ext := exts[g.r.IntN(len(exts))]
		if ext != "" {
			p.WriteString("/p" + strconv.Itoa(g.r.IntN(1000)) + ext)
		}
		query := ""
		if g.r.IntN(100) < 8 {
			query = "id=" + strconv.Itoa(g.r.IntN(500))
		}
		add(p.String(), query, mimeByExt[ext])
		if len(seen) > 4*size+100 {
			break
		}
	}
	slices.SortFunc(us, func(a, b urir) int { return strings.Compare(a.key, b.key) })
	g.st.Hosts++
	for _, u := range us {
		if o.left <= 0 {
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
			if o.left <= 0 {
				return nil
			}
			if err := g.line(o, u, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// depth draws a path depth 0..9 with the shares of Table 8's P1..P10.
func (g *Generator) depth() int {
	w := [...]float64{145.7, 290.8, 392.6, 215.3, 158.3, 91.3, 60.1, 31.1, 18.6, 6.8}
	total := 1410.6
	x := g.r.Float64() * total
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
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
	g.st.Lines++
	_, err := o.w.Write(b)
	return err
}
