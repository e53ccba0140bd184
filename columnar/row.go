package columnar

import "time"

// Row is one capture: one row of the capture table. Field order is column
// order. The columns named like Common Crawl's cc-index-table columns have
// their meaning and Parquet types (see the package documentation for the
// table of columns and their sources); the last seven are this package's.
//
// A string column is NULL where its field is "" (unknown or absent in the
// index); the integer columns that Common Crawl declares non-null hold -1
// for unknown, as its tables do. A Row read back from a file has exactly the
// values that were written.
type Row struct {
	// URLSurtKey is the record's SURT key (see SURTKey): the index key
	// when it is a SURT ("com,example)/path"), else the SURT of the
	// original URL (wget's CDX is keyed by URL); "-" for cdxj-indexer's
	// warcinfo lines.
	URLSurtKey string `parquet:"url_surtkey,delta"`
	// URL is the original URL (URI-R), as indexed.
	URL string `parquet:"url,optional,delta"`
	// URLHostName is the lower-case host of URL, in ASCII (IDNA Punycode),
	// without a trailing dot; an IPv6 address keeps its brackets. When the
	// record has no URL it is the host of a SURT key, without "www.".
	URLHostName string `parquet:"url_host_name,optional,dict"`
	// URLHostTLD is the host's last label ("com"); URLHost2ndLastPart to
	// URLHost5thLastPart are the labels before it, right to left. NULL
	// for an IP address.
	URLHostTLD         string `parquet:"url_host_tld,optional,dict"`
	URLHost2ndLastPart string `parquet:"url_host_2nd_last_part,optional,dict"`
	URLHost3rdLastPart string `parquet:"url_host_3rd_last_part,optional,dict"`
	URLHost4thLastPart string `parquet:"url_host_4th_last_part,optional,dict"`
	URLHost5thLastPart string `parquet:"url_host_5th_last_part,optional,dict"`
	// URLHostRegistrySuffix is the host's public suffix under the ICANN
	// section of the Public Suffix List ("com", "co.uk"), and
	// URLHostRegisteredDomain that suffix plus one label ("bbc.co.uk").
	URLHostRegistrySuffix   string `parquet:"url_host_registry_suffix,optional,dict"`
	URLHostRegisteredDomain string `parquet:"url_host_registered_domain,optional,dict"`
	// URLHostPrivateSuffix and URLHostPrivateDomain are the same under
	// both sections of the list, private included ("blogspot.com",
	// "myblog.blogspot.com").
	URLHostPrivateSuffix string `parquet:"url_host_private_suffix,optional,dict"`
	URLHostPrivateDomain string `parquet:"url_host_private_domain,optional,dict"`
	// URLHostNameReversed is the host's labels in reverse order, dotted
	// ("com.example.www"); NULL for an IP address.
	URLHostNameReversed string `parquet:"url_host_name_reversed,optional,dict"`
	// URLProtocol is URL's scheme in lower case ("https", "dns").
	URLProtocol string `parquet:"url_protocol,optional,dict"`
	// URLPort is the port written in URL; NULL (0 here) when URL gives
	// none.
	URLPort int32 `parquet:"url_port,optional"`
	// URLPath is URL's path ("/a/b.html"), URLQuery its query without the
	// '?' ("q=1").
	URLPath  string `parquet:"url_path,optional,delta"`
	URLQuery string `parquet:"url_query,optional,delta"`
	// FetchTime is the capture time (Memento-Datetime) in UTC: the
	// earliest instant the index's timestamp covers, to the millisecond.
	FetchTime time.Time `parquet:"fetch_time,timestamp(millisecond),delta"`
	// FetchStatus is the HTTP status code, -1 when the index has none (a
	// revisit's "-", a request record), as in Common Crawl's tables. It
	// follows summary.RecordStatus.
	FetchStatus int16 `parquet:"fetch_status,int(16),dict"`
	// FetchRedirect is the redirect target (CDX column r, CDXJ "redirect").
	FetchRedirect string `parquet:"fetch_redirect,optional,delta"`
	// ContentDigest is the payload digest as indexed (base-32 SHA-1,
	// possibly with a "sha1:" prefix).
	ContentDigest string `parquet:"content_digest,optional,delta"`
	// ContentMIMEType is the media type as indexed ("text/html;
	// charset=utf-8", "warc/revisit", "unk").
	ContentMIMEType string `parquet:"content_mime_type,optional,dict"`
	// ContentMIMEDetected, ContentCharset, ContentLanguages and
	// ContentTruncated are the CDXJ members "mime-detected", "charset"
	// (or "encoding"), "languages" and "truncated" that Common Crawl's
	// indexes carry.
	ContentMIMEDetected string `parquet:"content_mime_detected,optional,dict"`
	ContentCharset      string `parquet:"content_charset,optional,dict"`
	ContentLanguages    string `parquet:"content_languages,optional,dict"`
	ContentTruncated    string `parquet:"content_truncated,optional,dict"`
	// WARCFilename is the WARC (or ARC) file holding the record, as
	// indexed (it may contain '/').
	WARCFilename string `parquet:"warc_filename,optional,dict"`
	// WARCRecordOffset and WARCRecordLength locate the record in its
	// (compressed) file, in bytes; -1 when unknown. A length above
	// summary.MaxRecordLength is taken as unknown, as summaries take it.
	WARCRecordOffset int64 `parquet:"warc_record_offset,delta"`
	WARCRecordLength int64 `parquet:"warc_record_length,delta"`
	// WARCSegment, Crawl and Subset come from a WARC path of Common
	// Crawl's form crawl-data/CRAWL/segments/SEGMENT/SUBSET/FILE
	// ("CC-MAIN-2017-34", "warc"; the End of Term archive's EOT-2008 too).
	WARCSegment string `parquet:"warc_segment,optional,dict"`
	Crawl       string `parquet:"crawl,optional,dict"`
	Subset      string `parquet:"subset,optional,dict"`

	// RecordKey is the End of Term record key, summary.RecordID: base-32
	// SHA-1 of original URL, 14-digit timestamp and WARC filename.
	RecordKey string `parquet:"record_key,delta"`
	// Organization is the collecting organization of the WARC file by
	// Options.Org (summary.OrgByPrefix by default); summary.UnknownOrg
	// ("-") for a record without a file name. It is the organization of
	// summary.Daily.
	Organization string `parquet:"organization,dict"`
	// ContentMIMECategory is summary.CategorizeMIME of the media type:
	// html, image, video, audio, pdf, js, json, font, css or other.
	ContentMIMECategory string `parquet:"content_mime_category,dict"`
	// Revisit marks a WARC revisit record (media type warc/revisit).
	Revisit bool `parquet:"revisit"`
	// FetchTimeDigits is the number of digits of the index's timestamp:
	// 14 for seconds, 17 with milliseconds, fewer for a partial timestamp
	// (whose FetchTime is the earliest instant it covers). The index's
	// timestamp is the first FetchTimeDigits digits of FetchTime written
	// as YYYYMMDDhhmmssSSS.
	FetchTimeDigits int8 `parquet:"fetch_time_digits,int(8),dict"`
	// InputFile and InputLine name the input and the 1-based line the row
	// comes from.
	InputFile string `parquet:"input_file,dict"`
	InputLine int64  `parquet:"input_line,delta"`
}
