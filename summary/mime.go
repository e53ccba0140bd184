package summary

import "unsafe"

// CategorizeMIME returns the category of a media type as this package counts
// it by default: the type/subtype is compared case-insensitively and without
// parameters (RFC 2045 section 5.1: "text/HTML; charset=utf-8" is html), and
// surrounding spaces are ignored. A comma-joined value, as crawlers record a
// Content-Type header sent twice ("text/html, text/html"), is categorized by
// its first type. The groups are those of cdx-summarize:
//
//	html   text/html, application/xhtml+xml, text/plain
//	css    text/css
//	image  image/*
//	pdf    application/pdf
//	video  video/*
//	audio  audio/*
//	js     application/javascript, text/javascript, application/x-javascript
//	json   application/json, text/json
//	font   font/*, application/vnd.ms-fontobject, application/font*, application/x-font*
//	other  everything else, including a missing or unknown type ("-", "unk")
//
// It does not allocate.
func CategorizeMIME(mime string) Category {
	// Strip parameters and surrounding blanks; of a comma-joined list
	// (a Content-Type header sent twice, "text/html, text/html"), keep the
	// first type.
	for i := 0; i < len(mime); i++ {
		if mime[i] == ';' || mime[i] == ',' {
			mime = mime[:i]
			break
		}
	}
	for len(mime) > 0 && (mime[0] == ' ' || mime[0] == '\t') {
		mime = mime[1:]
	}
	for len(mime) > 0 && (mime[len(mime)-1] == ' ' || mime[len(mime)-1] == '\t') {
		mime = mime[:len(mime)-1]
	}
	// Lower-case into a small stack buffer; media types longer than the
	// buffer are not among the named ones except by prefix.
	var buf [48]byte
	n := len(mime)
	if n > len(buf) {
		n = len(buf)
	}
	for i := 0; i < n; i++ {
		c := mime[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	if n == 0 {
		return Other
	}
	// The string view of buf does not outlive this call.
	return categorizeLower(unsafe.String(&buf[0], n), len(mime) > len(buf))
}

// categorizeLower applies the cdx-summarize rules to an already normalized
// type; truncated says the type was longer than what m holds, so only the
// prefix rules may match.
func categorizeLower(m string, truncated bool) Category {
	if !truncated {
		switch m {
		case "text/html", "application/xhtml+xml", "text/plain":
			return HTML
		case "text/css":
			return CSS
		case "application/pdf":
			return PDF
		case "application/javascript", "text/javascript", "application/x-javascript":
			return JS
		case "application/json", "text/json":
			return JSON
		case "application/vnd.ms-fontobject":
			return Font
		}
	}
	switch {
	case hasPrefix(m, "image/"):
		return Image
	case hasPrefix(m, "video/"):
		return Video
	case hasPrefix(m, "audio/"):
		return Audio
	case hasPrefix(m, "font/"), hasPrefix(m, "application/font"), hasPrefix(m, "application/x-font"):
		return Font
	}
	return Other
}

// compatCategory is the original tool's add_mime: exact, case-sensitive
// comparisons on the whole string, parameters included.
func compatCategory(m string) Category {
	switch m {
	case "text/html", "application/xhtml+xml", "text/plain":
		return HTML
	case "text/css":
		return CSS
	}
	if hasPrefix(m, "image/") {
		return Image
	}
	if m == "application/pdf" {
		return PDF
	}
	if hasPrefix(m, "video/") {
		return Video
	}
	if hasPrefix(m, "audio/") {
		return Audio
	}
	switch m {
	case "application/javascript", "text/javascript", "application/x-javascript":
		return JS
	case "application/json", "text/json":
		return JSON
	}
	if hasPrefix(m, "font/") || m == "application/vnd.ms-fontobject" || hasPrefix(m, "application/font") || hasPrefix(m, "application/x-font") {
		return Font
	}
	return Other
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
