package ukvs

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckNULKey: a NUL byte in a key is refused by the one line rule,
// naming the line and the NUL's column, in Check and CheckLine alike.
func TestCheckNULKey(t *testing.T) {
	doc := "!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\"]}\ncom,a)/ 1\ncom,b)/x\x00y 2\n"
	_, err := Check(strings.NewReader(doc))
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNULKey) || pe.Line != 3 || pe.Column != 9 {
		t.Fatalf("Check: %v; want ErrNULKey at line 3, column 9", err)
	}
	var rec Record
	if col, err := CheckLine([]byte("com,b)/x\x00y 2"), DefaultFields(), &rec); !errors.Is(err, ErrNULKey) || col != 9 {
		t.Errorf("CheckLine: column %d, %v; want ErrNULKey at column 9", col, err)
	}
	// The datetime key column of a time-keyed map too.
	f := Fields{Keys: []string{"surt", "datetime"}, Values: []string{"frequency"}}
	if col, err := CheckLine([]byte("com,b)/ 2015\x00 2"), f, &rec); !errors.Is(err, ErrNULKey) || col != 13 {
		t.Errorf("CheckLine datetime: column %d, %v; want an error", col, err)
	}
}

// TestCheckOutOfOrderNamesDatetime: in a map keyed by URI and datetime,
// the out-of-order error names both columns of both lines.
func TestCheckOutOfOrderNamesDatetime(t *testing.T) {
	doc := "!fields {\"keys\": [\"surt\", \"datetime\"], \"values\": [\"frequency\"]}\ncom,a)/ 2016 1\ncom,a)/ 2015 2\n"
	_, err := Check(strings.NewReader(doc))
	if !errors.Is(err, ErrOutOfOrder) {
		t.Fatalf("Check: %v; want ErrOutOfOrder", err)
	}
	want := `ukvs: line 3: key out of byte-wise order after line 2: surt "com,a)/" datetime "2015" sorts before line 2's surt "com,a)/" datetime "2016" (key "com,a)/")`
	if err.Error() != want {
		t.Errorf("Check:\n got %s\nwant %s", err, want)
	}
	doc = "!fields {\"keys\": [\"surt\", \"datetime\"], \"values\": [\"frequency\"]}\ncom,a)/ 2016 1\ncom,a)/ 2016 2\n"
	if _, err := Check(strings.NewReader(doc)); !errors.Is(err, ErrDuplicateKey) || !strings.Contains(err.Error(), `datetime "2016" repeats line 2's`) {
		t.Errorf("Check of a repeated key and datetime: %v", err)
	}
}
