package mementomap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/ukvs"
)

// awkwardURL returns a random http(s) URL of the shapes real indexes hold
// and canonicalizers disagree on: control bytes and NUL, odd and broken
// percent escapes, upper case, "www", ports, dot segments, unsorted and
// session-id queries, non-ASCII bytes, fragments.
func awkwardURL(r *rand.Rand) string {
	schemes := []string{"http://", "https://", "HTTP://", "Https://"}
	hosts := []string{"example.com", "www.example.com", "EXAMPLE.com", "a-b.example.org", "www2.example.org",
		"xn--bcher-kva.de", "bücher.de", "127.0.0.1", "10.0.0.1", "example.co.uk", "m.example.com", "localhost"}
	ports := []string{"", "", "", ":80", ":443", ":8080"}
	segs := []string{"a", "A", "b", "index.html", "%41", "%2f", "%2F", "%zz", "%", "%0", "%00", "\x00", "\x01", "\x1f",
		"\x7f", "\t", "\xff", "ü", "%C3%BC", "%c3%bc", "%25", "%2525", "..", ".", "", "a;jsessionid=0123456789abcdef0123456789abcdef",
		"~u", "a,b", "a)b", "(", "*", "a+b", "a%20b", "a b", "\"q\"", "<x>", "\\", "^", "`", "{}", "|"}
	queries := []string{"", "", "?", "?a=1", "?b=2&a=1", "?x=%00", "?a=\x00", "?A=B&a=b", "?sid=1&x=2",
		"?PHPSESSID=0123456789abcdef0123456789abcdef", "?q=a%26b", "?q=a b", "?&&", "?=", "?x=\x01y"}
	frags := []string{"", "", "", "#f", "#\x00", "#a?b"}
	var b strings.Builder
	b.WriteString(schemes[r.IntN(len(schemes))])
	b.WriteString(hosts[r.IntN(len(hosts))])
	b.WriteString(ports[r.IntN(len(ports))])
	for range r.IntN(5) {
		b.WriteByte('/')
		b.WriteString(segs[r.IntN(len(segs))])
	}
	if r.IntN(4) == 0 {
		b.WriteByte('/')
	}
	b.WriteString(queries[r.IntN(len(queries))])
	b.WriteString(frags[r.IntN(len(frags))])
	return b.String()
}

// rawSURT is the SURT another indexer could have written for u: scheme
// and fragment cut, host lower-cased and reversed (port kept, "www" kept),
// path and query as they are, no escaping, no query sorting.
func rawSURT(u string) string {
	rest := u[strings.Index(u, "://")+3:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	host, path := strings.ToLower(rest[:end]), rest[end:]
	port := ""
	if i := strings.IndexByte(host, ':'); i >= 0 {
		host, port = host[:i], host[i:]
	}
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	if path == "" || path[0] == '?' {
		path = "/" + path
	}
	return strings.Join(labels, ",") + port + ")" + path
}

// TestLookupFindsEveryURIRBuildTook is the recall contract at the lookup
// end: for every URI-R a build took, given as its URL or as the SURT key
// its index holds (another indexer's, with control bytes, NUL, odd
// escapes, upper case and "www" left as they are), Lookup answers present.
// The index records come in three shapes: the key and the URL, the raw
// key with the URL, and the raw key alone (no URL: the build checks the key
// against the URL it stands for).
func TestLookupFindsEveryURIRBuildTook(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	type rec struct{ key, url, line string }
	var recs []rec
	for len(recs) < 600 {
		u := awkwardURL(r)
		k := rawSURT(u)
		if strings.ContainsAny(k, " \t\r\n") || strings.HasPrefix(k, "!") {
			continue // no CDXJ key can hold these
		}
		var line string
		if r.IntN(3) == 0 {
			line = k + " 20200101000000 {\"status\": \"200\"}\n"
			u = ""
		} else {
			ju, err := json.Marshal(u)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(ju, &u); err != nil { // the URL as the index holds it (invalid UTF-8 replaced)
				t.Fatal(err)
			}
			k = rawSURT(u)
			line = fmt.Sprintf("%s 20200101000000 {\"url\": %s, \"status\": \"200\"}\n", k, ju)
		}
		recs = append(recs, rec{k, u, line})
	}
	var idx strings.Builder
	for _, x := range recs {
		idx.WriteString(x.line)
	}
	built, st := buildString(t, BuildOptions{SkipBad: true}, idx.String())
	if st.Mismatched == 0 {
		t.Fatalf("no index key differed from its canonical SURT: the test asks nothing")
	}
	for _, m := range []*Map{openMap(t, built), FromBytes([]byte(built))} {
		took, nul := 0, 0
		for i, x := range recs {
			// Whether the build took this record: a build of it alone.
			_, one := buildString(t, BuildOptions{SkipBad: true}, x.line)
			if one.Used == 0 {
				continue
			}
			took++
			if strings.IndexByte(x.key, 0) >= 0 {
				nul++
			}
			ins := []string{x.key}
			if x.url != "" {
				ins = append(ins, x.url)
			}
			for _, in := range ins {
				got, err := m.Lookup(in)
				if err != nil || !got.Present() {
					t.Errorf("record %d %q: Lookup(%q) = %+v, %v; want present", i+1, x.line, in, got, err)
				}
				if got, err := m.LookupAt(in, "2020"); err != nil || !got.Present() {
					t.Errorf("record %d %q: LookupAt(%q, 2020) = %+v, %v; want present", i+1, x.line, in, got, err)
				}
			}
		}
		if took < len(recs)/2 || nul == 0 {
			t.Fatalf("the build took %d of %d records, %d with a NUL in the key: too few to test", took, len(recs), nul)
		}
	}
}

// TestLookupSURTAsOtherIndexersWriteIt pins the cases of
// TestLookupFindsEveryURIRBuildTook by hand: a SURT holding a NUL, a
// control byte, "www" or upper case finds the key the build made of it,
// and a map made by another tool that holds the SURT as given still finds
// it there.
func TestLookupSURTAsOtherIndexersWriteIt(t *testing.T) {
	idx := "com,example)/a\x00b 20200101000000 {\"url\": \"http://example.com/a\\u0000b\"}\n" +
		"com,example)/c\x01d 20200101000000 {}\n" +
		"com,example,www)/Page 20200101000000 {\"url\": \"http://www.example.com/Page\"}\n"
	built, st := buildString(t, BuildOptions{}, idx)
	if st.Used != 3 || st.Mismatched != 3 {
		t.Fatalf("build used %d, mismatched %d; want 3 and 3:\n%s", st.Used, st.Mismatched, built)
	}
	m := FromBytes([]byte(built))
	for in, want := range map[string]string{
		"com,example)/a\x00b":          "com,example)/a%00b",
		"http://example.com/a\x00b":    "com,example)/a%00b",
		"com,example)/c\x01d":          "com,example)/c%01d",
		"com,example,www)/Page":        "com,example)/page",
		"http://www.example.com/Page/": "com,example)/page",
	} {
		got, err := m.Lookup(in)
		if err != nil || !got.Present() || got.Key != want {
			t.Errorf("Lookup(%q) = %+v, %v; want present as %q", in, got, err, want)
		}
	}
	// A map that holds the SURT as given (made by another tool).
	other := FromBytes([]byte("com,example,www)/Page 1/1\n"))
	if got, err := other.Lookup("com,example,www)/Page"); err != nil || !got.Present() || got.Key != "com,example,www)/Page" {
		t.Errorf("Lookup in a map holding the SURT as given = %+v, %v; want present", got, err)
	}
	// No map holds a NUL key: LookupSURT refuses one, naming it.
	if _, err := m.LookupSURT("com,example)/a\x00b"); !errors.Is(err, ukvs.ErrNULKey) || !strings.Contains(err.Error(), "byte 14") {
		t.Errorf("LookupSURT of a NUL key: %v; want ukvs.ErrNULKey naming byte 14", err)
	}
	// LookupAll reads the same inputs as Lookup.
	var out bytes.Buffer
	bs, err := m.LookupAll(&out, strings.NewReader("com,example)/a\x00b\ncom,example)/c\x01d\n"))
	if err != nil || bs.Present != 2 || bs.Errors != 0 {
		t.Errorf("LookupAll = %+v, %v; want 2 present:\n%s", bs, err, out.String())
	}
}
