package server

import (
	"testing"
)

// FuzzDecodeConfig feeds arbitrary bytes to the configuration file reader:
// it never panics, and a configuration it accepts either passes Config.Check
// or fails it with an error, never a panic.
func FuzzDecodeConfig(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"addr": "127.0.0.1:0", "cache": "memory", "workers": 2, "request_timeout": "3s"}`,
		`{"mementomap": {"ia": "discover", "ukwa": "/maps/ukwa"}, "discover_mementomaps": true}`,
		`{"workers": "two"}`,
		`{"request_timeout": "-1s"}`,
		`{"wrokers": 1}`,
		`{} []`,
		`[`,
		`{"log_level": "DEBUG+2", "log_format": "text"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := DefaultConfig()
		if err := DecodeConfig(b, &c); err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		_ = c.Check()
	})
}

// FuzzMapSourcesSet checks the -mementomap flag parser: an accepted value
// is stored under its trimmed id, and nothing panics.
func FuzzMapSourcesSet(f *testing.F) {
	for _, s := range []string{"ia=discover", "ukwa=https://maps.example/ukwa", " a = b ", "=x", "x=", "nothing", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		var m MapSources
		if err := m.Set(v); err != nil {
			return
		}
		if len(m) != 1 {
			t.Fatalf("Set(%q) stored %d entries", v, len(m))
		}
		for id, src := range m {
			if id == "" || src == "" {
				t.Fatalf("Set(%q) stored an empty id or source: %q=%q", v, id, src)
			}
		}
	})
}
