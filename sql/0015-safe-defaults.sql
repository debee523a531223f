-- Safe defaults for what members can make the server read: fetch.allowed_networks now lists
-- no network by default (public addresses only), and sources read with the instance's
-- credentials (wiki sources, repositories on a host with a git token or the GitHub App) are
-- for admins unless perm.members_use_integrations is on. An instance that already has
-- libraries needing the old behaviour gets the old values written as explicit settings, so
-- that it keeps working; one without such libraries gets the closed defaults. An explicit
-- value already set is never changed.

-- The old default list, when no value is set and a library's host is a private address, a
-- name without a dot, or a name under a suffix used only inside networks. (Other names are
-- not resolved here: a library whose name resolves to a private address fails with "not
-- allowed by fetch.allowed_networks" until an admin lists its network; README "Upgrade".)
INSERT INTO settings (name, value, updated_at)
SELECT 'fetch.allowed_networks', '10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7',
    strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
WHERE NOT EXISTS (SELECT 1 FROM settings WHERE name = 'fetch.allowed_networks')
AND EXISTS (
	SELECT 1 FROM (
		SELECT lower(CASE WHEN host LIKE '[%' THEN substr(host, 2, instr(host, ']') - 2)
		    WHEN instr(host, ':') > 0 THEN substr(host, 1, instr(host, ':') - 1)
		    ELSE host END) AS h
		FROM libraries WHERE url NOT LIKE 'upload:%'
	)
	WHERE h GLOB '10.[0-9]*'
	   OR h GLOB '192.168.[0-9]*'
	   OR (h GLOB '172.[0-9]*.[0-9]*' AND CAST(substr(h, 5, instr(substr(h, 5), '.') - 1)
		AS INTEGER) BETWEEN 16 AND 31)
	   OR h GLOB 'f[cd][0-9a-f][0-9a-f]:*'
	   OR h GLOB 'f[cd][0-9a-f]:*' OR h GLOB 'f[cd]:*'
	   OR (instr(h, '.') = 0 AND instr(h, ':') = 0 AND h <> 'localhost')
	   OR h GLOB '*.local' OR h GLOB '*.internal' OR h GLOB '*.lan'
	   OR h GLOB '*.localdomain' OR h GLOB '*.home.arpa' OR h GLOB '*.corp'
	   OR h GLOB '*.intranet'
);

-- perm.members_use_integrations on, when no value is set and a member (a user who is not an
-- admin) or an anonymous caller added a wiki library, or a git library on the GitHub-type
-- host while a token or the App is set up, or on the GitLab-type host while its token is.
INSERT INTO settings (name, value, updated_at)
SELECT 'perm.members_use_integrations', 'true', strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
WHERE NOT EXISTS (SELECT 1 FROM settings WHERE name = 'perm.members_use_integrations')
AND EXISTS (
	SELECT 1 FROM libraries l
	WHERE l.gitops = 0
	AND (l.created_anonymously = 1 OR l.created_by IN
	    (SELECT id FROM users WHERE role <> 'admin'))
	AND (l.source_type = 'wiki'
	   OR (l.source_type = 'git'
	       AND l.host = coalesce((SELECT value FROM settings WHERE name = 'git.github.host'),
		   'github.com')
	       AND EXISTS (SELECT 1 FROM settings WHERE name IN ('git.github.token',
		   'git.github.app_private_key')))
	   OR (l.source_type = 'git'
	       AND l.host = coalesce((SELECT value FROM settings WHERE name = 'git.gitlab.host'),
		   'gitlab.com')
	       AND EXISTS (SELECT 1 FROM settings WHERE name = 'git.gitlab.token')))
);
