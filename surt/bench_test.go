package surt

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// generatedCorpus returns n URLs made deterministically from seed, shaped
// like the URLs of a web crawl: http or https; a www, www2 or other
// subdomain on a third of the hosts; common and country-code TLDs including
// two-label suffixes; 0-5 path segments of words, numbers and dates, some
// with file extensions or a trailing slash; a query with 1-5 unsorted
// arguments on a third of them (some percent-escaped values); occasional
// ports, fragments, upper-case letters, session ids and IDN hosts.
func generatedCorpus(n int, seed int64) []string {
	r := rand.New(rand.NewSource(seed))
	syll := []string{"ar", "chive", "news", "blog", "web", "data", "net", "ex", "am", "ple", "lis", "bo", "port", "uni", "ver", "si", "ty", "gov", "shop", "media", "info", "tech", "co", "de", "sol"}
	tlds := []string{"com", "com", "com", "org", "net", "pt", "de", "fr", "co.uk", "ac.uk", "jp", "co.jp", "io", "edu", "gov", "com.br", "nl", "it"}
	subs := []string{"www.", "www.", "www.", "www2.", "blog.", "m.", "news.", "en.", "static."}
	words := []string{"index", "about", "news", "2019", "2021", "article", "images", "img", "css", "js", "search", "category", "products", "item", "view", "page", "en", "pt", "docs", "wiki", "Main_Page", "user", "profile", "archive", "tag"}
	exts := []string{".html", ".htm", ".php", ".asp", ".jpg", ".png", ".pdf", ".css", ".js", ""}
	keys := []string{"id", "page", "q", "lang", "utm_source", "sort", "ref", "s", "p", "cat", "year", "format"}
	vals := []string{"1", "42", "en", "pt", "news", "desc", "twitter", "2020-01-01", "a%20b", "caf%C3%A9", "x%2Fy", "true", "Search+Term", ""}
	idn := []string{"bücher.de", "müller.ch", "café.fr", "пример.рф", "例え.jp"}
	var b strings.Builder
	out := make([]string, n)
	for i := range out {
		b.Reset()
		if r.Intn(10) < 7 {
			b.WriteString("http://")
		} else {
			b.WriteString("https://")
		}
		if r.Intn(3) == 0 {
			b.WriteString(subs[r.Intn(len(subs))])
		}
		if r.Intn(200) == 0 {
			b.WriteString(idn[r.Intn(len(idn))])
		} else {
			for k := 1 + r.Intn(3); k > 0; k-- {
				b.WriteString(syll[r.Intn(len(syll))])
			}
			b.WriteByte('.')
			b.WriteString(tlds[r.Intn(len(tlds))])
		}
		if r.Intn(50) == 0 {
			b.WriteString(":8080")
		} else if r.Intn(30) == 0 {
			b.WriteString(":80")
		}
		segs := r.Intn(6)
		for k := 0; k < segs; k++ {
			b.WriteByte('/')
			switch r.Intn(5) {
			case 0:
				b.WriteString(strconv.Itoa(r.Intn(100000)))
			default:
				b.WriteString(words[r.Intn(len(words))])
			}
		}
		switch {
		case segs > 0 && r.Intn(3) == 0:
			b.WriteString(exts[r.Intn(len(exts))])
		case r.Intn(4) == 0:
			b.WriteByte('/')
		}
		if r.Intn(3) == 0 {
			b.WriteByte('?')
			for k := 1 + r.Intn(5); k > 0; k-- {
				b.WriteString(keys[r.Intn(len(keys))])
				b.WriteByte('=')
				b.WriteString(vals[r.Intn(len(vals))])
				if k > 1 {
					b.WriteByte('&')
				}
			}
			if r.Intn(100) == 0 {
				b.WriteString("&jsessionid=0123456789ABCDEF0123456789ABCDEF")
			}
		}
		if r.Intn(20) == 0 {
			b.WriteString("#top")
		}
		s := b.String()
		if r.Intn(20) == 0 {
			s = strings.ToUpper(s[:len(s)/2]) + s[len(s)/2:]
		}
		out[i] = s
	}
	return out
}

// realURLs returns the original URLs of the shipped real index files (2,000+
// lines, many repeated, as in an index).
func realURLs(b testing.TB) []string {
	var out []string
	for _, p := range realKeyedURLs(b) {
		out = append(out, p.url)
	}
	return out
}

func avgLen(urls []string) int64 {
	n := 0
	for _, u := range urls {
		n += len(u)
	}
	return int64(n / len(urls))
}

// BenchmarkCanonicalize measures Default.Canonicalize (one URL per op,
// result string allocated) on the real index URLs and on a generated
// 100,000-URL corpus. Target: at least 1,000,000 URLs/s on one core and at
// most 4 allocations per URL. Run with -cpu 1.
func BenchmarkCanonicalize(b *testing.B) {
	for _, c := range []struct {
		name string
		urls []string
	}{{"real", realURLs(b)}, {"generated100k", generatedCorpus(100000, 1)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(avgLen(c.urls))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Canonicalize(c.urls[i%len(c.urls)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "urls/s")
		})
	}
}

// BenchmarkAppendCanonical is the allocation-free path: keys appended to a
// reused buffer.
func BenchmarkAppendCanonical(b *testing.B) {
	urls := generatedCorpus(100000, 1)
	for _, p := range []*Profile{Default, Fixed} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(avgLen(urls))
			var buf []byte
			var err error
			for i := 0; i < b.N; i++ {
				if buf, err = p.AppendCanonical(buf[:0], urls[i%len(urls)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "urls/s")
		})
	}
}

// BenchmarkLookupKeys measures the wildcard candidates of a typical key.
func BenchmarkLookupKeys(b *testing.B) {
	b.ReportAllocs()
	var dst []string
	for i := 0; i < b.N; i++ {
		dst = LookupKeys(dst[:0], "uk,co,example,news)/2021/05/article/index.html")
	}
}

// TestGeneratedCorpusCanonicalizes keeps the benchmark corpus honest: every
// generated URL canonicalizes, and the corpus is deterministic.
func TestGeneratedCorpusCanonicalizes(t *testing.T) {
	a, b := generatedCorpus(2000, 1), generatedCorpus(2000, 1)
	for i, u := range a {
		if u != b[i] {
			t.Fatalf("corpus not deterministic at %d: %q vs %q", i, u, b[i])
		}
		if _, err := Canonicalize(u); err != nil {
			t.Fatalf("%q: %v", u, err)
		}
	}
}
