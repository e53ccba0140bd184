package mementomap

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/sampledata"
)

func writeMap(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "map.ukvs")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func openMap(t testing.TB, content string) *Map {
	t.Helper()
	m, err := Open(writeMap(t, content))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestAppendLookupKeys(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"path with query", "com,example)/a/b?x=1", []string{"com,example)/a/b", "com,example)/a/b/*", "com,example)/a/*", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"root", "com,example)/", []string{"com,example)/", "com,example)", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"reference root form", "com,example)", []string{"com,example)", "com,example)/", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"subdomain", "com,example,www)/x", []string{"com,example,www)/x", "com,example,www)/x/*", "com,example,www)/*", "com,example,www,*", "com,example,*", "com,*", "*"}},
		{"trailing slash is a level", "com,example)/a/", []string{"com,example)/a/", "com,example)/a//*", "com,example)/a/*", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"no comma host", "localhost)/a", []string{"localhost)/a", "localhost)/a/*", "localhost)/*", "localhost,*", "*"}},
		{"empty", "", []string{"*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, AppendLookupKeys(nil, tt.in)); d != "" {
				t.Errorf("AppendLookupKeys(%q) (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

// TestPublicCasesUKVS02 runs the UKVS-02 rows of the shared public cases.
func TestPublicCasesUKVS02(t *testing.T) {
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 4 || !strings.HasPrefix(f[0], "UKVS-02") {
			continue
		}
		n++
		t.Run(f[0], func(t *testing.T) {
			input := strings.ReplaceAll(f[2], `\n`, "\n")
			var mapText, lookup string
			for _, l := range strings.Split(input, "\n") {
				switch {
				case strings.HasPrefix(l, "map: "):
					mapText += strings.TrimPrefix(l, "map: ") + "\n"
				case strings.HasPrefix(l, "lookup: "):
					lookup = strings.TrimPrefix(l, "lookup: ")
				default:
					mapText += l + "\n"
				}
			}
			expected := f[3]
			tried, hit, _ := strings.Cut(expected, "->")
			tried = tried[strings.Index(tried, ":")+1:]
			if i := strings.Index(tried, "  ("); i >= 0 {
				tried = tried[:i]
			}
			var want []string
			for _, k := range strings.Split(tried, ";") {
				want = append(want, strings.TrimSpace(k))
			}
			got := AppendLookupKeys(nil, lookup)
			// Our list goes on with the bare "*" (internal/spec/MEMENTOMAP.md, "Keys").
			if d := cmp.Diff(append(want, "*"), got); d != "" {
				t.Errorf("lookup keys (-want +got):\n%s", d)
			}
			if hit == "" {
				return
			}
			// " hit com,example)/a/* freq 12, distance 2"
			parts := strings.Fields(strings.TrimSpace(hit))
			key, freq, dist := parts[1], strings.TrimSuffix(parts[3], ","), parts[5]
			m := openMap(t, mapText)
			got2, err := m.LookupSURT(lookup)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := strconv.Atoi(dist)
			if got2.Key != key || got2.Value != freq || got2.Distance != d || !got2.Present() {
				t.Errorf("LookupSURT(%q) = %+v, want key %s freq %s distance %d", lookup, got2, key, freq, d)
			}
		})
	}
	if n != 2 {
		t.Errorf("found %d UKVS-02 rows, want 2", n)
	}
}

func TestLookupEdges(t *testing.T) {
	const m1 = "!context [\"x\"]\n!meta {\"name\": \"t\"}\n\n" +
		"com,a)/ 1\n\ncom,b)/x 2/1\n   \ncom,b,* 3\ncom,c) 4\ncom,d)/* 9\ncom,d)/q 0\n\n\nnet,last)/z 5"
	tests := []struct {
		name, content, query string
		key, value           string
		present              bool
		bad                  string // the line an ErrBadLine error names
	}{
		{"first line", m1, "com,a)/", "com,a)/", "1", true, ""},
		{"line after blank", m1, "com,b)/x", "com,b)/x", "2/1", true, ""},
		{"host wildcard", m1, "com,b,www)/y", "com,b,*", "3", true, ""},
		{"host wildcard covers the host", m1, "com,b)/y", "com,b,*", "3", true, ""},
		{"reference root form in map", m1, "com,c)/", "com,c)", "4", true, ""},
		{"our root form asked in reference form", m1, "com,a)", "com,a)/", "1", true, ""},
		{"zero frequency means absent", m1, "com,d)/q", "com,d)/q", "0", false, ""},
		{"wildcard next to exclusion", m1, "com,d)/r", "com,d)/*", "9", true, ""},
		{"last line without newline", m1, "net,last)/z", "net,last)/z", "5", true, ""},
		{"past the last line", m1, "zz,zz)/", "", "", false, ""},
		{"before the first line", m1, "aa,a)/", "", "", false, ""},
		{"empty file", "", "com,a)/", "", "", false, ""},
		{"header only", "!meta {}\n", "com,a)/", "", "", false, ""},
		{"blank only", "\n\n  \n", "com,a)/", "", "", false, ""},
		{"single line", "com,a)/ 1", "com,a)/", "com,a)/", "1", true, ""},
		{"CRLF", "com,a)/ 1\r\ncom,b)/ 2\r\n", "com,b)/", "com,b)/", "2", true, ""},
		{"bare star", "* 7\ncom,a)/ 1\n", "org,x)/", "*", "7", true, ""},
		{"BOM before first line", "\xef\xbb\xbfcom,a)/ 1\ncom,b)/ 2\n", "com,a)/", "com,a)/", "1", true, ""},
		{"BOM before headers", "\xef\xbb\xbf!meta {}\ncom,a)/ 1\n", "com,a)/", "com,a)/", "1", true, ""},
		{"CR CR LF", "com,a)/ 1\r\r\ncom,b)/ 2\r\r\n", "com,a)/", "com,a)/", "1", true, ""},
		{"tab between columns", "com,a)/\t1\ncom,b)/\t2\n", "com,b)/", "com,b)/", "2", true, ""},
		{"trailing spaces", "com,a)/ 1  \ncom,b)/ 2 \t\n", "com,b)/", "com,b)/", "2", true, ""},
		{"duplicate keys: the first decides", "com,a)/ 1\ncom,a)/ 2\ncom,b)/ 3\n", "com,a)/", "com,a)/", "1", true, ""},
		{"TLD wildcard next to a host", "com,* 5\ncom,example)/ 1\n", "com,example)/a", "com,*", "5", true, ""},
		{"host beside a TLD wildcard", "com,* 5\ncom,example)/ 1\n", "com,example)/", "com,example)/", "1", true, ""},
		{"exclusion beneath TLD wildcard", "com,* 5\ncom,example)/ 0\n", "com,example)/", "com,example)/", "0", false, ""},
		{"root path wildcard", "com,example)/* 3\n", "com,example)/", "com,example)/*", "3", true, ""},
		{"root path wildcard, reference root", "com,example)/* 3\n", "com,example)", "com,example)/*", "3", true, ""},
		{"paren in path", "com,example)/a)b 1\ncom,example)/q)x/y 2\n", "com,example)/q)x/y", "com,example)/q)x/y", "2", true, ""},
		{"paren in path under wildcard", "com,example)/q)x/* 2\n", "com,example)/q)x/y/z", "com,example)/q)x/*", "2", true, ""},
		{"IPv6 host", "2001:db8::1)/ 1\ncom,a)/ 2\n", "2001:db8::1)/a", "", "", false, ""},
		{"IPv6 host exact", "2001:db8::1)/a 1\ncom,a)/ 2\n", "2001:db8::1)/a", "2001:db8::1)/a", "1", true, ""},
		{"port", "com,example:8080)/a 1\n", "com,example:8080)/a", "com,example:8080)/a", "1", true, ""},
		{"space inside a key: a bad line, not a hit", "com,a)/ 2\ncom,example)/a b 1\ncom,example)/c 2\n", "com,example)/a", "", "", false, "line 2, column 18: wrong number of columns"},
		{"line without a value (truncated map): a bad line, not a hit", "com,example)/a 1\ncom,example)/b", "com,example)/b", "", "", false, "line 2: wrong number of columns"},
		{"malformed frequency: a bad line, not a hit", "!meta {}\ncom,example)/a 3\x001\n", "com,example)/a", "", "", false, "line 2, column 16: invalid frequency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maps := []*Map{FromBytes([]byte(tt.content))}
			if tt.content == "" || strings.HasSuffix(tt.content, "\n") {
				maps = append(maps, openMap(t, tt.content))
			} else if m, err := Open(writeMap(t, tt.content)); !errors.Is(err, ErrNoLineEnd) {
				// A file whose last line has no line end was cut short.
				t.Errorf("Open of a map without a final line end = %v, want ErrNoLineEnd", err)
				if m != nil {
					m.Close()
				}
			}
			for _, m := range maps {
				got, err := m.LookupSURT(tt.query)
				if tt.bad != "" {
					if !errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), tt.bad) || got.Distance != -1 {
						t.Errorf("LookupSURT(%q) = %+v, %v; want ErrBadLine naming %q", tt.query, got, err, tt.bad)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if got.Key != tt.key || got.Value != tt.value || got.Present() != tt.present {
					t.Errorf("LookupSURT(%q) = %+v, want key %q value %q present %v", tt.query, got, tt.key, tt.value, tt.present)
				}
			}
		})
	}
}

func TestLookupEveryLine(t *testing.T) {
	// Every key of a map is found, whatever its position (first, last,
	// next to blank lines), and keys between are not.
	var b strings.Builder
	b.WriteString("!meta {}\n")
	for i := range 500 {
		b.WriteString("com,h" + strconv.Itoa(1000+i) + ")/p 1\n")
		if i%7 == 0 {
			b.WriteString("\n")
		}
	}
	m := openMap(t, b.String())
	for i := range 500 {
		k := "com,h" + strconv.Itoa(1000+i) + ")/p"
		if v, ok := m.Get(k); !ok || v != "1" {
			t.Fatalf("Get(%q) = %q, %v", k, v, ok)
		}
		if _, ok := m.Get(k + "0"); ok {
			t.Fatalf("Get(%q) found a key that is not there", k+"0")
		}
	}
}

func TestLookupConcurrent(t *testing.T) {
	m := openMap(t, sample01)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				q := []string{"com,cnn)/news/a/b/c", "edu,odu,cs)/~mln/pubs", "com,zzz)/"}[(g+i)%3]
				got, err := m.LookupSURT(q)
				if err != nil || (q != "com,zzz)/") != got.Present() {
					t.Errorf("LookupSURT(%q) = %+v, %v", q, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestLookupClosed(t *testing.T) {
	m, err := Open(writeMap(t, sample01))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.LookupSURT("com,cnn)/"); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: err = %v, want ErrClosed", err)
	}
}

func TestLookupWithIndex(t *testing.T) {
	var b strings.Builder
	b.WriteString("!meta {}\n\n")
	var keys []string
	for i := range 20000 {
		k := "com,h" + strconv.Itoa(100000+i*3) + ")/p"
		keys = append(keys, k)
		b.WriteString(k + " " + strconv.Itoa(i%7) + "\n")
		if i%501 == 0 {
			b.WriteString("\n  \n")
		}
	}
	b.WriteString("zz,last)/ 1") // last line without newline
	keys = append(keys, "zz,last)/")
	plain := FromBytes([]byte(b.String()))
	indexed := FromBytes([]byte(b.String()))
	x := indexed.buildIndex()
	if len(x.pos) < b.Len()/indexBlock-2 {
		t.Fatalf("index of %d blocks for %d bytes", len(x.pos), b.Len())
	}
	indexed.index.Store(x)
	queries := append([]string{"a,a)/", "com,h0)/", "zz,z)/", "zzz)/"}, keys...)
	for i := 0; i < len(keys); i += 97 {
		queries = append(queries, keys[i]+"x", keys[i][:len(keys[i])-2]+"1)/p")
	}
	for _, q := range queries {
		want, _ := plain.LookupSURT(q)
		got, _ := indexed.LookupSURT(q)
		if got != want {
			t.Fatalf("LookupSURT(%q) with index = %+v, without = %+v", q, got, want)
		}
	}
	for _, k := range keys {
		if got, _ := indexed.LookupSURT(k); got.Key != k {
			t.Fatalf("LookupSURT(%q) with index = %+v", k, got)
		}
	}
}

func TestLookupConcurrentWhileIndexing(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("com,h" + strconv.Itoa(10000+i) + ")/p 1/1\n")
	}
	m := openMap(t, b.String())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 600 { // 4800 lookups: the index is built on the way
				n := 10000 + (g*613+i*7)%5000
				k := "com,h" + strconv.Itoa(n) + ")/p"
				if i%2 == 1 {
					k = "com,h" + strconv.Itoa(n) + ")/q"
				}
				got, err := m.LookupSURT(k)
				if err != nil || got.Present() != (i%2 == 0) {
					t.Errorf("LookupSURT(%q) = %+v, %v", k, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if m.index.Load() == nil {
		t.Error("no index built after 4800 lookups")
	}
}

// TestLoneCR: a map with old Macintosh line ends would be one long line,
// every lookup a false negative; Open refuses it and a Map from bytes
// fails its lookups.
func TestLoneCR(t *testing.T) {
	tests := []struct {
		name, content string
		wantErr       bool
	}{
		{"lone CR data", "com,a)/ 1\rcom,b)/ 2\r", true},
		{"lone CR headers", "!meta {}\rcom,a)/ 1\r", true},
		{"lone CR after BOM", "\xef\xbb\xbfcom,a)/ 1\rcom,b)/ 2\r", true},
		{"CRLF", "com,a)/ 1\r\ncom,b)/ 2\r\n", false},
		{"CR at the end of the file", "com,a)/ 1\r", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Open(writeMap(t, tt.content))
			if got := errors.Is(err, ErrLoneCR); got != tt.wantErr {
				t.Fatalf("Open: error %v, want ErrLoneCR %v", err, tt.wantErr)
			}
			if err == nil {
				m.Close()
			}
			_, err = FromBytes([]byte(tt.content)).LookupSURT("com,a)/")
			if got := errors.Is(err, ErrLoneCR); got != tt.wantErr {
				t.Fatalf("FromBytes lookup: error %v, want ErrLoneCR %v", err, tt.wantErr)
			}
		})
	}
}

// TestReplacedWhileOpen: a map replaced by renaming a new file over its
// path (as Compact's callers and the command do) keeps answering from the
// old content until it is opened again (mmap semantics, see Open).
func TestReplacedWhileOpen(t *testing.T) {
	p := writeMap(t, "com,old)/ 1\n")
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tmp := p + ".new"
	if err := os.WriteFile(tmp, []byte("com,new)/ 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, key string
		present   bool
	}{
		{"old key still found", "com,old)/", true},
		{"new key not yet seen", "com,new)/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.LookupSURT(tt.key)
			if err != nil || got.Present() != tt.present {
				t.Errorf("LookupSURT(%q) = %+v, %v; want present %v", tt.key, got, err, tt.present)
			}
		})
	}
	m2, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if got, _ := m2.LookupSURT("com,new)/"); !got.Present() {
		t.Errorf("reopened map: LookupSURT(com,new)/) = %+v, want present", got)
	}
}
