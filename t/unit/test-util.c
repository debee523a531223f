/* test-util.c: buffers, bounded number parsing, base64url, hex, files. */
#include "config.h"

#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctxd.h"
#include "tap.h"

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
