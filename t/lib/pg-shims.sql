-- t/lib/pg-shims.sql: the SQLite functions the tests' own queries (_sql) use, for a test
-- database under CTXD_TEST_ENGINE=postgres (t/lib/harness.sh). Tests only: ctxd's own
-- statements never rely on them (lib/store writes each engine's text).
-- strftime(format, time, modifier...): %Y %m %d %H %M %S %s of time ('now' or an ISO 8601
-- text) in UTC, after modifiers such as '-5 minutes' or '+1 day' (PostgreSQL intervals).
CREATE FUNCTION strftime(fmt text, t text, VARIADIC mods text[] DEFAULT '{}') RETURNS text
    LANGUAGE plpgsql STABLE AS $$
DECLARE
	ts timestamptz := CASE WHEN t = 'now' THEN now() ELSE t::timestamptz END;
	m text;
	u timestamp;
BEGIN
	FOREACH m IN ARRAY mods LOOP
		ts := ts + m::interval;
	END LOOP;
	u := ts AT TIME ZONE 'UTC';
	RETURN replace(replace(replace(replace(replace(replace(replace(fmt,
	    '%Y', to_char(u, 'YYYY')), '%m', to_char(u, 'MM')), '%d', to_char(u, 'DD')),
	    '%H', to_char(u, 'HH24')), '%M', to_char(u, 'MI')), '%S', to_char(u, 'SS')),
	    '%s', extract(epoch FROM ts)::bigint::text);
END
$$;
CREATE FUNCTION group_concat_step(acc text, v text, sep text) RETURNS text LANGUAGE sql
    IMMUTABLE AS $$ SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || sep || v END $$;
CREATE AGGREGATE group_concat(text, text) (SFUNC = group_concat_step, STYPE = text);
CREATE FUNCTION group_concat_step1(acc text, v text) RETURNS text LANGUAGE sql IMMUTABLE AS
    $$ SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || ',' || v END $$;
CREATE AGGREGATE group_concat(text) (SFUNC = group_concat_step1, STYPE = text);
-- instr(haystack, needle): the 1-based position of needle, 0 when absent (compare it: > 0).
CREATE FUNCTION instr(h text, n text) RETURNS integer LANGUAGE sql IMMUTABLE AS
    $$ SELECT strpos(h, n) $$;
-- hex(blob): upper-case hexadecimal, as SQLite's.
CREATE FUNCTION hex(b bytea) RETURNS text LANGUAGE sql IMMUTABLE AS
    $$ SELECT upper(encode(b, 'hex')) $$;
-- json_extract(json, '$.a.b'): the value at a path of object keys, as text (SQL NULL when
-- absent); only '$.key' paths.
CREATE FUNCTION json_extract(j text, path text) RETURNS text LANGUAGE sql IMMUTABLE AS
    $$ SELECT j::jsonb #>> string_to_array(substr(path, 3), '.') $$;
