package memento

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// linkSummary is a compact, comparable view of a parsed link.
func linkSummary(ls []Link) []string {
	var out []string
	for _, l := range ls {
		s := l.Target + " rel=" + strings.Join(l.Rel, "+")
		if l.Rel == nil {
			s = l.Target + " norel"
		}
		for _, p := range l.Params {
			if p.NoValue {
				s += " " + p.Name
			} else {
				s += fmt.Sprintf(" %s=%q", p.Name, p.Value)
			}
		}
		out = append(out, s)
	}
	return out
}

func TestParseLinkFormatTable(t *testing.T) {
	type want struct {
		links []string
		err   error // cause; nil for success
		at    int64 // error offset
	}
	ok := func(links ...string) want { return want{links: links} }
	bad := func(err error, at int64, links ...string) want { return want{links: links, err: err, at: at} }
	for _, tc := range []struct {
		name            string
		in              string
		strict, lenient want
	}{
		{"empty", "", ok(), ok()},
		{"only separators", " ,\r\n, ", ok(), ok()},
		{"one link", `<a>; rel="x"`, ok("a rel=x"), ok("a rel=x")},
		{"no rel", `<a>; type="t"`, ok(`a norel type="t"`), ok(`a norel type="t"`)},
		{"empty rel", `<a>; rel=""`, ok("a rel="), ok("a rel=")},
		{"bare param", `<a>; rel=x; crossorigin`, ok("a rel=x crossorigin"), ok("a rel=x crossorigin")},
		{"escapes", `<a>; title="q\"b\\s"`, ok(`a norel title="q\"b\\s"`), ok(`a norel title="q\"b\\s"`)},
		{"case of names and rels", `<a>; REL="Memento FIRST"; DateTime="d"`, ok(`a rel=memento+first datetime="d"`), ok(`a rel=memento+first datetime="d"`)},
		{"duplicate rel tokens", `<a>; rel="memento memento"`, ok("a rel=memento"), ok("a rel=memento")},
		{"empty list elements", `,<a>; rel=x,,, <b>; rel=y,`, ok("a rel=x", "b rel=y"), ok("a rel=x", "b rel=y")},
		{"unquoted media type", `<a>; type=text/html`, bad(ErrNotToken, 14), ok(`a norel type="text/html"`)},
		{"unquoted value with spaces", `<a>; title=two words; rel=x`, bad(ErrUnexpected, 15), ok(`a rel=x title="two words"`)},
		{"missing brackets", `http://a/b;rel="x"`, bad(ErrExpectedTarget, 0), ok("http://a/b rel=x")},
		{"missing brackets, no params", `http://a/b`, bad(ErrExpectedTarget, 0), bad(ErrExpectedTarget, 0)},
		{"missing brackets before a link", `http://a/b, <c>; rel=x`, bad(ErrExpectedTarget, 0), bad(ErrExpectedTarget, 0)},
		{"gt inside target", `<http://a/x>y>; rel=x`, bad(ErrUnexpected, 12), ok("http://a/x>y rel=x")},
		{"junk after target", `<a> junk; rel=x, <b>; rel=y`, bad(ErrUnexpected, 4), ok("a rel=x", "b rel=y")},
		{"junk glued to next link", `<a>x;rel=y,<b>;rel=z`, bad(ErrUnexpected, 3), ok("a rel=y", "b rel=z")},
		{"unquoted date", `<a>; rel=memento; datetime=Mon, 09 May 2016 20:00:05 GMT, <b>; rel=x`, bad(ErrExpectedTarget, 32, `a rel=memento datetime="Mon"`), ok(`a rel=memento datetime="Mon, 09 May 2016 20:00:05 GMT"`, "b rel=x")},
		{"unquoted RFC 850 date", `<a>; from=Sunday, 06-Nov-94 08:49:37 GMT; rel=x`, bad(ErrExpectedTarget, 18, `a norel from="Sunday"`), ok(`a rel=x from="Sunday, 06-Nov-94 08:49:37 GMT"`)},
		{"unquoted title with comma", `<a>; title=Mon, <b>; rel=x`, ok(`a norel title="Mon"`, "b rel=x"), ok(`a norel title="Mon"`, "b rel=x")},
		{"empty params", `<a>;; rel=x;`, bad(ErrParamName, 4), ok("a rel=x")},
		{"space in target", `<a b>; rel=x`, bad(ErrTargetByte, 2), bad(ErrTargetByte, 2)},
		{"quote in target", `<http://h/m/"><script>x</script>; rel=x`, bad(ErrTargetByte, 12), bad(ErrTargetByte, 12)},
		{"empty target", `<>; rel=x`, bad(ErrEmptyTarget, 0), bad(ErrEmptyTarget, 0)},
		{"unterminated target", `<a; rel=x`, bad(ErrUnterminatedTarget, 0), bad(ErrUnterminatedTarget, 0)},
		{"unterminated quote", `<a>; rel="x`, bad(ErrUnterminatedQuote, 9), bad(ErrUnterminatedQuote, 9)},
		{"control in quote", "<a>; t=\"x\x01\"", bad(ErrUnexpected, 7), ok("a norel t=\"x\\x01\"")},
		{"no param name", `<a>; ="x"`, bad(ErrParamName, 5), bad(ErrParamName, 5)},
		{"error in second link", `<a>; rel=x, <b`, bad(ErrUnterminatedTarget, 12, "a rel=x"), bad(ErrUnterminatedTarget, 12, "a rel=x")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []struct {
				strict bool
				want   want
			}{{true, tc.strict}, {false, tc.lenient}} {
				links, err := ParseLinkFormat(tc.in, &ParseOptions{Strict: mode.strict})
				if diff := cmp.Diff(mode.want.links, linkSummary(links)); diff != "" {
					t.Errorf("strict=%v links (-want +got):\n%s", mode.strict, diff)
				}
				if mode.want.err == nil {
					if err != nil {
						t.Errorf("strict=%v: %v", mode.strict, err)
					}
				} else {
					var pe *ParseError
					if !errors.As(err, &pe) || !errors.Is(err, mode.want.err) || pe.Offset != mode.want.at {
						t.Errorf("strict=%v: err %v, want %v at byte %d", mode.strict, err, mode.want.err, mode.want.at)
					}
				}
				// The streamed parse agrees, read one byte at a time and
				// with a failing reader after the data.
				streamed, serr := NewReader(iotest.OneByteReader(strings.NewReader(tc.in)), &ParseOptions{Strict: mode.strict}).ReadAll()
				if !cmp.Equal(links, streamed) || fmt.Sprint(err) != fmt.Sprint(serr) {
					t.Errorf("strict=%v: Reader %v %v", mode.strict, linkSummary(streamed), serr)
				}
			}
		})
	}
}

// TestReaderErrors checks the Reader's own limits and its handling of a
// failing input.
func TestReaderErrors(t *testing.T) {
	t.Run("link too long", func(t *testing.T) {
		in := `<a>; rel=x, <` + strings.Repeat("b", 5000) + `>; rel=y`
		r := NewReader(strings.NewReader(in), &ParseOptions{MaxLinkBytes: 1000})
		l, err := r.Read()
		if err != nil || l.Target != "a" {
			t.Fatalf("%v %v", l, err)
		}
		_, err = r.Read()
		var pe *ParseError
		if !errors.Is(err, ErrLinkTooLong) || !errors.As(err, &pe) || pe.Offset != 12 || pe.Link != 2 {
			t.Errorf("err %v", err)
		}
		if _, again := r.Read(); again != err {
			t.Errorf("error not sticky: %v", again)
		}
	})
	t.Run("read error mid-link", func(t *testing.T) {
		boom := errors.New("connection reset")
		in := `<a>; rel=x, <b>; rel="y`
		r := NewReader(iotest.DataErrReader(&failAfter{s: in, err: boom}), nil)
		links, err := r.ReadAll()
		if !errors.Is(err, boom) || len(links) != 1 {
			t.Errorf("links %v err %v: a truncated link must not be parsed as complete", linkSummary(links), err)
		}
	})
	t.Run("read error between links", func(t *testing.T) {
		boom := errors.New("connection reset")
		r := NewReader(&failAfter{s: `<a>; rel=x, `, err: boom}, nil)
		links, err := r.ReadAll()
		if !errors.Is(err, boom) || len(links) != 1 {
			t.Errorf("links %v err %v", linkSummary(links), err)
		}
	})
	t.Run("bad base", func(t *testing.T) {
		_, err := NewReader(strings.NewReader("<a>"), &ParseOptions{Base: "http://a b/%zz"}).Read()
		if err == nil {
			t.Error("bad base accepted")
		}
	})
}

// failAfter returns s, then err.
type failAfter struct {
	s   string
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.s == "" {
		return 0, f.err
	}
	n := copy(p, f.s)
	f.s = f.s[n:]
	return n, nil
}

func TestMerge(t *testing.T) {
	a, _ := ReadTimeMap(strings.NewReader(`<http://r/>; rel="original", <http://a/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT", <http://a/3>; rel="memento"; datetime="Wed, 01 Jan 2003 00:00:00 GMT"`), nil)
	b, _ := ReadTimeMap(strings.NewReader(`<http://tg/>; rel="timegate", <http://b/2>; rel="memento"; datetime="Tue, 01 Jan 2002 00:00:00 GMT", <http://a/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT", <http://b/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`), nil)
	m := Merge(a, nil, b)
	var got []string
	for _, x := range m.Mementos {
		got = append(got, x.URIM)
	}
	if diff := cmp.Diff([]string{"http://a/1", "http://b/1", "http://b/2", "http://a/3"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if m.Original != "http://r/" || m.TimeGate != "http://tg/" || m.Duplicates != 1 || len(a.Mementos) != 2 {
		t.Errorf("%+v; inputs changed: %d", m, len(a.Mementos))
	}
}
