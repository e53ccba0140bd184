package surt

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// canonicalURLForm returns the URL form of raw after the Google-style and
// IA steps, and whether the standard is known to be idempotent on it: an
// http(s) URL whose canonical host is plain dotted labels of [a-z0-9-], does
// not start with a www label (removing it again would change the host) and
// is not a number that IPv4 normalization would rewrite, whose path holds no
// '?' (it would start a query when re-read) and no '(' (ASP.NET session
// patterns), and whose query holds no "id" (session-id patterns). These
// conditions were found by running the Python reference on random URLs: it
// is not idempotent outside them.
func canonicalURLForm(raw string) (string, bool) {
	sc := new(scratch)
	if raw == "" || strings.HasPrefix(raw, "filedesc") {
		return raw, false
	}
	u, err := sc.parse(raw, false)
	if err != nil {
		return "", false
	}
	sc.google(&u, false)
	sc.ia(&u, Default)
	if u.hasQuery {
		u.query, _ = appendSortedQuery(nil, u.query, nil)
	}
	f := string(appendURLForm(nil, &u))
	ok := (string(u.scheme) == "http" || string(u.scheme) == "https") && len(u.host) > 0 &&
		massageLen(u.host) == 0 && !bytes.ContainsAny(u.path, "?(") && !bytes.Contains(u.query, []byte("id"))
	if ip, isIP := ipv4Form(u.host); isIP && string(appendDottedQuad(nil, ip)) != string(u.host) {
		ok = false
	}
	for _, l := range bytes.Split(u.host, []byte(".")) {
		if len(l) == 0 {
			ok = false
		}
		for _, c := range l {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				ok = false
			}
		}
	}
	return f, ok
}

var fuzzProfiles = []*Profile{
	Default, WithScheme, Fixed, FixedWithScheme,
	New(&Options{TrailingComma: true, NoHostMassage: true, NoReverseIPAddr: true, NoQueryLowercase: true}),
}

// FuzzCanonicalize: no input panics or gives an undocumented error under
// any profile; AppendCanonical appends exactly what Canonicalize returns;
// keys are printable ASCII (except inputs the standard passes through
// verbatim) and parse as Keys; and the default profile is idempotent on its
// canonical URL form wherever the standard is.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		"http://www.Example.com:80/a/b/?y=2&X=1#top", "dns:alexa.com", "filedesc:x.arc", "warcinfo:a.warc.gz",
		"http://[2001:DB8::1]:8080/a", "cdn.example.com:443", "<http://example.com/>", "youtube-dl:http://www.example.pt/A_(1).pdf",
		"http://example.com/script?type=a+b+%26+c&grape=wine", "http://bücher.ch/%E2%98%83", "http://3279880203/", "http://10.0.258/",
		"http://host:abc/", "   ", "", "http:////www.x.com//a/../b/./c?", "http://a/(S(4hqa0555fwsecu455xqckv45))/x.aspx?jsessionid=0123456789abcdefghijklemopqrstuv",
		"http://www.t%EF%BF%BD%04.82.net/", "mailto:a@b.c", "http://[::ffff:1.2.3.4]/", "http://a..b...c/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var def string
		for i, p := range fuzzProfiles {
			got, err := p.Canonicalize(in)
			if err != nil {
				var se *Error
				if !errors.As(err, &se) || !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrInvalidPort) {
					t.Fatalf("%v: undocumented error %v", p, err)
				}
				if se.Offset < 0 || se.Offset > len(in) {
					t.Fatalf("%v: offset %d outside input of %d bytes", p, se.Offset, len(in))
				}
				continue
			}
			if i == 0 {
				def = got
			}
			app, err := p.AppendCanonical([]byte("x"), in)
			if err != nil || string(app) != "x"+got {
				t.Fatalf("%v: AppendCanonical = %q, %v; Canonicalize = %q", p, app, err, got)
			}
			if strings.HasPrefix(in, "filedesc") {
				continue
			}
			for j := 0; j < len(got); j++ {
				if c := got[j]; c <= ' ' || c >= 0x7f {
					t.Fatalf("%v: key %q has byte %#x at %d", p, got, c, j)
				}
			}
			if _, err := ParseKey(got); err != nil {
				t.Fatalf("%v: ParseKey(%q): %v", p, got, err)
			}
			keys := LookupKeys(nil, got)
			if keys[len(keys)-1] != "*" || got != "-" && keys[0] != HxPx(got) && HxPx(got) != "" {
				t.Fatalf("%v: LookupKeys(%q) = %q", p, got, keys)
			}
		}
		if form, ok := canonicalURLForm(in); ok && def != "" {
			again, err := Canonicalize(form)
			if err != nil || again != def {
				t.Fatalf("not idempotent: %q → %q; its canonical URL %q → %q, %v", in, def, form, again, err)
			}
		}
	})
}

// adversarialURLs are inputs on which a naive transcription of the standard
// takes quadratic time: deeply nested escapes, many candidate session ids,
// many ASP.NET-like path segments without a page, long IDN labels.
func adversarialURLs() []string {
	const n = 1 << 16
	return []string{
		"http://example.com/%" + strings.Repeat("25", n) + "41",
		"http://example.com/?" + strings.Repeat("cfid=", n),
		"http://example.com/?" + strings.Repeat("cfid=1&cftoken=", n),
		"http://example.com/?" + strings.Repeat("sid=0123456789abcdefghijklemopqrstuv", n/32),
		"http://example.com" + strings.Repeat("/(aaaaaaaaaaaaaaaaaaaaaaaa)", n/27) + "/x",
		"http://example.com" + strings.Repeat("/(a(aaaaaaaaaaaaaaaaaaaaaaaa))", n/27) + "/x.aspx",
		"http://" + strings.Repeat("ü", n) + ".com/",
		"http://" + strings.Repeat("..", n) + "x/",
		"http://" + strings.Repeat("www.", n) + "x/",
		"http://x.com/" + strings.Repeat("a/../", n),
		"http://x.com/?" + strings.Repeat("b=1&a=2&", n/8),
		"http://a" + strings.Repeat("\u0316\u0301", n/2) + ".com/",      // marks to reorder
		"http://\u1b05" + strings.Repeat("\u0316\u0301", n/2) + ".com/", // and an unassigned base
	}
}

// TestAdversarialInputs runs inputs that are quadratic for a naive
// implementation; the package handles each in linear or n·log n time.
// (No timing is asserted: BenchmarkAdversarial measures it.)
func TestAdversarialInputs(t *testing.T) {
	for _, u := range adversarialURLs() {
		for _, p := range []*Profile{Default, Fixed} {
			if _, err := p.Canonicalize(u); err != nil {
				t.Errorf("%v: %.40q...: %v", p, u, err)
			}
		}
	}
	got, _ := Canonicalize(adversarialURLs()[0])
	if got != "com,example)/a" {
		t.Errorf("nested escapes: got %.40q", got)
	}
}

// BenchmarkAdversarial: one op canonicalizes every adversarial input once.
func BenchmarkAdversarial(b *testing.B) {
	urls := adversarialURLs()
	var total int64
	for _, u := range urls {
		total += int64(len(u))
	}
	b.ReportAllocs()
	b.SetBytes(total)
	for i := 0; i < b.N; i++ {
		for _, u := range urls {
			if _, err := Canonicalize(u); err != nil {
				b.Fatal(err)
			}
		}
	}
}
