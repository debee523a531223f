-- t/lib/pg-shims.sql: the SQLite functions the tests' own queries (_sql) use, for a test
-- database under CTXD_TEST_ENGINE=postgres (t/lib/harness.sh). Tests only: ctxd's own
-- statements never rely on them (lib/store writes each engine's text).
CREATE FUNCTION strftime(fmt text, t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE fmt
	WHEN '%Y-%m-%dT%H:%M:%SZ' THEN to_char(CASE WHEN t = 'now' THEN now() ELSE t::timestamptz END
	    AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
	WHEN '%s' THEN extract(epoch FROM CASE WHEN t = 'now' THEN now() ELSE t::timestamptz END)::bigint::text
	END
$$;
CREATE FUNCTION group_concat_step(acc text, v text, sep text) RETURNS text LANGUAGE sql
    IMMUTABLE AS $$ SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || sep || v END $$;
CREATE AGGREGATE group_concat(text, text) (SFUNC = group_concat_step, STYPE = text);
CREATE FUNCTION group_concat_step1(acc text, v text) RETURNS text LANGUAGE sql IMMUTABLE AS
    $$ SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || ',' || v END $$;
CREATE AGGREGATE group_concat(text) (SFUNC = group_concat_step1, STYPE = text);
