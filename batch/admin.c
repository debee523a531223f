/*
 * ctxd-admin: the operator's command-line tool (init, license, API keys, settings).
 * See man/ctxd-admin.8.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ctxd.h"
#include "provider.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ctxd-admin init\n"
	    "       ctxd-admin license mint --key PEMFILE [--plan PLAN] [--days N] "
	    "[--licensee NAME]\n"
	    "       ctxd-admin license show [KEY]\n"
	    "       ctxd-admin key create [--admin] NAME\n"
	    "       ctxd-admin settings list | get NAME | set NAME VALUE|- | "
	    "unset NAME\n"
	    "       ctxd-admin provider test [--timeout SECONDS] [--llm | --embed]\n");
}

static int
open_db(sqlite3 **db)
{
	return db_open(util_data_dir(), DB_READWRITE, db);
}

static int
cmd_init(void)
{
	const char	*dir = util_data_dir();
	sqlite3		*db = NULL;

	if (util_mkdir_p(dir, 0750) == -1) {
		fprintf(stderr, "ctxd-admin: cannot create %s: %s\n", dir,
		    strerror(errno));
		return 1;
	}
	if (crypto_secret_create(dir) == -1) {
		fprintf(stderr, "ctxd-admin: cannot create %s/secret.key\n", dir);
		return 1;
	}
	if (db_open(dir, DB_READWRITE, &db) == -1)
		return 1;
	db_close(db);
	printf("initialised %s (database ctxd.db, schema version %d, secret.key)\n",
	    dir, db_schema_version());
	return 0;
}

static int
cmd_license(int argc, char **argv)
{
	struct license	 lic;
	enum license_status st;
	unsigned char	 pub[32];
	const char	*keypath = NULL, *key;
	char		*minted;
	long		 days = 30;
	int		 i;

	if (argc < 1) {
		usage();
		return 2;
	}
	if (strcmp(argv[0], "show") == 0) {
		key = argc > 1 ? argv[1] : getenv("LICENSE_KEY");
		if (util_unhex(CTXD_LICENSE_PUBKEY, pub, sizeof(pub)) == -1)
			return 1;
		memset(&lic, 0, sizeof(lic));
		st = license_verify(key, pub, time(NULL), &lic);
		license_print(&lic, st, stdout);
		return st == LICENSE_OK ? 0 : 1;
	}
	if (strcmp(argv[0], "mint") != 0) {
		usage();
		return 2;
	}
	memset(&lic, 0, sizeof(lic));
	snprintf(lic.plan, sizeof(lic.plan), "trial");
	snprintf(lic.licensee, sizeof(lic.licensee), "unnamed");
	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			usage();
			return 2;
		}
		if (strcmp(argv[i], "--key") == 0)
			keypath = argv[++i];
		else if (strcmp(argv[i], "--plan") == 0)
			snprintf(lic.plan, sizeof(lic.plan), "%s", argv[++i]);
		else if (strcmp(argv[i], "--licensee") == 0)
			snprintf(lic.licensee, sizeof(lic.licensee), "%s", argv[++i]);
		else if (strcmp(argv[i], "--days") == 0) {
			if (util_parse_long(argv[++i], -36500, 36500, &days) == -1) {
				fprintf(stderr, "ctxd-admin: --days must be a whole "
				    "number of days\n");
				return 2;
			}
		} else {
			usage();
			return 2;
		}
	}
	if (keypath == NULL) {
		fprintf(stderr, "ctxd-admin: license mint needs --key PEMFILE\n");
		return 2;
	}
	lic.issued = time(NULL);
	lic.expires = lic.issued + days * 86400;
	if ((minted = license_mint(keypath, &lic)) == NULL) {
		fprintf(stderr, "ctxd-admin: could not mint a key with %s\n", keypath);
		return 1;
	}
	printf("%s\n", minted);
	free(minted);
	return 0;
}

static int
cmd_key(int argc, char **argv)
{
	sqlite3		*db;
	const char	*name = NULL;
	char		*key;
	int		 i, admin = 0;

	if (argc < 1 || strcmp(argv[0], "create") != 0) {
		usage();
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--admin") == 0)
			admin = 1;
		else if (name == NULL)
			name = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (name == NULL || *name == '\0' || strlen(name) > 100) {
		fprintf(stderr, "ctxd-admin: key create needs a NAME of 1 to 100 "
		    "characters\n");
		return 2;
	}
	if (open_db(&db) == -1)
		return 1;
	key = apikey_create(db, name, admin);
	db_close(db);
	if (key == NULL) {
		fprintf(stderr, "ctxd-admin: could not create the key\n");
		return 1;
	}
	/* The value is shown this once; only its hash is stored. */
	printf("%s\n", key);
	explicit_bzero(key, strlen(key));
	free(key);
	return 0;
}

/* Reads one line from stdin (for secrets kept out of the command line). */
static char *
read_stdin_line(void)
{
	char	*line = NULL;
	size_t	 cap = 0;
	ssize_t	 n;

	if ((n = getline(&line, &cap, stdin)) <= 0) {
		free(line);
		return NULL;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	return line;
}

static int
cmd_settings(int argc, char **argv)
{
	sqlite3		*db;
	const char	*dir = util_data_dir();
	char		*v, *input = NULL, err[512];
	int		 rc = 1;

	if (argc < 1) {
		usage();
		return 2;
	}
	if (strcmp(argv[0], "list") == 0 && argc == 1) {
		if (open_db(&db) == -1)
			return 1;
		settings_list(db, stdout);
		db_close(db);
		return 0;
	}
	if (argc < 2 || settings_is_secret(argv[1]) == -1) {
		if (argc >= 2)
			fprintf(stderr, "ctxd-admin: unknown setting '%s' (see "
			    "ctxd-admin settings list)\n", argv[1]);
		else
			usage();
		return 2;
	}
	if (open_db(&db) == -1)
		return 1;
	if (strcmp(argv[0], "get") == 0 && argc == 2) {
		if (settings_is_secret(argv[1]) == 1) {
			/* Secrets are write-only. */
			v = settings_get(db, dir, argv[1]);
			printf("%s\n", v != NULL ? "(set)" : "(unset)");
			if (v != NULL)
				explicit_bzero(v, strlen(v));
		} else {
			v = settings_get(db, dir, argv[1]);
			printf("%s\n", v != NULL ? v : "");
		}
		free(v);
		rc = 0;
	} else if (strcmp(argv[0], "set") == 0 && argc == 3) {
		if (strcmp(argv[2], "-") == 0 &&
		    (input = read_stdin_line()) == NULL) {
			fprintf(stderr, "ctxd-admin: no value on standard input\n");
			goto out;
		}
		if (settings_set(db, dir, argv[1], input ? input : argv[2], err,
		    sizeof(err)) == -1)
			fprintf(stderr, "ctxd-admin: %s\n", err);
		else
			rc = 0;
	} else if (strcmp(argv[0], "unset") == 0 && argc == 2) {
		rc = settings_unset(db, argv[1]) == 0 ? 0 : 1;
	} else {
		usage();
		rc = 2;
	}
out:
	if (input != NULL) {
		explicit_bzero(input, strlen(input));
		free(input);
	}
	db_close(db);
	return rc;
}

/* ctxd-admin provider test ...: one real call to each configured AI provider. */
static int
cmd_provider(int argc, char **argv)
{
	sqlite3	*db;
	int	 rc;

	if (argc < 1 || strcmp(argv[0], "test") != 0) {
		usage();
		return 2;
	}
	if (open_db(&db) == -1)
		return 1;
	rc = provider_cli_test(db, util_data_dir(), argc - 1, argv + 1, stdout);
	db_close(db);
	return rc;
}

int
main(int argc, char *argv[])
{
	log_init("ctxd-admin");
	if (argc < 2) {
		usage();
		return 2;
	}
	if (strcmp(argv[1], "init") == 0 && argc == 2)
		return cmd_init();
	if (strcmp(argv[1], "license") == 0)
		return cmd_license(argc - 2, argv + 2);
	if (strcmp(argv[1], "key") == 0)
		return cmd_key(argc - 2, argv + 2);
	if (strcmp(argv[1], "settings") == 0)
		return cmd_settings(argc - 2, argv + 2);
	if (strcmp(argv[1], "provider") == 0)
		return cmd_provider(argc - 2, argv + 2);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage();
		return 0;
	}
	usage();
	return 2;
}
