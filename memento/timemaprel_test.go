package memento

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTimeMapRel: the rels of a whole TimeMap of 1 to 4 mementos, and
// the same rels in what WriteLinkFormat writes.
func TestTimeMapRel(t *testing.T) {
	want := map[int]string{
		1: "first last memento",
		2: "first memento|last memento",
		3: "first memento|memento|last memento",
		4: "first memento|memento|memento|last memento",
	}
	for n, w := range want {
		var got []string
		for i := range n {
			got = append(got, TimeMapRel(i, n))
		}
		if g := strings.Join(got, "|"); g != w {
			t.Errorf("n %d: %s, want %s", n, g, w)
		}
	}
	day := func(d int) Memento {
		return Memento{URIM: fmt.Sprintf("http://a.example/%d", d), Datetime: time.Date(2005, 3, d, 0, 0, 0, 0, time.UTC)}
	}
	tm := &TimeMap{Original: "http://example.com/", Mementos: []Memento{day(1), day(2), day(3)}}
	var b strings.Builder
	if err := WriteLinkFormat(&b, tm); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{`rel="first memento"`, `rel="memento"`, `rel="last memento"`} {
		if strings.Count(b.String(), rel) != 1 {
			t.Errorf("%s not once in\n%s", rel, b.String())
		}
	}
}
