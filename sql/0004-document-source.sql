-- Version 4: documents fetched over HTTP (websites, llms.txt, OpenAPI, wiki pages) keep
-- their web address, which the snippets' Source line shows as url#anchor (NULL: a file
-- of a git repository, shown as <blob prefix><commit>/<path>#anchor), and the ETag and
-- Last-Modified of the answer, sent back as a conditional GET by the next run.
ALTER TABLE documents ADD COLUMN url TEXT;
ALTER TABLE documents ADD COLUMN etag TEXT;
ALTER TABLE documents ADD COLUMN modified TEXT;
