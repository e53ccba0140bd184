package ukvs

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFrequency(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Frequency
	}{
		{"both exact", "54321/20000", Frequency{URIM: Exactly(54321), URIR: Exactly(20000)}},
		{"urim lower bound", "10000+", Frequency{URIM: Count{N: 10000, Known: true, Bound: AtLeast}}},
		{"about and exact", "2500~/900", Frequency{URIM: Count{N: 2500, Known: true, Bound: About}, URIR: Exactly(900)}},
		{"lower and upper", "300+/20-", Frequency{URIM: Count{N: 300, Known: true, Bound: AtLeast}, URIR: Count{N: 20, Known: true, Bound: AtMost}}},
		{"zero", "0", Frequency{URIM: Exactly(0)}},
		{"urir only", "/50", Frequency{URIR: Exactly(50)}},
		{"urir lower bound only", "/50+", Frequency{URIR: Count{N: 50, Known: true, Bound: AtLeast}}},
		{"urim with slash", "200/", Frequency{URIM: Exactly(200), Slash: true}},
		{"explicit nothing known", "/", Frequency{Slash: true}},
		{"placeholder", "-", Frequency{}},
		{"zero mementos some uris", "0/20", Frequency{URIM: Exactly(0), URIR: Exactly(20)}},
		{"max uint64", "18446744073709551615", Frequency{URIM: Exactly(math.MaxUint64)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFrequency(tt.in)
			if err != nil {
				t.Fatalf("ParseFrequency(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseFrequency(%q) (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.in {
				t.Errorf("String() = %q, want %q", s, tt.in)
			}
			var u Frequency
			if err := u.UnmarshalText([]byte(tt.in)); err != nil || u != got {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tt.in, u, err, got)
			}
		})
	}
}

func TestParseFrequencyErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		offset int
	}{
		{"empty", "", 0},
		{"leading zero", "007", 0},
		{"leading zero urir", "5/01", 2},
		{"suffix alone", "+", 0},
		{"suffix alone after slash", "5/~", 2},
		{"two suffixes", "5++", 2},
		{"two slashes", "5/6/7", 3},
		{"letters", "abc", 0},
		{"space", "5 /6", 1},
		{"negative", "-5", 0},
		{"overflow", "18446744073709551616", 0},
		{"double dash", "--", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFrequency(tt.in)
			if !errors.Is(err, ErrFrequency) {
				t.Fatalf("ParseFrequency(%q) error = %v, want ErrFrequency", tt.in, err)
			}
			var fe *FrequencyError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not *FrequencyError", err)
			}
			if fe.Offset != tt.offset || fe.Text != tt.in {
				t.Errorf("error %v: offset %d text %q, want offset %d", err, fe.Offset, fe.Text, tt.offset)
			}
		})
	}
}

// TestFrequencyHoldsNothing: the frequencies that hold nothing, and
// whether a map's data line may hold each (CheckLine), as the doc of
// HoldsNothing lists them: "0/20" and "0/0" hold nothing but no data line
// may hold them.
func TestFrequencyHoldsNothing(t *testing.T) {
	tests := []struct {
		in       string
		want     bool
		badOnMap bool // CheckLine refuses it on a data line
	}{
		{"0", true, false}, {"0-", true, false}, {"/0", true, false}, {"0/", true, false}, {"0/20-", true, false},
		{"0/20", true, true}, {"0/0", true, true},
		{"0~", false, false}, {"0+", false, false}, {"-", false, false}, {"/", false, false}, {"1", false, false},
		{"5/0", false, true}, {"/50", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := ParseFrequency(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.HoldsNothing(); got != tt.want {
				t.Errorf("ParseFrequency(%q).HoldsNothing() = %v, want %v", tt.in, got, tt.want)
			}
			var rec Record
			if _, err := CheckLine([]byte("com,example)/ "+tt.in), DefaultFields(), &rec); (err != nil) != tt.badOnMap {
				t.Errorf("CheckLine of a data line with %q: %v, want refused %v", tt.in, err, tt.badOnMap)
			}
		})
	}
	if (Frequency{}).Known() || !(Frequency{URIR: Exactly(0)}).Known() {
		t.Error("Known() wrong for the zero Frequency or a known zero URI-R count")
	}
}

func TestFrequencyAdd(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"exact plus exact", "100/10", "20/2", "120/12"},
		{"exact urim only", "100", "20", "120"},
		{"lower plus exact", "300+", "20", "320+"},
		{"upper plus exact", "300-", "20", "320-"},
		{"about plus exact", "300~", "20", "320~"},
		{"lower plus lower", "1+/1+", "2+/2+", "3+/3+"},
		{"upper plus upper", "1-", "2-", "3-"},
		{"lower plus upper is about", "300+/20-", "20-/5+", "320~/25~"},
		{"about wins", "1~", "2+", "3~"},
		{"zero is neutral", "0", "7+/3", "7+/3+"},
		{"exact plus unknown urir", "10/5", "10", "20/5+"},
		{"upper plus unknown is unknown", "/5-", "/", "/"},
		{"about plus unknown is unknown", "5~", "/3", "/3+"},
		{"unknown plus unknown", "-", "-", "-"},
		{"slash kept", "200/", "100", "300/"},
		{"saturates", "18446744073709551615", "1", "18446744073709551615+"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, errA := ParseFrequency(tt.a)
			b, errB := ParseFrequency(tt.b)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if got := a.Add(b).String(); got != tt.want {
				t.Errorf("%s + %s = %s, want %s", tt.a, tt.b, got, tt.want)
			}
			if got := b.Add(a).String(); got != tt.want {
				t.Errorf("%s + %s = %s, want %s (Add must commute)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestFrequencyAppendNoAlloc(t *testing.T) {
	f, _ := ParseFrequency("300+/20-")
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		buf = f.Append(buf[:0])
		var g Frequency
		if err := g.UnmarshalText(buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Append+UnmarshalText allocate %v times per run, want 0", allocs)
	}
}
