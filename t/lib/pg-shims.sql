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
-- instr(text, part): the 1-based position of part in text, 0 when absent (PostgreSQL's strpos).
CREATE FUNCTION instr(s text, part text) RETURNS integer LANGUAGE sql IMMUTABLE AS
    $$ SELECT strpos(s, part) $$;
