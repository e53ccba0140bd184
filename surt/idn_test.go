package surt

import (
	"strings"
	"testing"
)

// TestIDN pins IDNA 2003 results; the expected keys were produced by the
// Python reference (surt 0.3.1 on Python 3.11's idna codec).
func TestIDN(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://☃.com/", "com,xn--n3h)/"},
		{"http://ß.de/", "de,ss)/"},                      // B.2 case folding, not IDNA 2008's xn--zca
		{"http://a\u200db.com/", "com,ab)/"},             // ZWJ mapped to nothing (B.1)
		{"http://xn--ü.com/", "com,xn--%c3%bc)/"},        // ACE prefix on a non-ASCII label: raw bytes kept
		{"http://⒈.com/", "com,1)/"},                     // NFKC gives "1.", a label of its own
		{"http://ＡＢＣ.com/", "com,abc)/"},                 // full-width letters
		{"http://пример.рф/", "xn--p1ai,xn--e1afmkfd)/"}, // Cyrillic
		{"http://例え.jp/", "jp,xn--r8jz45g)/"},
		{"http://ﬀ.com/", "com,ff)/"},
		{"http://x😀y.com/", "com,xn--xy-no82a)/"},       // unassigned in Unicode 3.2: allowed
		{"http://%D8%A7%D8%A8.com/", "com,xn--mgbc)/"},  // escaped UTF-8 host, right-to-left
		{"http://a%D8%A7.com/", "com,a%d8%a7)/"},        // bidi violation: raw bytes kept
		{"http://é..com/", "com,%c3%a9)/"},              // empty label: raw bytes kept
		{"http://Ü.com./", "com,xn--tda)/"},             // trailing dot
		{"http://İ.com/", "com,xn--i-9bb)/"},            // U+0130 folds to "i̇"
		{"http://\u0001\u0080.com/", "com,%01%c2%80)/"}, // prohibited: raw bytes kept
		{"http://www.t%EF%BF%BD%04.82.net/", "net,82,t%ef%bf%bd%04)/"},
	}
	for _, tc := range tests {
		got, err := Canonicalize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Canonicalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestPunycode checks the encoder against RFC 3492 section 7.1 samples.
func TestPunycode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"bücher", "bcher-kva"},
		{"münchen", "mnchen-3ya"},
		{"\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F", "egbpdaj6bu4bxfgehfvwxn"},
		{"\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587", "ihqwcrb4cv8a8dqg056pqjye"},
		{"3\u5E74B\u7D44\u91D1\u516B\u5148\u751F", "3B-ww4c5e180e575a65lsy2b"},
		{"\u3072\u3068\u3064\u5C4B\u6839\u306E\u4E0B2", "2-u9tlzr9756bt3uc0v"},
	}
	for _, tc := range tests {
		if got := punycodeEncode(tc.in); got != tc.want {
			t.Errorf("punycodeEncode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestIDNNormalization holds labels on which the package's NFKC once
// differed from the standard's (Python's unicodedata.ucd_3_2_0); every
// expected key was produced by the Python reference.
func TestIDNNormalization(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// Unicode 4.0 corrected these decompositions; ucd_3_2_0 keeps the old ones.
		{"U+2F868 keeps its Unicode 3.2 mapping", "http://x\U0002F868y.com/", "com,xn--xy-2364a)/"},
		{"U+2F874 keeps its Unicode 3.2 mapping", "http://x\U0002F874y.com/", "com,xn--xy-9m3d)/"},
		{"U+2F91F keeps its Unicode 3.2 mapping", "http://x\U0002F91Fy.com/", "com,xn--xy-5d6b)/"},
		{"U+2F95F keeps its Unicode 3.2 mapping", "http://x\U0002F95Fy.com/", "com,xn--xy-9u0f)/"},
		{"U+2F9BF keeps its Unicode 3.2 mapping", "http://x\U0002F9BFy.com/", "com,xn--xy-eg2c)/"},
		// Code points unassigned in 3.2 are not decomposed, yet compose.
		{"code points unassigned in 3.2 compose", "http://\u1b05\u1b35.com/", "com,xn--9sf)/"},
		{"unassigned in 3.2, not decomposed", "http://\u1b06\u0301.com/", "com,xn--lsa114j)/"},
		{"unassigned base and 35 marks", "http://\u1b05" + strings.Repeat("\u0301", 35) + ".com/", "com,xn--lsaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa7042t)/"},
		// No U+034F after 30 non-starters (x/text's Stream-Safe Text Format).
		{"31 combining marks, no U+034F inserted", "http://a" + strings.Repeat("\u0301", 31) + ".com/", "com,xn--1ca20iaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)/"},
		{"40 marks of two classes reordered", "http://a" + strings.Repeat("\u0316\u0301", 20) + ".com/", "com,xn--1ca20iaaaaaaaaaaaaaaaaaa63baaaaaaaaaaaaaaaaaaa)/"},
		// Python 3.11 has Unicode 14.0: marks added in 15.0 are class 0 there.
		{"Unicode 15.0 mark is class 0 in Python 3.11", "http://e\U0001E4EE\u0301\u0323\U0001E4EE.com/", "com,xn--e-xbb5h1835tca)/"},
		{"Unicode 15.0 mark after an unassigned base", "http://\u1b05\U0001E4ED\u0301\u0316abcdefghij.com/", "com,xn--abcdefghij-q0f5ws85zvy41f)/"},
		// Unchanged: compositions of code points assigned in 3.2.
		{"Myanmar pair composes as today", "http://\u1025\u102e.com/", "com,xn--qjd)/"},
		{"Hangul jamo compose", "http://\u1100\u1161\u11a8.com/", "com,xn--p39a)/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("Canonicalize(%+q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
