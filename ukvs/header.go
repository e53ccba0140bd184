package ukvs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Header is one "!" line of the UKVS header section (ORS draft ukvs.md):
// `!name value`, where value is single-line JSON. The draft's own examples
// write object keys without quotes (`!fields {keys: ["surt"], values:
// ["frequency"]}`); such keys are accepted and quoted in Value.
type Header struct {
	Name  string          // the name without "!", e.g. "context", "id", "fields", "meta"
	Value json.RawMessage // the value as strict JSON (nil when the line has no value)
	Raw   string          // the value exactly as written, for faithful copying
}

// The header names the UKVS draft defines.
const (
	HeaderContext = "context" // JSON-LD context(s) for the terms used
	HeaderID      = "id"      // what the document is about, e.g. {"uri": "http://archive.example.org/"}
	HeaderFields  = "fields"  // the key and value columns, see Fields
	HeaderMeta    = "meta"    // free metadata; may repeat, later keys override earlier ones
)

// Fields is the value of the !fields header: the names of the key columns
// and of the value columns of every data line, in order. A MementoMap uses
// {"keys": ["surt"], "values": ["frequency"]}, which is also what a reader
// assumes when a file has no !fields header ([DefaultFields]).
type Fields struct {
	Keys   []string `json:"keys"`
	Values []string `json:"values"`
}

// DefaultFields returns the MementoMap layout, one "surt" key column and one
// "frequency" value column (MementoMap paper, Figure 2).
func DefaultFields() Fields {
	return Fields{Keys: []string{"surt"}, Values: []string{"frequency"}}
}

// Index returns the position of the value column called name, or -1.
func (f Fields) Index(name string) int {
	for i, v := range f.Values {
		if v == name {
			return i
		}
	}
	return -1
}

// KeyIndex returns the position of the key column called name, or -1.
func (f Fields) KeyIndex(name string) int {
	for i, v := range f.Keys {
		if v == name {
			return i
		}
	}
	return -1
}

// Headers is the header section of a UKVS document, in file order.
type Headers []Header

// Fields returns the layout declared by the last !fields header, or
// [DefaultFields] when there is none. A !fields header whose value does not
// decode as [Fields], or that declares no key column, gives an error
// wrapping [ErrHeader], with the layout in effect before it.
func (hs Headers) Fields() (Fields, error) {
	f := DefaultFields()
	for _, h := range hs {
		if h.Name != HeaderFields {
			continue
		}
		var v Fields
		if err := json.Unmarshal(h.Value, &v); err != nil {
			return f, fmt.Errorf("%w: !fields: %v", ErrHeader, err)
		}
		if len(v.Keys) == 0 {
			return f, fmt.Errorf("%w: !fields declares no key column", ErrHeader)
		}
		f = v
	}
	return f, nil
}

// Meta merges the objects of every !meta header, later keys overriding
// earlier ones, into one map. A !meta value that is not an object is an
// error wrapping [ErrHeader].
func (hs Headers) Meta() (map[string]any, error) {
	m := map[string]any{}
	for _, h := range hs {
		if h.Name != HeaderMeta {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(h.Value, &v); err != nil {
			return nil, fmt.Errorf("%w: !meta: %v", ErrHeader, err)
		}
		for k, x := range v {
			m[k] = x
		}
	}
	return m, nil
}

// Get returns the first header called name.
func (hs Headers) Get(name string) (Header, bool) {
	for _, h := range hs {
		if h.Name == name {
			return h, true
		}
	}
	return Header{}, false
}

// parseHeader parses a line that starts with '!'.
func parseHeader(line []byte) (Header, error) {
	rest := line[1:]
	i := 0
	for i < len(rest) && rest[i] != ' ' && rest[i] != '\t' {
		i++
	}
	if i == 0 {
		return Header{}, fmt.Errorf("%w: no name after '!'", ErrHeader)
	}
	h := Header{Name: string(rest[:i])}
	raw := bytes.TrimSpace(rest[i:])
	if len(raw) == 0 {
		return h, nil
	}
	h.Raw = string(raw)
	v, err := RelaxedJSON(raw)
	if err != nil {
		return Header{}, err
	}
	h.Value = v
	if h.Name == HeaderFields {
		if _, err := (Headers{h}).Fields(); err != nil {
			return Header{}, err
		}
	}
	return h, nil
}

// RelaxedJSON turns the single-line JSON of a UKVS header or trailing block
// into strict JSON: object keys written as bare identifiers, as in the
// draft's examples (`{keys: ["surt"]}`, `{datetime: {"2014": "20~/10"}}`),
// are quoted; everything else must already be valid JSON ([encoding/json]).
// The result is a new slice. An invalid value returns an error wrapping
// [ErrJSON] that gives the byte offset.
func RelaxedJSON(b []byte) (json.RawMessage, error) {
	out := make([]byte, 0, len(b)+16)
	// stack of open containers: '{' or '['; expectKey is true right after
	// '{' or after ',' inside an object.
	var stack []byte
	var inserted []int // indexes in out of the quotes added around bare keys
	expectKey := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\n' || c == '\r':
			return nil, fmt.Errorf("%w: line break at byte %d", ErrJSON, i)
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return nil, fmt.Errorf("%w: unterminated string at byte %d", ErrJSON, i)
			}
			out = append(out, b[i:j+1]...)
			i = j
			expectKey = false
		case c == '{' || c == '[':
			stack = append(stack, c)
			expectKey = c == '{'
			out = append(out, c)
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
			out = append(out, c)
		case c == ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			out = append(out, c)
		case expectKey && isIdentStart(c):
			j := i
			for j < len(b) && isIdentPart(b[j]) {
				j++
			}
			inserted = append(inserted, len(out), len(out)+j-i+1)
			out = append(out, '"')
			out = append(out, b[i:j]...)
			out = append(out, '"')
			i = j - 1
			expectKey = false
		case c == ' ' || c == '\t':
			out = append(out, c)
		default:
			expectKey = false
			out = append(out, c)
		}
	}
	if !json.Valid(out) {
		var v any
		err := json.Unmarshal(out, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the bad one included; map it
			// back to the input by discounting the quotes we added.
			at := int(se.Offset) - 1
			n := 0
			for _, q := range inserted {
				if q < at {
					n++
				}
			}
			return nil, fmt.Errorf("%w: %v (at byte %d of the value)", ErrJSON, se, at-n)
		}
		return nil, fmt.Errorf("%w: %v", ErrJSON, err)
	}
	return out, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '-'
}
