package count

import "testing"

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 mementos"}, {1, "1 memento"}, {2, "2 mementos"}, {-1, "-1 mementos"}, {1208, "1208 mementos"}} {
		if got := Of(tc.n, "memento", "mementos"); got != tc.want {
			t.Errorf("Of(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Of(1, "memento makes", "mementos make"); got != "1 memento makes" {
		t.Errorf("Of(1, a verb too) = %q", got)
	}
}
