package surt

import (
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// publicCase is what the surt rows of cases/public_cases.tsv ask for: the
// Fixed profile's key, and the standard's (Default) key, which the default
// profile must keep giving. Default keys not quoted in the file were checked
// against a run of the Python reference.
type publicCase struct {
	id          string
	input       string
	fixed, std  string
	fixedInText bool // the file's expected text starts with the fixed key
	stdInText   bool // the file's expected text quotes the standard's key
}

var publicCases = []publicCase{
	{"SURT-01a", "https://www1355544.com/", "com,www1355544)/", "com)/", true, false},
	{"SURT-01b", "http://www.com/", "com,www)/", "com)/", true, false},
	{"SURT-01c", "https://www4.daily.co.jp/", "jp,co,daily)/", "jp,co,daily)/", true, false},
	{"SURT-01d", "http://www.www.example.com/", "com,example,www)/", "com,example,www)/", true, false},
	{"SURT-02a", "http://example.com/script?type=a+b+%26+c&grape=wine", "com,example)/script?grape=wine&type=a+b+%26+c", "com,example)/script?+c&grape=wine&type=a+b+", true, true},
	{"SURT-02b", "http://example.com/?q=a%26b", "com,example)/?q=a%26b", "com,example)/?b&q=a", true, true},
	{"SURT-02c", "http://link.example.com/article/10.1007%2Fs10461-013-0423-2", "com,example,link)/article/10.1007/s10461-013-0423-2", "com,example,link)/article/10.1007/s10461-013-0423-2", true, false},
	{"SURT-04a", "http://[2001:DB8::1]:8080/a", "[2001:db8::1]:8080)/a", "2001:db8::1:8080)/a", false, false},
	{"SURT-04c", "http://[::ffff:123.123.87.87]:8080/index.html", "[::ffff:123.123.87.87]:8080)/index.html", "87,87,123,::ffff:123:8080)/index.html", false, false},
	{"SURT-05a", "cdn.example.com:443", "com,example,cdn:443)/", "cdn.example.com:443", true, false},
	{"SURT-05b", "<http://example.com/>", "com,example)/", "<http)/example.com/>", true, true},
	{"SURT-06a", "youtube-dl:http://www.example.pt/images/Metodo2003_(01_03_03).pdf", "youtube-dl:pt,example)/images/metodo2003_(01_03_03).pdf", "youtube-dl:http://www.example.pt/images/metodo2003_(01_03_03).pdf", true, false},
	{"SURT-06b", "dns:www.example.com", "dns:www.example.com", "dns:www.example.com", true, false},
	{"SURT-06c", "filedesc:foo.arc.gz", "filedesc:foo.arc.gz", "filedesc:foo.arc.gz", true, false},
	{"SURT-06d", "warcinfo:foo.warc.gz", "warcinfo:foo.warc.gz", "warcinfo:foo.warc.gz", true, false},
}

// publicRows reads the surt rows of cases/public_cases.tsv: id → (input, expected).
func publicRows(t *testing.T) map[string][2]string {
	data, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][2]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) >= 4 && f[1] == "surt" {
			rows[f[0]] = [2]string{f[2], f[3]}
		}
	}
	return rows
}

// TestPublicCases: Fixed repairs every surt row of the public cases, and
// Default still gives the standard's output for each of them.
func TestPublicCases(t *testing.T) {
	rows := publicRows(t)
	covered := map[string]bool{"SURT-04b": true}
	for _, c := range publicCases {
		covered[c.id] = true
		t.Run(c.id, func(t *testing.T) {
			row, ok := rows[c.id]
			if !ok {
				t.Fatalf("%s missing from public_cases.tsv", c.id)
			}
			if row[0] != c.input {
				t.Fatalf("input %q, file says %q", c.input, row[0])
			}
			if c.fixedInText && !strings.HasPrefix(row[1], c.fixed) {
				t.Fatalf("fixed key %q is not what the file expects: %q", c.fixed, row[1])
			}
			if c.stdInText && !strings.Contains(row[1], c.std) {
				t.Fatalf("standard key %q is not the one the file quotes: %q", c.std, row[1])
			}
			if got, err := Fixed.Canonicalize(c.input); err != nil || got != c.fixed {
				t.Errorf("Fixed: got %q, %v; want %q", got, err, c.fixed)
			}
			if got, err := Default.Canonicalize(c.input); err != nil || got != c.std {
				t.Errorf("Default: got %q, %v; want the standard's %q", got, err, c.std)
			}
		})
	}
	// SURT-04a: the upper-case literal gives the same key as the lower-case one.
	a, _ := Fixed.Canonicalize("http://[2001:DB8::1]:8080/a")
	b, _ := Fixed.Canonicalize("http://[2001:db8::1]:8080/a")
	if a != b {
		t.Errorf("SURT-04a: %q != %q", a, b)
	}
	// SURT-04b: port outside vs inside the brackets must give different keys
	// under Fixed; the standard gives the same key for both.
	in := strings.Split(rows["SURT-04b"][0], " | ")
	if len(in) != 2 {
		t.Fatalf("SURT-04b input %q", rows["SURT-04b"][0])
	}
	f0, _ := Fixed.Canonicalize(in[0])
	f1, _ := Fixed.Canonicalize(in[1])
	if f0 == f1 || f0 != "[2001:db8::1]:8080)/a" || f1 != "[2001:db8::1:8080])/a" {
		t.Errorf("SURT-04b Fixed: %q and %q", f0, f1)
	}
	d0, _ := Default.Canonicalize(in[0])
	d1, _ := Default.Canonicalize(in[1])
	if d0 != d1 || d0 != "2001:db8::1:8080)/a" {
		t.Errorf("SURT-04b Default: %q and %q, want both 2001:db8::1:8080)/a", d0, d1)
	}
	for id := range rows {
		if !covered[id] {
			t.Errorf("public case %s has no test", id)
		}
	}
}

// TestPseudoURIs pins the documented results for the pseudo-URIs found in
// real indexes, under every ready-made profile: no error, scheme intact.
func TestPseudoURIs(t *testing.T) {
	tests := []struct {
		in                     string
		def, withScheme, fixed string
	}{
		{"dns:www.example.com", "dns:www.example.com", "dns:www.example.com", "dns:www.example.com"},
		{"dns:Alexa.COM", "dns:alexa.com", "dns:alexa.com", "dns:alexa.com"},
		{"filedesc://IA-001.arc.gz", "filedesc://IA-001.arc.gz", "filedesc://IA-001.arc.gz", "filedesc://IA-001.arc.gz"},
		{"filedesc:foo.arc.gz", "filedesc:foo.arc.gz", "filedesc:foo.arc.gz", "filedesc:foo.arc.gz"},
		{"warcinfo:foo.warc.gz", "warcinfo:foo.warc.gz", "warcinfo:foo.warc.gz", "warcinfo:foo.warc.gz"},
		{"urn:uuid:ABC-123", "urn:uuid:abc-123", "urn:uuid:abc-123", "urn:uuid:abc-123"},
		{"metadata://crawl.example.org/seed?x=1", "org,example,crawl)/seed?x=1", "metadata://(org,example,crawl)/seed?x=1", "org,example,crawl)/seed?x=1"},
		{"mailto:Bot@Archive.org", "mailto:bot@archive.org", "mailto:bot@archive.org", "mailto:bot@archive.org"},
		{"cdn.example.com:443", "cdn.example.com:443", "cdn.example.com:443", "com,example,cdn:443)/"},
		{"localhost:8080", "localhost:8080", "localhost:8080", "localhost:8080)/"},
		{"tel:5551234", "tel:5551234", "tel:5551234", "tel:5551234"},
		{"urn:isbn:0451450523", "urn:isbn:0451450523", "urn:isbn:0451450523", "urn:isbn:0451450523"},
		{"example.com", "com,example)/", "http://(com,example)/", "com,example)/"},
		{"", "-", "-", "-"},
	}
	for _, tc := range tests {
		for _, pc := range []struct {
			p    *Profile
			want string
		}{{Default, tc.def}, {WithScheme, tc.withScheme}, {Fixed, tc.fixed}} {
			got, err := pc.p.Canonicalize(tc.in)
			if err != nil || got != pc.want {
				t.Errorf("%s.Canonicalize(%q) = %q, %v; want %q", pc.p.name, tc.in, got, err, pc.want)
			}
		}
	}
}
