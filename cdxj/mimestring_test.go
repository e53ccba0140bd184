package cdxj

import "testing"

// TestMIMEString: the string form of MIME is the recorded value, "" when the
// line has none, and outlives the record's line buffer.
func TestMIMEString(t *testing.T) {
	buf := []byte(`com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html; charset=utf-8", "status": "200"}`)
	r, err := ParseLine(buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := r.MIMEString()
	for i := range buf {
		buf[i] = 'x'
	}
	if got != "text/html; charset=utf-8" {
		t.Errorf("MIMEString = %q, want %q", got, "text/html; charset=utf-8")
	}
	r, err = ParseLine([]byte(`com,example)/ 20170306040206 {"url": "http://example.com/"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.MIMEString(); got != "" || r.MIME() != nil {
		t.Errorf("no mime: MIMEString = %q, MIME = %q", got, r.MIME())
	}
}
