-- mementokit cache schema, version 1.
--
-- The tables of the Time Travel aggregator (LANL), with their names and the
-- meaning of their columns kept, and what correctness needs added:
--   * URL columns are BLOB: byte-exact and long enough for 8 KiB (up to
--     16 KiB, cache.MaxURILen) URIs; rows are found by the MD5 hash keys.
--   * linkmaster.lastused (generated) indexes Cleanup of unrequested entries.
--   * jobs.hashkey is UNIQUE (one job per URI-R: the original's
--     "insert ignore" needs it), jobs.claimtime records when a worker took
--     the job (released after a timeout), jobs.process_id holds a worker name.
--   * archive_register.hostname holds the archive id (archivelist.xml
--     link@id), byte-exact (VARBINARY: no collation folds "IA" into "ia").
-- Statements are separated by a line holding only ";" -- see migrate.go.

CREATE TABLE IF NOT EXISTS linkmaster (
  url      BLOB NOT NULL,                   -- URI-R, scheme removed
  id       CHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,  -- MD5(url), lower-case hex
  reqtime  DATETIME NULL,                   -- last request (UTC)
  numreq   BIGINT NOT NULL DEFAULT 0,       -- request count
  updtime  DATETIME NULL,                   -- last search stored (UTC); NULL: pending
  status   CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NULL,  -- NULL found, N none, F failed, B blocked
  lastused DATETIME AS (COALESCE(reqtime, updtime)) STORED,
  PRIMARY KEY (id),
  KEY linkmaster_updtime (updtime, id),
  KEY linkmaster_lastused (lastused, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS links (
  id         CHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,  -- linkmaster.id
  mdate      DATETIME NOT NULL,             -- Memento-Datetime (UTC)
  archive_id INT NOT NULL,                  -- archive_register.id
  href       BLOB NOT NULL,                 -- URI-M
  type       VARCHAR(255) NULL,             -- media type; NULL: unknown
  rel        VARCHAR(255) NULL,             -- link relation types; NULL: unknown
  part       INT NOT NULL,                  -- 0, 1, ... among mementos of one (id, mdate, archive_id)
  status     CHAR(1) NULL,                  -- unused, kept from the original
  PRIMARY KEY (id, mdate, archive_id, part)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS jobs (
  id         BIGINT NOT NULL AUTO_INCREMENT,
  url        BLOB NOT NULL,                 -- URI-R as enqueued, scheme included
  reqtime    DATETIME NOT NULL,             -- enqueued or reopened (UTC)
  process_id VARCHAR(255) NULL,             -- worker that claimed it; NULL: waiting
  claimtime  DATETIME NULL,                 -- when claimed; NULL: waiting
  compltime  DATETIME NULL,                 -- when completed; NULL: open
  priority   CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,  -- '1' live ... '9'; lower first
  hashkey    CHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,  -- MD5 of the URI-R without scheme
  PRIMARY KEY (id),
  UNIQUE KEY jobs_hashkey (hashkey),
  KEY jobs_queue (compltime, claimtime, priority, reqtime, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS archive_register (
  id       INT NOT NULL AUTO_INCREMENT,
  hostname VARBINARY(255) NOT NULL,         -- the archive id, e.g. "ia"
  timegate VARCHAR(1024) NULL,
  timemap  VARCHAR(1024) NULL,
  name     VARCHAR(255) NULL,
  cal_page VARCHAR(1024) NULL,
  PRIMARY KEY (id),
  UNIQUE KEY archive_register_hostname (hostname)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
