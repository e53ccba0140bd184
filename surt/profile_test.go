package surt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNewOptions: nil and the zero Options are the standard's defaults (the
// keys of Default), each field changes the one thing it names, and Options
// gives back what a Profile was made with.
func TestNewOptions(t *testing.T) {
	urls := []string{
		"http://www.Example.com/A?B=C&a=b", "https://1.2.3.4:8080/x", "http://www.com/",
		"http://example.com/?q=a%26b", "dns:www.example.com", "cdn.example.com:443",
	}
	keys := func(p *Profile) []string {
		var out []string
		for _, u := range urls {
			k, err := p.Canonicalize(u)
			if err != nil {
				k = "error: " + err.Error()
			}
			out = append(out, k)
		}
		return out
	}
	std := keys(Default)
	for name, p := range map[string]*Profile{"nil": New(nil), "zero": New(&Options{})} {
		if d := cmp.Diff(std, keys(p)); d != "" {
			t.Errorf("New(%s) differs from Default (-Default +got):\n%s", name, d)
		}
	}
	for _, tt := range []struct {
		name string
		o    Options
		url  string
		want string
	}{
		{"IncludeScheme", Options{IncludeScheme: true}, "http://www.example.com/a", "http://(com,example)/a"},
		{"TrailingComma", Options{TrailingComma: true}, "http://www.example.com/a", "com,example,)/a"},
		{"NoHostMassage", Options{NoHostMassage: true}, "http://www.example.com/a", "com,example,www)/a"},
		{"NoReverseIPAddr", Options{NoReverseIPAddr: true}, "http://1.2.3.4/a", "1.2.3.4)/a"},
		{"NoQueryLowercase", Options{NoQueryLowercase: true}, "http://example.com/a?B=C", "com,example)/a?B=C"},
		{"FixDefects", Options{FixDefects: true}, "http://www.com/", "com,www)/"},
	} {
		o := tt.o
		p := New(&o)
		o.IncludeScheme = !o.IncludeScheme // New keeps no reference to its options
		if got, err := p.Canonicalize(tt.url); err != nil || got != tt.want {
			t.Errorf("%s: Canonicalize(%q) = %q, %v; want %q", tt.name, tt.url, got, err, tt.want)
		}
		if def, _ := Default.Canonicalize(tt.url); def == tt.want {
			t.Errorf("%s: Default gives %q too: the case does not test the option", tt.name, def)
		}
		if got := p.Options(); got != tt.o {
			t.Errorf("%s: Options() = %+v, want %+v", tt.name, got, tt.o)
		}
	}
	for _, p := range []*Profile{Default, WithScheme, Fixed, FixedWithScheme} {
		o := p.Options()
		if d := cmp.Diff(keys(p), keys(New(&o))); d != "" {
			t.Errorf("New(%v.Options()) differs (-%s +got):\n%s", p, p, d)
		}
	}
}
