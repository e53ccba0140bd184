package columnar

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
)

func TestSplitURL(t *testing.T) {
	tests := []struct {
		name, url string
		want      urlParts
	}{
		{"plain", "http://www.example.com/a/b.html", urlParts{scheme: "http", host: "www.example.com", path: "/a/b.html"}},
		{"port query fragment", "HTTPS://Example.COM:8443/p?q=1&r=2#frag", urlParts{scheme: "https", host: "Example.COM", port: 8443, path: "/p", query: "q=1&r=2"}},
		{"userinfo", "ftp://user:pw@files.example.org:21/x", urlParts{scheme: "ftp", host: "files.example.org", port: 21, path: "/x"}},
		{"no path", "http://example.com", urlParts{scheme: "http", host: "example.com"}},
		{"query without path", "http://example.com?a", urlParts{scheme: "http", host: "example.com", query: "a"}},
		{"IPv6 with port", "http://[2001:DB8::1]:8080/", urlParts{scheme: "http", host: "[2001:DB8::1]", port: 8080, path: "/"}},
		{"port out of range", "http://example.com:99999/", urlParts{scheme: "http", host: "example.com", path: "/"}},
		{"empty port", "http://example.com:/", urlParts{scheme: "http", host: "example.com", path: "/"}},
		{"dns", "dns:www.example.com", urlParts{scheme: "dns", host: "www.example.com"}},
		{"whois", "whois://whois.iana.org/example.com", urlParts{scheme: "whois", host: "whois.iana.org", path: "/example.com"}},
		{"urn", "urn:ipfs/Qm", urlParts{scheme: "urn"}},
		{"no scheme", "example.com/a", urlParts{}},
		{"bad scheme", "1http://example.com/", urlParts{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, splitURL(tt.url), cmp.AllowUnexported(urlParts{})); diff != "" {
				t.Errorf("splitURL(%q) (-want +got):\n%s", tt.url, diff)
			}
		})
	}
}

func TestDeriveHost(t *testing.T) {
	type parts struct {
		Name, TLD, Second, Third, RegSuffix, RegDomain, PrivSuffix, PrivDomain, Reversed string
	}
	tests := []struct {
		name, host string
		want       parts
	}{
		{"www", "www.example.com", parts{"www.example.com", "com", "example", "www", "com", "example.com", "com", "example.com", "com.example.www"}},
		{"two-label suffix", "news.bbc.co.uk", parts{"news.bbc.co.uk", "uk", "co", "bbc", "co.uk", "bbc.co.uk", "co.uk", "bbc.co.uk", "uk.co.bbc.news"}},
		{"private suffix", "myblog.blogspot.com", parts{"myblog.blogspot.com", "com", "blogspot", "myblog", "com", "blogspot.com", "blogspot.com", "myblog.blogspot.com", "com.blogspot.myblog"}},
		{"upper case, trailing dot", "WWW.Example.COM.", parts{"www.example.com", "com", "example", "www", "com", "example.com", "com", "example.com", "com.example.www"}},
		{"IDN", "www.müller.de", parts{"www.xn--mller-kva.de", "de", "xn--mller-kva", "www", "de", "xn--mller-kva.de", "de", "xn--mller-kva.de", "de.xn--mller-kva.www"}},
		{"a public suffix itself", "co.uk", parts{"co.uk", "uk", "co", "", "co.uk", "", "co.uk", "", "uk.co"}},
		{"IPv4", "192.0.2.1", parts{Name: "192.0.2.1"}},
		{"IPv6", "[2001:DB8:0::1]", parts{Name: "[2001:db8::1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := deriveHost(tt.host)
			got := parts{h.name, h.labels[0], h.labels[1], h.labels[2], h.registrySuffix, h.registeredDomain, h.privateSuffix, h.privateDomain, h.reversed}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("deriveHost(%q) (-want +got):\n%s", tt.host, diff)
			}
		})
	}
}

// TestSURTKeyComputed: a key that is not a SURT (wget's CDX keyed by URL)
// becomes the SURT of the URL; a record without URL keeps its key.
func TestSURTKeyComputed(t *testing.T) {
	tests := []struct {
		name, line string
		layout     string
		want       string
	}{
		{"SURT kept", `com,example)/a 20200101000000 {"url": "http://example.com/a"}`, "", "com,example)/a"},
		{"URL key", `http://www.Example.com/a?b=1&a=2 20200101000000 {"url": "http://www.Example.com/a?b=1&a=2"}`, "", "com,example)/a?a=2&b=1"},
		{"URL key, no url member", `http://example.com/a 20200101000000 {"mime": "text/html"}`, "", "com,example)/a"},
		{"warcinfo", `- 20200101000000 {"mime": "application/warc-fields"}`, "", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := cdxj.ParseLine([]byte(tt.line), nil)
			if err != nil {
				t.Fatal(err)
			}
			var row Row
			if err := NewConverter(nil).Row(&row, rec, "x"); err != nil {
				t.Fatal(err)
			}
			if row.URLSurtKey != tt.want {
				t.Errorf("url_surtkey = %q, want %q", row.URLSurtKey, tt.want)
			}
		})
	}
}

// TestCCFields: Common Crawl's extra CDXJ members, "encoding" standing in
// for "charset", and a status "200 " read as summaries read it.
func TestCCFields(t *testing.T) {
	line := `com,example)/ 20250802232428 {"url": "http://www.example.com/", "mime": "text/html", "mime-detected": "application/xhtml+xml", "status": "200 ", "truncated": "length", "languages": "eng,fra", "encoding": "ISO-8859-1", "filename": "crawl-data/EOT-2008/segments/IA-001/warc/DOTGOV-2008-01-x.arc.gz"}`
	rec, err := cdxj.ParseLine([]byte(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	var r Row
	if err := NewConverter(nil).Row(&r, rec, "x"); err != nil {
		t.Fatal(err)
	}
	got := []any{r.ContentMIMEDetected, r.ContentTruncated, r.ContentLanguages, r.ContentCharset, r.FetchStatus, r.Crawl, r.WARCSegment, r.Subset, r.Organization}
	want := []any{"application/xhtml+xml", "length", "eng,fra", "ISO-8859-1", int16(200), "EOT-2008", "IA-001", "warc", "DOTGOV"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestConverterOwnsStrings: rows keep their values after the reader reuses
// its record.
func TestConverterOwnsStrings(t *testing.T) {
	in := "com,a)/ 20200101000000 {\"url\": \"http://a.com/\", \"digest\": \"AAAA\"}\ncom,b)/ 20200101000000 {\"url\": \"http://b.com/\", \"digest\": \"BBBB\"}\n"
	rd := cdxj.NewReader(bytes.NewReader([]byte(in)))
	rd.ReuseRecord = true
	c := NewConverter(nil)
	var rows []Row
	for rec, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		var r Row
		if err := c.Row(&r, rec, "x"); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if rows[0].URL != "http://a.com/" || rows[0].ContentDigest != "AAAA" || rows[0].URLSurtKey != "com,a)/" {
		t.Errorf("first row changed: %+v", rows[0])
	}
}
