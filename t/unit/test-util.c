/* test-util.c: buffers, bounded number parsing, base64url, hex, files. */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "tap.h"

/* util_utf8_valid and util_utf8_repair: invalid bytes become U+FFFD, one each. */
static void
test_utf8_repair(void)
{
	static const struct {
		const char *in, *want, *desc;
	} c[] = {
		{ "docs/bad\xff\xfe.md", "docs/bad\xef\xbf\xbd\xef\xbf\xbd.md",
		  "two bytes that start nothing: two U+FFFD" },
		{ "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80",
		  "valid text of 2-, 3- and 4-byte characters kept" },
		{ "a\xc0\xaf" "b", "a\xef\xbf\xbd\xef\xbf\xbd" "b", "an overlong '/' replaced" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "a surrogate replaced" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		  "a value past U+10FFFF replaced" },
		{ "x\xe6\x97", "x\xef\xbf\xbd\xef\xbf\xbd", "a cut character at the end replaced" },
		{ "\x80\xbf", "\xef\xbf\xbd\xef\xbf\xbd", "stray continuation bytes replaced" },
		{ "", "", "empty stays empty" },
	};
	size_t	 i, len;
	char	*r;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		r = util_utf8_repair(c[i].in, strlen(c[i].in), &len);
		is_str(r, c[i].want, c[i].desc);
		ok(r != NULL && len == strlen(c[i].want) && util_utf8_valid(r, len),
		    "%s: the repair is valid UTF-8 of its length", c[i].desc);
		ok(util_utf8_valid(c[i].in, strlen(c[i].in)) ==
		    (strcmp(c[i].in, c[i].want) == 0), "%s: utf8_valid agrees", c[i].desc);
		free(r);
	}
	r = util_utf8_repair("a\0\xff", 3, &len);
	ok(r != NULL && len == 5 && memcmp(r, "a\0\xef\xbf\xbd", 5) == 0,
	    "a NUL byte inside is kept, the bytes after it repaired");
	free(r);
}

int
main(void)
{
	struct buf	 b;
	long		 v;
	unsigned char	 raw[3] = { 0xfb, 0xff, 0x00 }, *dec, bytes[4];
	char		*enc, hex[9], tmpl[] = "/tmp/ctxd-test-util.XXXXXX", *path,
			*data;
	size_t		 declen, len;
	struct stat	 st;

	buf_init(&b);
	ok(buf_adds(&b, "abc") == 0 && b.len == 3, "buf_adds appends");
	ok(buf_printf(&b, "-%d-%s", 42, "x") == 0, "buf_printf succeeds");
	is_str(b.p, "abc-42-x", "buf holds the concatenation");
	for (int i = 0; i < 1000; i++)
		buf_addc(&b, 'z');
	is_int(b.len, 1008, "buf grows past its first allocation");
	is_int(b.p[b.len], '\0', "buf stays NUL-terminated");
	buf_reset(&b);
	is_int(b.len, 0, "buf_reset empties");
	buf_release(&b);

	ok(util_parse_long("123", 0, 1000, &v) == 0 && v == 123, "parse 123");
	ok(util_parse_long("-5", -10, 10, &v) == 0 && v == -5, "parse -5");
	ok(util_parse_long("", 0, 10, &v) == -1, "empty refused");
	ok(util_parse_long("12a", 0, 100, &v) == -1, "trailing junk refused");
	ok(util_parse_long("1001", 0, 1000, &v) == -1, "above max refused");
	ok(util_parse_long("99999999999999999999999", 0, 10, &v) == -1,
	    "overflow refused");
	ok(util_parse_long(" 5", 0, 10, &v) == -1 || v == 5,
	    "leading space handled");

	enc = util_b64url_encode(raw, 3);
	is_str(enc, "-_8A", "base64url uses - and _ without padding");
	ok(util_b64url_decode(enc, strlen(enc), &dec, &declen) == 0 &&
	    declen == 3 && memcmp(dec, raw, 3) == 0, "base64url round trip");
	free(enc);
	free(dec);
	enc = util_b64url_encode((const unsigned char *)"ab", 2);
	is_str(enc, "YWI", "two bytes give three characters");
	free(enc);
	ok(util_b64url_decode("a+b=", 4, &dec, &declen) == -1,
	    "standard base64 characters refused");
	ok(util_b64url_decode("abcde", 5, &dec, &declen) == -1,
	    "impossible length refused");

	util_hex((const unsigned char *)"\x01\xab\xff\x10", 4, hex);
	is_str(hex, "01abff10", "hex encoding");
	ok(util_unhex("01abff10", bytes, 4) == 0 && bytes[1] == 0xab,
	    "hex decoding");
	ok(util_unhex("01abff1", bytes, 4) == -1, "odd hex refused");
	ok(util_unhex("01abfg10", bytes, 4) == -1, "bad hex digit refused");

	ok(mkdtemp(tmpl) != NULL, "temporary folder");
	path = util_path_join(tmpl, "a/b/c");
	ok(util_mkdir_p(path, 0700) == 0 && stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode), "mkdir_p makes nested folders");
	ok(util_mkdir_p(path, 0700) == 0, "mkdir_p on an existing folder");
	free(path);
	path = util_path_join(tmpl, "f");
	ok(util_write_file(path, "hello", 5, 0600) == 0, "write_file");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600");
	ok(util_read_file(path, 100, &data, &len) == 0 && len == 5 &&
	    strcmp(data, "hello") == 0, "read_file returns the content");
	free(data);
	ok(util_read_file(path, 4, &data, &len) == -1, "read_file honours max");
	unlink(path);
	free(path);
	ok(util_str_endswith("repo.git", ".git") && !util_str_endswith("g", ".git"),
	    "str_endswith");
	{
		char u[8];

		snprintf(u, sizeof(u), "ab\xe6\x97\xa5\xe6\x97");
		util_utf8_trim(u);
		is_str(u, "ab\xe6\x97\xa5", "utf8_trim drops a cut 3-byte character");
		snprintf(u, sizeof(u), "a\xf0\x9f\x98\x80");
		util_utf8_trim(u);
		is_str(u, "a\xf0\x9f\x98\x80", "utf8_trim keeps a whole 4-byte one");
		snprintf(u, sizeof(u), "a\xc3");
		util_utf8_trim(u);
		is_str(u, "a", "utf8_trim drops a lone lead byte");
	}
	test_utf8_repair();
	setenv("DATA_DIR", "", 1);
	is_str(util_data_dir(), "/data", "DATA_DIR empty: the spec's default /data");
	setenv("DATA_DIR", "/srv/x", 1);
	is_str(util_data_dir(), "/srv/x", "DATA_DIR set: used");
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
		ok(system(cmd) == 0, "cleanup");
	}
	return tap_done();
}
