package surt

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// vector is one row of testdata/surt_vectors.tsv.
type vector struct {
	line     int
	input    string
	inNone   bool
	opts     map[string]string
	expected string
	expNone  bool
}

// unescapeField decodes the file's field escapes: \\ \t \n \r \uXXXX.
func unescapeField(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'u':
			if i+4 >= len(s) {
				return "", fmt.Errorf("short \\u escape in %q", s)
			}
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", fmt.Errorf("bad \\u escape in %q: %v", s, err)
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			return "", fmt.Errorf("unknown escape \\%c in %q", s[i], s)
		}
	}
	return b.String(), nil
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open("testdata/surt_vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vector
	sc := bufio.NewScanner(f)
	line, header := 0, false
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			continue
		}
		if !header {
			header = true
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 3 {
			t.Fatalf("line %d: %d columns, want 3", line, len(cols))
		}
		v := vector{line: line, opts: map[string]string{}}
		if cols[0] == "<none>" {
			v.inNone = true
		} else if v.input, err = unescapeField(cols[0]); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if cols[1] != "default" {
			for _, kv := range strings.Split(cols[1], ";") {
				k, val, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("line %d: bad option %q", line, kv)
				}
				v.opts[k] = val
			}
		}
		if cols[2] == "<none>" {
			v.expNone = true
		} else if v.expected, err = unescapeField(cols[2]); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 130 {
		t.Fatalf("only %d vectors read", len(out))
	}
	return out
}

// profileFor builds the profile a surt row's options describe.
func profileFor(t *testing.T, opts map[string]string) *Profile {
	var o Options
	for k, v := range opts {
		on := v == "true"
		if v != "true" && v != "false" {
			t.Fatalf("option %s=%q is not a boolean", k, v)
		}
		switch k {
		case "with_scheme":
			o.IncludeScheme = on
		case "trailing_comma":
			o.TrailingComma = on
		case "host_massage":
			o.NoHostMassage = !on
		case "reverse_ipaddr":
			o.NoReverseIPAddr = !on
		case "query_lowercase":
			o.NoQueryLowercase = !on
		default:
			t.Fatalf("unknown option %q", k)
		}
	}
	return New(&o)
}

// appendURLForm writes a parsed URL back as a URL, as the standard's
// handyurl.geturl_bytes() does with its defaults (scheme kept, no SURT).
func appendURLForm(dst []byte, u *parsed) []byte {
	dst = append(dst, u.scheme...)
	dst = append(dst, ':')
	if len(u.host) > 0 {
		if string(u.scheme) != "dns" {
			dst = append(dst, "//"...)
		}
		dst = append(dst, u.host...)
		if u.port >= 0 {
			dst = formatPort(dst, u.port)
		}
	}
	if len(u.path) > 0 {
		dst = append(dst, u.path...)
	} else if u.hasQuery || u.hasFrag {
		dst = append(dst, '/')
	}
	if u.hasQuery {
		dst = append(dst, '?')
		dst = append(dst, u.query...)
	}
	if u.hasFrag {
		dst = append(dst, '#')
		dst = append(dst, u.frag...)
	}
	if u.lastDelim {
		dst = append(dst, '?')
	}
	return dst
}

// runComponent evaluates one component row: the internal step its fn names.
func runComponent(t *testing.T, v vector) (got string, none bool) {
	fn := v.opts["fn"]
	sc := new(scratch)
	in := []byte(v.input)
	p := New(&Options{NoQueryLowercase: v.opts["query_lowercase"] == "false", NoReverseIPAddr: v.opts["reverse_ipaddr"] == "false"})
	switch fn {
	case "parse_url", "parse_scheme", "canon_google_url", "canon_ia_url", "canon_default_url":
		u, err := sc.parse(v.input, false)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if fn == "parse_scheme" {
			return string(u.scheme), false
		}
		if fn == "canon_google_url" || fn == "canon_default_url" {
			sc.google(&u, false)
		}
		if fn == "canon_ia_url" || fn == "canon_default_url" {
			u.path = append([]byte(nil), u.path...)
			sc.ia(&u, p)
			if u.hasQuery {
				u.query, _ = appendSortedQuery(nil, u.query, nil)
			}
		}
		return string(appendURLForm(nil, &u)), false
	case "ip_formats":
		ip, ok := ipv4Form(in)
		if !ok {
			return "", true
		}
		return string(appendDottedQuad(nil, ip)), false
	case "unescape_repeatedly":
		return string(appendUnescapeRepeatedly(nil, in, false)), false
	case "alpha_reorder_query":
		if v.inNone {
			return "", true
		}
		out, _ := appendSortedQuery(nil, in, nil)
		return string(out), false
	case "massage_host":
		return v.input[massageLen(in):], false
	case "default_port":
		return strconv.Itoa(defaultPort(in)), false
	case "strip_path_session_id":
		return string(stripPathSessionIDs(in)), false
	case "strip_query_session_id":
		return string(stripQuerySessionIDs(in)), false
	case "host_to_surt":
		if !p.reverseIP && isDottedQuadLike(in) {
			return v.input, false
		}
		return string(appendReversedHost(nil, in)), false
	case "public_suffix":
		d, _ := SuffixList{ICANNOnly: true}.RegisteredDomain(v.input)
		return d, false
	case "public_prefix":
		_, sub := SuffixList{ICANNOnly: true}.RegisteredDomain(v.input)
		return sub, false
	}
	t.Fatalf("unknown fn %q", fn)
	return "", false
}

// TestVectors runs every row of testdata/surt_vectors.tsv (derived from the
// Python surt 0.3.1 test suite) against the default profile or, for
// component rows, the internal step the row names.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		name := fmt.Sprintf("line%d", v.line)
		t.Run(name, func(t *testing.T) {
			var got string
			var none bool
			if fn, ok := v.opts["fn"]; ok && fn != "surt" {
				got, none = runComponent(t, v)
			} else {
				opts := map[string]string{}
				for k, val := range v.opts {
					if k != "fn" {
						opts[k] = val
					}
				}
				p := Default
				if len(opts) > 0 {
					p = profileFor(t, opts)
				}
				in := v.input
				if v.inNone {
					in = ""
				}
				var err error
				got, err = p.Canonicalize(in)
				if err != nil {
					t.Fatalf("Canonicalize(%q) with %v: %v", in, p, err)
				}
			}
			if none != v.expNone || got != v.expected {
				t.Errorf("input %q options %v:\n got %q (none=%t)\nwant %q (none=%t)", v.input, v.opts, got, none, v.expected, v.expNone)
			}
		})
	}
}

// TestReferenceSample compares the default profile with the recorded
// reference outputs in testdata/reference_sample.tsv (see its header).
func TestReferenceSample(t *testing.T) {
	f, err := os.Open("testdata/reference_sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	line, n := 0, 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		in, want, ok := strings.Cut(text, "\t")
		if !ok {
			t.Fatalf("line %d: no tab", line)
		}
		url, err := strconv.Unquote(in)
		if err != nil {
			t.Fatalf("line %d: input: %v", line, err)
		}
		got, gerr := Canonicalize(url)
		n++
		if want == "ERROR" {
			if gerr == nil {
				t.Errorf("line %d: Canonicalize(%q) = %q, want an error", line, url, got)
			}
			continue
		}
		key, err := strconv.Unquote(want)
		if err != nil {
			t.Fatalf("line %d: expected: %v", line, err)
		}
		if gerr != nil || got != key {
			t.Errorf("line %d: Canonicalize(%q) = %q, %v; want %q", line, url, got, gerr, key)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 3000 {
		t.Fatalf("only %d cases read", n)
	}
}
