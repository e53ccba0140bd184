package cdxj

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLayout(t *testing.T) {
	type cols struct {
		Key, TS, URL, MIME, Status, Digest, Length, Offset, Filename int8
		KeyIsSURT                                                    bool
		Columns                                                      int
	}
	of := func(l *Layout) cols {
		return cols{l.idx[fKey], l.idx[fTimestamp], l.idx[fURL], l.idx[fMIME], l.idx[fStatus], l.idx[fDigest],
			l.idx[fLength], l.idx[fOffset], l.idx[fFilename], l.KeyIsSURT(), l.Columns()}
	}
	tests := []struct {
		name, header string
		want         cols
		wantErr      bool
	}{
		{"CDX11 with leading space", " CDX N b a m s k r M S V g", cols{0, 1, 2, 3, 4, 5, 8, 9, 10, true, 11}, false},
		{"CDX9 without leading space", "CDX N b a m s k r V g\r\n", cols{0, 1, 2, 3, 4, 5, -1, 7, 8, true, 9}, false},
		{"wget", " CDX a b a m s k r M V g u", cols{0, 1, 2, 3, 4, 5, -1, 8, 9, false, 11}, false},
		{"IA legend default with fallbacks", " CDX A b e a m s c k r V v D d g M n", cols{0, 1, 3, 4, 5, 7, 15, 9, 13, true, 16}, false},
		{"old checksum only", "CDX N b a c n v g", cols{0, 1, 2, -1, -1, 3, 4, 5, 6, true, 7}, false},
		{"not a legend", "N b a m s k", cols{}, true},
		{"CDXJ-like", "CDXJ N b", cols{}, true},
		{"no timestamp", " CDX N a m", cols{}, true},
		{"no key", " CDX b m s", cols{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLayout(tt.header)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseLayout(%q) error = %v, want error %v", tt.header, err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrHeader) {
					t.Errorf("error %v does not wrap ErrHeader", err)
				}
				return
			}
			if diff := cmp.Diff(tt.want, of(l)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLayoutsByCount(t *testing.T) {
	for n, want := range map[int]string{
		7: "CDX N b a m s k S", 9: "CDX N b a m s k r V g", 10: "CDX N b a m s k r M V g", 11: "CDX N b a m s k r M S V g",
		14: "CDX N b a m s k r M S V g + orig.length orig.offset orig.filename",
	} {
		l := layoutForCount(n)
		if l == nil || l.String() != want || l.Columns() != n {
			t.Errorf("layoutForCount(%d) = %v, want %q with %d columns", n, l, want, n)
		}
	}
	for _, n := range []int{0, 1, 2, 3, 8, 12, 13, 15} {
		if l := layoutForCount(n); l != nil {
			t.Errorf("layoutForCount(%d) = %v, want nil", n, l)
		}
	}
}
