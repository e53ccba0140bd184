package cdxgen

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/surt"
)

// LookupConfig sets up [WriteLookups].
type LookupConfig struct {
	N    int     // number of lookup URIs
	Held float64 // share of them held by the index, in [0, 1]
	SURT bool    // write SURT keys instead of URLs
}

// LookupStats tells what [WriteLookups] wrote.
type LookupStats struct {
	Held, Absent int
}

// WriteLookups writes cfg's index's lookup URIs to w, one per line, in a
// random order: round(N·Held) URI-Rs sampled uniformly from the index
// (reservoir sampling while the index is generated, not written), and the
// rest absent but plausible, half other paths on held hosts (a path
// segment the generator never makes) and half hosts it never makes. The
// paper's lookups came from aggregator logs, of which 1.64 % were held
// (internal/spec/MEMENTOMAP.md, "Evaluation"). Memory: the N URIs.
// Its only error is w's, returned when the buffered URIs are flushed at
// the end (the index itself is generated into io.Discard).
func WriteLookups(w io.Writer, cfg Config, lc LookupConfig) (LookupStats, error) {
	nHeld := int(math.Round(float64(lc.N) * lc.Held))
	nHeld = min(max(nHeld, 0), lc.N)
	type pair struct{ key, url string }
	res := make([]pair, 0, nHeld)
	hosts := make([]pair, 0, 256)
	r := rand.New(rand.NewPCG(cfg.Seed^0x5bd1e995, cfg.Seed+1))
	var seen int64
	g := New(cfg)
	g.OnURIR = func(key, url string) {
		seen++
		if len(res) < nHeld {
			res = append(res, pair{key, url})
		} else if j := r.Int64N(seen); j < int64(nHeld) {
			res[j] = pair{key, url}
		}
		if len(hosts) < cap(hosts) {
			hosts = append(hosts, pair{key, url})
		} else if j := r.Int64N(seen); j < int64(cap(hosts)) {
			hosts[j] = pair{key, url}
		}
	}
	if _, err := g.Write(io.Discard); err != nil {
		return LookupStats{}, err
	}
	out := make([]string, 0, lc.N)
	for _, p := range res {
		if lc.SURT {
			out = append(out, p.key)
		} else {
			out = append(out, p.url)
		}
	}
	st := LookupStats{Held: len(res)}
	tlds := []string{"pt", "com", "org", "net", "eu", "co.uk"}
	for len(out) < lc.N {
		var u string
		if len(hosts) > 0 && r.IntN(2) == 0 {
			h := hosts[r.IntN(len(hosts))].url
			i := strings.Index(h[8:], "/") + 8
			u = h[:i] + "/zq" + strconv.Itoa(r.IntN(1e6)) + "/x" + strconv.Itoa(r.IntN(1000)) + ".html"
		} else {
			u = "http://absent" + strconv.Itoa(r.IntN(1e7)) + "." + tlds[r.IntN(len(tlds))] + "/" +
				[]string{"", "index.html", "noticias/a" + strconv.Itoa(r.IntN(100))}[r.IntN(3)]
		}
		if lc.SURT {
			k, err := surt.Canonicalize(u)
			if err != nil {
				continue
			}
			u = k
		}
		out = append(out, u)
		st.Absent++
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, s := range out {
		bw.WriteString(s)
		bw.WriteByte('\n')
	}
	return st, bw.Flush()
}
