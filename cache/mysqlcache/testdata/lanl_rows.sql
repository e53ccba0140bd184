-- Rows shaped like those the Time Travel aggregator writes into the tables
-- of lanl_agg_tables.sql (written for these tests; see PROVENANCE.md):
-- linkmaster.url is the URI-R without its scheme and linkmaster.id its
-- MD5 (StorageImpl.java: RemoveProtocol, md5(?)); links.id is that MD5,
-- links.part is set by the part_insert trigger; archive_register.hostname
-- names the archive; jobs.url is the URI-R as requested.
INSERT INTO archive_register (id, hostname, timegate, timemap) VALUES
 (1, 'web.archive.org', 'http://web.archive.org/web/', 'http://web.archive.org/web/timemap/link/'),
 (2, 'arquivo.pt', 'http://arquivo.pt/wayback/', 'http://arquivo.pt/wayback/timemap/link/'),
 (3, 'webarchive.loc.gov', 'http://webarchive.loc.gov/all/', 'http://webarchive.loc.gov/all/timemap/link/')
;
INSERT INTO linkmaster (url, id, reqtime, numreq, updtime) VALUES
 ('example.com/', MD5('example.com/'), '2016-03-05 10:00:00', 12, '2016-03-01 08:30:00'),
 ('example.org/page?q=1&x=%20', MD5('example.org/page?q=1&x=%20'), '2016-02-01 00:00:00', 3, '2016-01-31 23:59:59'),
 ('nothing.example/', MD5('nothing.example/'), '2016-03-04 12:00:00', 2, '2016-03-04 11:59:00'),
 ('pending.example/', MD5('pending.example/'), '2016-03-06 09:00:00', 1, NULL)
;
INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES
 (MD5('example.com/'), '1999-01-25 09:30:00', 1, 'http://web.archive.org/web/19990125093000/http://example.com/', NULL, 'first memento', 0),
 (MD5('example.com/'), '2005-03-01 12:00:00', 1, 'http://web.archive.org/web/20050301120000/http://example.com/', NULL, 'memento', 0),
 (MD5('example.com/'), '2005-03-01 12:00:00', 2, 'http://arquivo.pt/wayback/20050301120000/http://example.com/', NULL, 'memento', 0),
 (MD5('example.com/'), '2012-06-15 08:09:10', 3, 'http://webarchive.loc.gov/all/20120615080910/http://example.com/', 'text/html', 'last memento', 0),
 (MD5('example.org/page?q=1&x=%20'), '2010-01-01 00:00:00', 1, 'http://web.archive.org/web/20100101000000/http://example.org/page?q=1&x=%20', NULL, 'first memento', 0),
 (MD5('example.org/page?q=1&x=%20'), '2011-01-01 00:00:00', 9, 'http://retired.example/web/20110101000000/http://example.org/page?q=1&x=%20', NULL, 'last memento', 0)
;
INSERT INTO jobs (id, url, reqtime, process_id, compltime) VALUES
 (1, 'http://example.com/', '2016-02-28 00:00:00', 101, '2016-03-01 08:30:00'),
 (2, 'http://pending.example/', '2016-03-06 09:00:00', NULL, NULL),
 (3, 'http://claimed.example/', '2016-03-06 09:10:00', 4711, NULL),
 (4, 'http://pending.example/', '2016-03-06 09:30:00', NULL, NULL)
;
