/*
 * ctxd-admin: the operator's command-line tool (init, license, API keys, users, settings,
 * backup, restore, compact, explain, doctor).
 * See man/ctxd-admin.8.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "admin/backup.h"
#include "admin/provcheck.h"
#include "admin/segments.h"
#include "ai/provider.h"
#include "auth/accounts.h"
#include "auth/apikey.h"
#include "auth/session.h"
#include "auth/user.h"
#include "base/buf.h"
#include "base/crypto.h"
#include "base/license.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "search/format.h"
#include "search/search.h"
#include "search/upstream.h"
#include "sources/policy.h"
#include "store/db.h"
#include "store/inspect.h"
#include "store/pg.h"
#include "store/pgstore.h"
#include "store/settings.h"
#include "store/trial.h"

static char	*admin_read_stdin_line(void);

/* The usage of each subcommand (its --help), in the order of the whole usage. */
static const struct {
	const char	*cmd;
	const char	*lines;
} admin_usages[] = {
	{ "init", "ctxd-admin init\n" },
	{ "license", "ctxd-admin license mint --key PEMFILE [--plan PLAN] [--days N] "
	    "[--licensee NAME]\n"
	    "ctxd-admin license show [KEY]\n"
	    "ctxd-admin license install FILE|-\n"
	    "ctxd-admin license trial\n" },
	{ "key", "ctxd-admin key create [--admin | --user USER] [--] NAME | list | "
	    "revoke ID\n" },
	{ "passwd", "ctxd-admin passwd [--temporary] [--] USER\n" },
	{ "user", "ctxd-admin user list | create [--admin] [--temporary] [--] NAME | "
	    "disable NAME |\n"
	    "                enable NAME | delete NAME | role NAME admin|member | "
	    "unlock NAME |\n"
	    "                default-password\n" },
	{ "settings", "ctxd-admin settings list | get NAME | set NAME [--] VALUE|- | "
	    "unset NAME\n" },
	{ "provider", "ctxd-admin provider test [--timeout SECONDS] [--llm | --embed]\n" },
	{ "upstream", "ctxd-admin upstream test\n" },
	{ "backup", "ctxd-admin backup [--with-secret] [--] FILE\n" },
	{ "restore", "ctxd-admin restore [--] FILE\n" },
	{ "compact", "ctxd-admin compact\n" },
	{ "explain", "ctxd-admin explain [--tokens N] [--limit N] [--rerank] [--tsv] [--] "
	    "LIBRARY QUESTION\n" },
	{ "doctor", "ctxd-admin doctor\n" },
	{ "index", "ctxd-admin index list | rebuild [--] [ID ...]\n" },
	{ "migrate-to-postgres", "ctxd-admin migrate-to-postgres [--] [URL]\n" },
};

#define ADMIN_NUSAGES	(sizeof(admin_usages) / sizeof(admin_usages[0]))

/* Prints the usage of subcommand cmd (NULL: all) to f, "usage: " before the first line. */
static void
admin_usage_of(FILE *f, const char *cmd)
{
	const char	*p, *nl;
	size_t		 i;
	int		 first = 1;

	for (i = 0; i < ADMIN_NUSAGES; i++) {
		if (cmd != NULL && strcmp(cmd, admin_usages[i].cmd) != 0)
			continue;
		for (p = admin_usages[i].lines; *p != '\0'; p = nl + 1) {
			nl = strchr(p, '\n');
			fprintf(f, "%s%.*s\n", first ? "usage: " : "       ",
			    (int)(nl - p), p);
			first = 0;
		}
	}
}

static void
admin_usage(void)
{
	admin_usage_of(stderr, NULL);
}

/* 1 when cmd is a subcommand. */
static int
admin_known(const char *cmd)
{
	size_t	 i;

	for (i = 0; i < ADMIN_NUSAGES; i++)
		if (strcmp(cmd, admin_usages[i].cmd) == 0)
			return 1;
	return 0;
}

/* 1 when --help or -h comes among the arguments before "--". */
static int
admin_wants_help(int argc, char **argv)
{
	int	 i;

	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

/* 1 when arg is written as an option: '-' and more ("-" alone is standard input). */
static int
admin_is_option(const char *arg)
{
	return arg[0] == '-' && arg[1] != '\0';
}

/* Refuses option arg of subcommand cmd ("key create"): exit status 2. */
static int
admin_bad_option(const char *cmd, const char *arg)
{
	char	 word[32];

	fprintf(stderr, "ctxd-admin: %s: unknown option '%s' (a name beginning with '-' "
	    "goes after '--')\n", cmd, arg);
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(cmd, " "), cmd);
	admin_usage_of(stderr, word);
	return 2;
}

/*
 * The operands of a subcommand without options (cmd, for errors): refuses an argument
 * written as an option before "--" (returns 2 after saying so) and removes the first
 * "--" from argv. -1 to go on, with *argc operands left.
 */
static int
admin_operands(const char *cmd, int *argc, char **argv)
{
	int	 i;

	for (i = 0; i < *argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			memmove(argv + i, argv + i + 1, (size_t)(*argc - i - 1) *
			    sizeof(*argv));
			(*argc)--;
			return -1;
		}
		if (admin_is_option(argv[i]))
			return admin_bad_option(cmd, argv[i]);
	}
	return -1;
}

static int
admin_open_db(struct db **db)
{
	return db_open(util_data_dir(), DB_READWRITE, db);
}

/*
 * The database for a message: "DIR/ctxd.db", or with DATABASE_URL "the PostgreSQL
 * database at host H, port P, database D, user U" (never the password).
 */
static const char *
admin_db_name(const char *dir)
{
	static char	 name[1200];
	char		 where[1024];

	if (db_url() == NULL)
		snprintf(name, sizeof(name), "%s/ctxd.db", dir);
	else {
		(void)store_inspect_where(where, sizeof(where));
		snprintf(name, sizeof(name), "the PostgreSQL database at %s", where);
	}
	return name;
}

static int
admin_cmd_init(void)
{
	const char	*dir = util_data_dir();
	struct db	*db = NULL;

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
	if (db_url() != NULL)
		printf("initialised %s (secret.key) and %s (schema version %d)\n", dir,
		    admin_db_name(dir), db_schema_version());
	else
		printf("initialised %s (database ctxd.db, schema version %d, secret.key)\n",
		    dir, db_schema_version());
	return 0;
}

/* Tells the operator what to do after a key was written to DATA_DIR/license.key. */
static void
admin_license_installed(const struct license *lic)
{
	char	 date[11];

	if (license_format_date(lic->expires, date) == -1)
		date[0] = '\0';
	printf("installed: plan %s, licensee %s, valid until %s\n", lic->plan,
	    lic->licensee, date);
	if (getenv("LICENSE_KEY") != NULL && *getenv("LICENSE_KEY") != '\0')
		printf("note: LICENSE_KEY is set in the environment and wins over the "
		    "installed key; remove it from /etc/default/ctxd\n");
	printf("restart the service to use it: systemctl restart ctxd.target\n");
}

/* ctxd-admin license install FILE|-: verifies a key and stores it in DATA_DIR. */
static int
admin_license_install(int argc, char **argv)
{
	struct license		 lic;
	enum license_status	 st;
	char			*key = NULL, *path;
	char			 chunk[1024];
	size_t			 n, len = 0;
	int			 i;

	if ((i = admin_operands("license install", &argc, argv)) != -1)
		return i;
	if (argc != 1) {
		admin_usage_of(stderr, "license");
		return 2;
	}
	if (strcmp(argv[0], "-") == 0) {
		if ((key = malloc(8193)) == NULL)
			return 1;
		while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
			if (len + n > 8192) {
				fprintf(stderr, "ctxd-admin: license install: the key on "
				    "standard input is longer than 8192 bytes\n");
				free(key);
				return 1;
			}
			memcpy(key + len, chunk, n);
			len += n;
		}
		key[len] = '\0';
	} else if (util_read_file(argv[0], 8192, &key, NULL) == -1) {
		fprintf(stderr, "ctxd-admin: license install: cannot read %s (at most "
		    "8192 bytes): %s\n", argv[0], strerror(errno));
		return 1;
	}
	if (strlen(key) != len && strcmp(argv[0], "-") == 0) {
		fprintf(stderr, "ctxd-admin: license install: the key holds a NUL byte\n");
		free(key);
		return 1;
	}
	memset(&lic, 0, sizeof(lic));
	st = license_verify_any(key, license_now(), &lic);
	if (st != LICENSE_OK || strncmp(key + strspn(key, " \t\r\n"), "ctxd-trial.",
	    11) == 0) {
		fprintf(stderr, "ctxd-admin: license install: not installed: the key is "
		    "%s%s\n", st == LICENSE_OK ? "a trial token (use ctxd-admin license "
		    "trial)" : license_status_str(st), st == LICENSE_BAD_SIGNATURE ?
		    " (it was not issued for this build)" : "");
		free(key);
		return 1;
	}
	if (license_key_store(key) == -1) {
		path = license_key_path();
		fprintf(stderr, "ctxd-admin: license install: cannot write %s: %s\n",
		    path ? path : "DATA_DIR/license.key", strerror(errno));
		free(path);
		free(key);
		return 1;
	}
	free(key);
	admin_license_installed(&lic);
	return 0;
}

/*
 * ctxd-admin license trial: starts this instance's one 30-day evaluation. The start is
 * recorded in the database, so a second trial is refused even when the key file is gone.
 */
static int
admin_license_trial(int argc, char **argv)
{
	struct db		*db = NULL;
	struct license		 lic;
	enum license_status	 st;
	char			 today[11], prev[32], token[64], *cur;
	int			 i, rc;

	if ((i = admin_operands("license trial", &argc, argv)) != -1)
		return i;
	if (argc != 0) {
		admin_usage_of(stderr, "license");
		return 2;
	}
	if (license_format_date(license_now(), today) == -1)
		return 1;
	if (admin_open_db(&db) == -1) {
		fprintf(stderr, "ctxd-admin: license trial: cannot open the database in "
		    "%s (run ctxd-admin init first)\n", util_data_dir());
		return 1;
	}
	rc = store_trial_claim(db, today, prev, sizeof(prev));
	db_close(db);
	if (rc == -1)
		return 1;
	if (rc == 0) {
		snprintf(token, sizeof(token), "ctxd-trial.%s", prev);
		cur = license_key_load(NULL);
		st = license_verify_any(cur, license_now(), &lic);
		free(cur);
		fprintf(stderr, "ctxd-admin: license trial: this instance started its "
		    "trial on %s; a trial is given once per instance%s\n", prev,
		    st == LICENSE_OK ? "" : ": install a purchased key with ctxd-admin "
		    "license install FILE");
		/* a deleted key file comes back with the original start date */
		if (st == LICENSE_MISSING && license_verify_any(token, license_now(),
		    &lic) == LICENSE_OK && license_key_store(token) == 0)
			admin_license_installed(&lic);
		return 1;
	}
	snprintf(token, sizeof(token), "ctxd-trial.%s", today);
	if (license_verify_any(token, license_now(), &lic) != LICENSE_OK ||
	    license_key_store(token) == -1) {
		fprintf(stderr, "ctxd-admin: license trial: cannot write the trial key: "
		    "%s\n", strerror(errno));
		return 1;
	}
	admin_license_installed(&lic);
	return 0;
}

static int
admin_cmd_license(int argc, char **argv)
{
	struct license	 lic;
	enum license_status st;
	const char	*keypath = NULL, *key, *from = NULL;
	char		*minted, *loaded;
	long		 days = 30;
	int		 i;

	if (argc < 1) {
		admin_usage();
		return 2;
	}
	if (strcmp(argv[0], "show") == 0) {
		argc--;
		argv++;
		if ((i = admin_operands("license show", &argc, argv)) != -1)
			return i;
		if (argc > 1) {
			admin_usage_of(stderr, "license");
			return 2;
		}
		loaded = argc > 0 ? NULL : license_key_load(&from);
		key = argc > 0 ? argv[0] : loaded;
		memset(&lic, 0, sizeof(lic));
		st = license_verify_any(key, license_now(), &lic);
		license_print(&lic, st, stdout);
		if (argc == 0)
			printf("source: %s\n", from == NULL ? "none" :
			    strcmp(from, "file") == 0 ? "installed key file" :
			    "LICENSE_KEY environment variable");
		printf("build: %s\n", license_dev_build() ? "development (trusts the "
		    "development key; not for production)" : "release");
		free(loaded);
		return st == LICENSE_OK ? 0 : 1;
	}
	if (strcmp(argv[0], "install") == 0)
		return admin_license_install(argc - 1, argv + 1);
	if (strcmp(argv[0], "trial") == 0)
		return admin_license_trial(argc - 1, argv + 1);
	if (strcmp(argv[0], "mint") != 0) {
		admin_usage();
		return 2;
	}
	memset(&lic, 0, sizeof(lic));
	snprintf(lic.plan, sizeof(lic.plan), "trial");
	snprintf(lic.licensee, sizeof(lic.licensee), "unnamed");
	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			if (!admin_is_option(argv[i]) || strcmp(argv[i], "--key") == 0 ||
			    strcmp(argv[i], "--plan") == 0 || strcmp(argv[i], "--days") == 0 ||
			    strcmp(argv[i], "--licensee") == 0) {
				admin_usage_of(stderr, "license");
				return 2;
			}
			return admin_bad_option("license mint", argv[i]);
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
		} else
			return admin_bad_option("license mint", argv[i]);
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
admin_key_print(const struct apikey_row *k, void *arg)
{
	(void)arg;
	printf("%lld\t%s\t%s...\t%s\t%s\t%s\t%s%s\n", k->id, k->name, k->prefix,
	    k->owner != NULL ? k->owner : "(operator)", k->admin ? "admin" : "member",
	    k->created, k->revoked != NULL ? "revoked " : "last used ",
	    k->revoked != NULL ? k->revoked : k->last_used != NULL ? k->last_used :
	    "never");
	return 0;
}

static int
admin_cmd_key(int argc, char **argv)
{
	struct db	*db;
	struct user	 u;
	const char	*name = NULL, *user = NULL;
	char		*key;
	long		 id;
	int		 i, admin = 0, rc, operands = 0;

	if (argc >= 1 && strcmp(argv[0], "create") != 0 &&
	    (rc = admin_operands("key", &argc, argv)) != -1)
		return rc;
	if (argc == 1 && strcmp(argv[0], "list") == 0) {
		if (admin_open_db(&db) == -1)
			return 1;
		printf("ID\tNAME\tPREFIX\tUSER\tROLE\tCREATED\tUSE\n");
		rc = apikey_each(db, -1, admin_key_print, NULL) == 0 ? 0 : 1;
		db_close(db);
		return rc;
	}
	if (argc == 2 && strcmp(argv[0], "revoke") == 0) {
		if (util_parse_long(argv[1], 1, 1L << 53, &id) == -1) {
			fprintf(stderr, "ctxd-admin: key revoke needs a key ID (see "
			    "ctxd-admin key list)\n");
			return 2;
		}
		if (admin_open_db(&db) == -1)
			return 1;
		rc = apikey_revoke(db, id, -1);
		db_close(db);
		if (rc == 1)
			fprintf(stderr, "ctxd-admin: no live key with ID %ld\n", id);
		return rc == 0 ? 0 : 1;
	}
	if (argc < 1 || strcmp(argv[0], "create") != 0) {
		admin_usage();
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!operands && strcmp(argv[i], "--") == 0)
			operands = 1;
		else if (!operands && strcmp(argv[i], "--admin") == 0)
			admin = 1;
		else if (!operands && strcmp(argv[i], "--user") == 0 && i + 1 < argc)
			user = argv[++i];
		else if (!operands && admin_is_option(argv[i]))
			return admin_bad_option("key create", argv[i]);
		else if (name == NULL)
			name = argv[i];
		else {
			admin_usage_of(stderr, "key");
			return 2;
		}
	}
	if (name == NULL || *name == '\0' || strlen(name) > 100) {
		fprintf(stderr, "ctxd-admin: key create needs a NAME of 1 to 100 "
		    "characters\n");
		return 2;
	}
	if (user != NULL && admin) {
		fprintf(stderr, "ctxd-admin: a user's key is an admin key when the user "
		    "is an admin: --admin goes only with operator keys\n");
		return 2;
	}
	if (admin_open_db(&db) == -1)
		return 1;
	u.id = 0;
	if (user != NULL && (rc = user_by_name(db, user, &u, NULL)) != 0) {
		if (rc == 1)
			fprintf(stderr, "ctxd-admin: no user named %s\n", user);
		db_close(db);
		return 1;
	}
	key = apikey_create_for(db, u.id, name, user != NULL ? u.admin : admin, NULL);
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

/*
 * Reads a new password: from the terminal without echo (asked twice) when standard input is
 * one, else the first line of standard input. NULL on failure (reported).
 */
static char *
admin_read_password(const char *user)
{
	struct termios	 old, quiet;
	FILE		*tty;
	char		*a = NULL, *b = NULL;
	size_t		 cap = 0, cap2 = 0;
	ssize_t		 n;
	int		 pass;

	if (!isatty(STDIN_FILENO)) {
		if ((a = admin_read_stdin_line()) == NULL)
			fprintf(stderr, "ctxd-admin: no password on standard input\n");
		return a;
	}
	if ((tty = fopen("/dev/tty", "r+")) == NULL ||
	    tcgetattr(fileno(tty), &old) == -1) {
		fprintf(stderr, "ctxd-admin: cannot read the terminal\n");
		if (tty != NULL)
			fclose(tty);
		return NULL;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	for (pass = 0; pass < 2; pass++) {
		fprintf(tty, pass == 0 ? "New password for %s: " : "Again: ", user);
		fflush(tty);
		(void)tcsetattr(fileno(tty), TCSAFLUSH, &quiet);
		n = getline(pass == 0 ? &a : &b, pass == 0 ? &cap : &cap2, tty);
		(void)tcsetattr(fileno(tty), TCSAFLUSH, &old);
		fprintf(tty, "\n");
		if (n <= 0)
			break;
		while (n > 0 && (((pass == 0 ? a : b)[n - 1]) == '\n' ||
		    (pass == 0 ? a : b)[n - 1] == '\r'))
			(pass == 0 ? a : b)[--n] = '\0';
	}
	fclose(tty);
	if (a == NULL || b == NULL || strcmp(a, b) != 0) {
		fprintf(stderr, "ctxd-admin: the passwords do not match\n");
		if (a != NULL)
			explicit_bzero(a, strlen(a));
		free(a);
		a = NULL;
	}
	if (b != NULL)
		explicit_bzero(b, strlen(b));
	free(b);
	return a;
}

static void
admin_free_password(char *pw)
{
	if (pw != NULL) {
		explicit_bzero(pw, strlen(pw));
		free(pw);
	}
}

/* ctxd-admin passwd [--temporary] USER: a new password; ends the user's sessions. */
static int
admin_cmd_passwd(int argc, char **argv)
{
	struct db	*db;
	struct user	 u;
	char		*pw = NULL, err[256];
	int		 temporary = 0, rc = 1;

	if (argc >= 1 && strcmp(argv[0], "--temporary") == 0) {
		temporary = 1;
		argv++;
		argc--;
	}
	if ((rc = admin_operands("passwd", &argc, argv)) != -1)
		return rc;
	if (argc != 1) {
		admin_usage_of(stderr, "passwd");
		return 2;
	}
	if (admin_open_db(&db) == -1)
		return 1;
	if ((rc = user_by_name(db, argv[0], &u, NULL)) != 0) {
		if (rc == 1)
			fprintf(stderr, "ctxd-admin: no user named %s\n", argv[0]);
		rc = 1;
		goto out;
	}
	rc = 1;
	if ((pw = admin_read_password(u.name)) == NULL)
		goto out;
	if (user_valid_password(pw, u.name, err, sizeof(err)) == -1) {
		fprintf(stderr, "ctxd-admin: %s\n", err);
		goto out;
	}
	if (accounts_change_password(db, &u, pw, temporary, 0) == -1) {
		fprintf(stderr, "ctxd-admin: the password could not be stored\n");
		goto out;
	}
	printf("password of %s changed%s; their sessions are ended\n", u.name,
	    temporary ? " (to be changed at the next sign-in)" : "");
	rc = 0;
out:
	admin_free_password(pw);
	db_close(db);
	return rc;
}

static int
admin_user_print(const struct user *u, void *arg)
{
	(void)arg;
	printf("%s\t%s\t%s%s\t%s\n", u->name, u->admin ? "admin" : "member",
	    u->disabled ? "disabled" : "enabled",
	    u->must_change ? ",must-change-password" : "", u->created);
	return 0;
}

/* ctxd-admin user create [--admin] [--temporary] NAME: the password from stdin or a prompt. */
static int
admin_user_create(int argc, char **argv)
{
	struct db	*db;
	const char	*name = NULL;
	char		*pw, err[256];
	int		 i, admin = 0, temporary = 0, rc = 1, operands = 0;

	for (i = 1; i < argc; i++) {
		if (!operands && strcmp(argv[i], "--") == 0)
			operands = 1;
		else if (!operands && strcmp(argv[i], "--admin") == 0)
			admin = 1;
		else if (!operands && strcmp(argv[i], "--temporary") == 0)
			temporary = 1;
		else if (!operands && admin_is_option(argv[i]))
			return admin_bad_option("user create", argv[i]);
		else if (name == NULL)
			name = argv[i];
		else {
			admin_usage_of(stderr, "user");
			return 2;
		}
	}
	if (name == NULL) {
		admin_usage_of(stderr, "user");
		return 2;
	}
	if (!user_valid_name(name)) {
		fprintf(stderr, "ctxd-admin: a user name has 1 to %d letters, "
		    "digits or . _ @ -\n", USER_NAME_MAX);
		return 2;
	}
	if ((pw = admin_read_password(name)) == NULL)
		return 1;
	if (admin_open_db(&db) == -1) {
		admin_free_password(pw);
		return 1;
	}
	if (user_create(db, name, admin, pw, temporary, NULL, err, sizeof(err)) == -1)
		fprintf(stderr, "ctxd-admin: %s\n", err);
	else {
		printf("user %s created (%s)\n", name, admin ? "admin" : "member");
		rc = 0;
	}
	admin_free_password(pw);
	db_close(db);
	return rc;
}

/*
 * ctxd-admin user disable|enable|delete|unlock NAME, user role NAME admin|member: one
 * change through accounts_update / accounts_remove (the last enabled admin stays).
 */
static int
admin_user_change(const char *op, int argc, char **argv)
{
	struct db	*db;
	struct user	 u;
	struct user_change c;
	enum user_result ur;
	int		 rc = 1, r;

	if (argc != 2 && !(argc == 3 && strcmp(op, "role") == 0)) {
		admin_usage();
		return 2;
	}
	if (strcmp(op, "role") == 0 && (argc != 3 || (strcmp(argv[2], "admin") != 0 &&
	    strcmp(argv[2], "member") != 0))) {
		fprintf(stderr, "ctxd-admin: user role NAME admin|member\n");
		return 2;
	}
	if (strcmp(op, "disable") != 0 && strcmp(op, "enable") != 0 &&
	    strcmp(op, "role") != 0 && strcmp(op, "delete") != 0 &&
	    strcmp(op, "unlock") != 0) {
		admin_usage();
		return 2;
	}
	if (admin_open_db(&db) == -1)
		return 1;
	if ((r = user_by_name(db, argv[1], &u, NULL)) != 0) {
		if (r == 1)
			fprintf(stderr, "ctxd-admin: no user named %s\n", argv[1]);
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.admin = c.disabled = c.must_change = -1;
	if (strcmp(op, "disable") == 0 || strcmp(op, "enable") == 0)
		c.disabled = strcmp(op, "disable") == 0;
	else if (strcmp(op, "role") == 0)
		c.admin = strcmp(argv[2], "admin") == 0;
	if (strcmp(op, "unlock") == 0)
		ur = session_throttle_clear(db, u.name) == 0 ? USER_OK : USER_ERROR;
	else if (strcmp(op, "delete") == 0)
		ur = accounts_remove(db, &u);
	else
		ur = accounts_update(db, &u, &c);
	if (ur == USER_LAST_ADMIN)
		fprintf(stderr, "ctxd-admin: %s is the last enabled admin; make another "
		    "admin first\n", u.name);
	else if (ur != USER_OK)
		fprintf(stderr, "ctxd-admin: user %s failed\n", op);
	else {
		printf("user %s: %s done\n", u.name, op);
		rc = 0;
	}
out:
	db_close(db);
	return rc;
}

/*
 * ctxd-admin user default-password: exit 0 with "admin / admin" while the first admin of a
 * fresh instance is enabled and still has the password "admin" (script/server shows the first
 * sign-in only then); 1 when it was changed (or the account is gone or disabled).
 */
static int
admin_user_default_password(void)
{
	struct db	*db;
	struct user	 u;
	char		*hash = NULL;
	int		 dflt;

	if (admin_open_db(&db) == -1)
		return 2;
	dflt = user_by_name(db, "admin", &u, &hash) == 0 && !u.disabled && u.admin &&
	    hash != NULL && user_password_verify(hash, "admin", NULL) == 1;
	free(hash);
	db_close(db);
	if (!dflt)
		return 1;
	printf("admin / admin\n");
	return 0;
}

/* ctxd-admin user ...: list, create, disable, enable, delete, role, unlock. */
static int
admin_cmd_user(int argc, char **argv)
{
	struct db	*db;
	int		 rc;

	if (argc < 1) {
		admin_usage();
		return 2;
	}
	if (strcmp(argv[0], "list") == 0 && argc == 1) {
		if (admin_open_db(&db) == -1)
			return 1;
		printf("NAME\tROLE\tSTATE\tCREATED\n");
		rc = user_each(db, admin_user_print, NULL) == 0 ? 0 : 1;
		db_close(db);
		return rc;
	}
	if (strcmp(argv[0], "create") == 0)
		return admin_user_create(argc, argv);
	if (strcmp(argv[0], "default-password") == 0 && argc == 1)
		return admin_user_default_password();
	if ((rc = admin_operands("user", &argc, argv)) != -1)
		return rc;
	if (argc < 1) {
		admin_usage_of(stderr, "user");
		return 2;
	}
	return admin_user_change(argv[0], argc, argv);
}

/*
 * Reads all of stdin, at most ADMIN_STDIN_MAX bytes, without its trailing line ends: a
 * setting's value kept out of the command line, one line (a token) or several (a PEM
 * private key). NULL when there is nothing, or too much (said on stderr).
 */
#define ADMIN_STDIN_MAX	(64 * 1024)
static char *
admin_read_stdin_all(void)
{
	struct buf	 b;
	char		 chunk[4096];
	size_t		 n;

	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		if (b.len + n > ADMIN_STDIN_MAX || buf_add(&b, chunk, n) == -1) {
			if (b.len + n > ADMIN_STDIN_MAX)
				fprintf(stderr, "ctxd-admin: the value on standard input is "
				    "longer than %d bytes\n", ADMIN_STDIN_MAX);
			explicit_bzero(chunk, sizeof(chunk));
			if (b.p != NULL)
				explicit_bzero(b.p, b.len);
			buf_release(&b);
			return NULL;
		}
	}
	explicit_bzero(chunk, sizeof(chunk));
	while (b.len > 0 && (b.p[b.len - 1] == '\n' || b.p[b.len - 1] == '\r'))
		b.len--;
	if (b.len == 0 || memchr(b.p, '\0', b.len) != NULL) {
		buf_release(&b);
		return NULL;
	}
	b.p[b.len] = '\0';
	return buf_detach(&b);
}

/* Reads one line from stdin (for secrets kept out of the command line). */
static char *
admin_read_stdin_line(void)
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

/*
 * ctxd-admin settings set|unset policy.*: changes a policy (value NULL: unset) and records
 * the change in the audit trail as done by ctxd-admin. 0, or 1 with a message.
 */
static int
admin_settings_policy(struct db *db, const char *dir, const char *value, const char *name)
{
	struct policy	 before;
	char		 err[600], actor[64], *input = NULL;
	int		 rc = 1;

	if (value != NULL && strcmp(value, "-") == 0) {
		if ((input = admin_read_stdin_all()) == NULL) {
			fprintf(stderr, "ctxd-admin: no value on standard input\n");
			return 1;
		}
		value = input;
	}
	if (db_begin(db) == -1) {
		free(input);
		return 1;
	}
	if (policy_load(db, dir, &before) == -1) {
		db_rollback(db);
		free(input);
		return 1;
	}
	if (value != NULL ? settings_set(db, dir, name, value, err, sizeof(err)) != 0 :
	    settings_unset(db, name) == -1) {
		fprintf(stderr, "ctxd-admin: %s\n", value != NULL ? err : "database error");
		goto out;
	}
	snprintf(actor, sizeof(actor), "ctxd-admin (uid %lu)", (unsigned long)getuid());
	if (policy_record(db, dir, &before, actor) == -1 || db_commit(db) == -1) {
		fprintf(stderr, "ctxd-admin: cannot record the change: database error\n");
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		db_rollback(db);
	policy_release(&before);
	free(input);
	return rc;
}

static int
admin_cmd_settings(int argc, char **argv)
{
	struct db	*db;
	const char	*dir = util_data_dir();
	char		*v, *input = NULL, err[512];
	int		 rc = 1;

	if (argc < 1) {
		admin_usage();
		return 2;
	}
	if ((rc = admin_operands("settings", &argc, argv)) != -1)
		return rc;
	rc = 1;
	if (argc < 1) {
		admin_usage_of(stderr, "settings");
		return 2;
	}
	if (strcmp(argv[0], "list") == 0 && argc == 1) {
		if (admin_open_db(&db) == -1)
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
			admin_usage();
		return 2;
	}
	if (admin_open_db(&db) == -1)
		return 1;
	if (strncmp(argv[1], "policy.", 7) == 0 && ((strcmp(argv[0], "set") == 0 &&
	    argc == 3) || (strcmp(argv[0], "unset") == 0 &&
	    argc == 2))) {
		rc = admin_settings_policy(db, dir, argc == 3 ? argv[2] : NULL, argv[1]);
	} else if (strcmp(argv[0], "get") == 0 && argc == 2) {
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
		    (input = admin_read_stdin_all()) == NULL) {
			fprintf(stderr, "ctxd-admin: no value on standard input\n");
			goto out;
		}
		if (settings_set(db, dir, argv[1], input ? input : argv[2], err,
		    sizeof(err)) != 0)
			fprintf(stderr, "ctxd-admin: %s\n", err);
		else
			rc = 0;
	} else if (strcmp(argv[0], "unset") == 0 && argc == 2) {
		rc = settings_unset(db, argv[1]) == 0 ? 0 : 1;
	} else {
		admin_usage();
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

/*
 * ctxd-admin provider test [--timeout SECONDS] [--llm | --embed]: one real call to each
 * configured AI provider, a line a step; exit 0 when all passed, 1 when one failed, 2 usage.
 */
static int
admin_cmd_provider(int argc, char **argv)
{
	struct provcheck c;
	struct db	*db;
	long		 secs = 30;
	size_t		 i;
	int		 k, rc;

	if (argc < 1 || strcmp(argv[0], "test") != 0) {
		admin_usage();
		return 2;
	}
	memset(&c, 0, sizeof(c));
	for (k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--timeout") == 0 && k + 1 < argc &&
		    util_parse_long(argv[k + 1], 1, 600, &secs) == 0)
			k++;
		else if (strcmp(argv[k], "--llm") == 0)
			c.llm = 1;
		else if (strcmp(argv[k], "--embed") == 0)
			c.embed = 1;
		else {
			fprintf(stderr, "usage: ctxd-admin provider test "
			    "[--timeout SECONDS] [--llm | --embed]\n");
			return 2;
		}
	}
	c.timeout_ms = secs * 1000;
	if (admin_open_db(&db) == -1)
		return 1;
	rc = provcheck_run(db, util_data_dir(), &c);
	db_close(db);
	for (i = 0; i < c.nlines; i++)
		printf("%s\n", c.lines[i]);
	return rc;
}

/* ctxd-admin upstream test: one real library search at upstream.url, the outcome in words. */
static int
admin_cmd_upstream(int argc, char **argv)
{
	struct db	*db;
	char	 msg[512];
	int	 rc;

	if (argc != 1 || strcmp(argv[0], "test") != 0) {
		admin_usage_of(stderr, "upstream");
		return 2;
	}
	if (admin_open_db(&db) == -1)
		return 1;
	rc = upstream_test(db, util_data_dir(), msg, sizeof(msg));
	fprintf(rc == 0 ? stdout : stderr, "%s%s\n", rc == 0 ? "" : "ctxd-admin: ", msg);
	db_close(db);
	return rc == 0 ? 0 : 1;
}

/*
 * backup and restore copy DATA_DIR/ctxd.db: on PostgreSQL (DATABASE_URL) they refuse and
 * name PostgreSQL's own tools, which the operator's backups already use. 1 when refused.
 */
static int
admin_refuse_postgres(const char *cmd)
{
	if (db_url() == NULL)
		return 0;
	fprintf(stderr, "ctxd-admin: %s copies DATA_DIR/ctxd.db, and the store is PostgreSQL "
	    "(DATABASE_URL): back it up with pg_dump (restore with pg_restore) or your "
	    "PostgreSQL backups, and keep a copy of DATA_DIR/secret.key beside them\n", cmd);
	return 1;
}

/* ctxd-admin backup [--with-secret] FILE: an online copy of the database (lib/admin/backup.c). */
static int
admin_cmd_backup(int argc, char **argv)
{
	const char	*dir = doctor_data_dir();
	int		 i, with_secret = 0, operands = 0;
	const char	*file = NULL;

	for (i = 0; i < argc; i++) {
		if (!operands && strcmp(argv[i], "--") == 0)
			operands = 1;
		else if (!operands && strcmp(argv[i], "--with-secret") == 0)
			with_secret = 1;
		else if (!operands && admin_is_option(argv[i]))
			return admin_bad_option("backup", argv[i]);
		else if (file == NULL)
			file = argv[i];
		else
			file = "";
	}
	if (file == NULL || *file == '\0') {
		admin_usage_of(stderr, "backup");
		return 2;
	}
	if (admin_refuse_postgres("backup"))
		return 1;
	if (backup_run(dir, file, with_secret) == -1) {
		fprintf(stderr, "ctxd-admin: backup of %s to %s failed (see above)\n", dir,
		    file);
		return 1;
	}
	if (with_secret)
		fprintf(stderr, "ctxd-admin: warning: %s holds secret.key: whoever reads it "
		    "can decrypt the secrets stored in the database; keep it as safe as "
		    "the key\n", file);
	else
		fprintf(stderr, "ctxd-admin: warning: secret.key is not in %s: the secret "
		    "settings (provider keys) restored from it need this %s/secret.key; keep "
		    "a copy of it, or use --with-secret\n", file, dir);
	printf("backed up %s/ctxd.db (schema version %d) to %s\n", dir,
	    db_schema_version(), file);
	return 0;
}

/*
 * ctxd-admin compact: gives the free pages of the database (deleted libraries, versions,
 * re-indexed files) back to the disk (db_compact), online; prints the sizes before and after.
 * On PostgreSQL (DATABASE_URL) db_compact is a plain VACUUM of the database (online: no
 * table is locked against the responders); the messages name that database, not a file.
 */
static int
admin_cmd_compact(int argc, char **argv)
{
	const char	*dir = doctor_data_dir();
	struct db	*db = NULL;
	long long	 size, freeb, after, afterfree;
	enum db_failure	 code;

	if (argc > 0) {
		if (admin_is_option(argv[0]))
			return admin_bad_option("compact", argv[0]);
		admin_usage_of(stderr, "compact");
		return 2;
	}
	if (db_open(dir, DB_READWRITE, &db) == -1) {
		fprintf(stderr, "ctxd-admin: cannot open the database in %s (see above)\n", dir);
		return 1;
	}
	if (db_space(db, &size, &freeb) == -1)
		goto fail;
	if (db_compact(db) == -1) {
		code = db_failure(db);
		fprintf(stderr, "ctxd-admin: compact of %s failed: %s\n", admin_db_name(dir),
		    code == DB_FAIL_BUSY ? "the database is busy (a "
		    "job or a backup is writing); run it again when it is done" :
		    code == DB_FAIL_FULL ? "not enough disk space for a copy of the database "
		    "(next to it and in the temporary folder)" : db_errmsg(db));
		db_close(db);
		return 1;
	}
	if (db_space(db, &after, &afterfree) == -1)
		goto fail;
	if (db_url() != NULL)
		printf("compacted %s (VACUUM): %.1f MB -> %.1f MB\n", admin_db_name(dir),
		    (double)size / 1048576.0, (double)after / 1048576.0);
	else
		printf("compacted %s/ctxd.db: %.1f MB -> %.1f MB (%.1f MB of free pages given "
		    "back to the disk)\n", dir, (double)size / 1048576.0,
		    (double)after / 1048576.0,
		    (double)(size - after > 0 ? size - after : 0) / 1048576.0);
	db_close(db);
	return 0;
fail:
	fprintf(stderr, "ctxd-admin: compact of %s failed (see above)\n", admin_db_name(dir));
	db_close(db);
	return 1;
}

/* Writes s as one TSV field: backslash, tab, newline and carriage return escaped. */
static void
admin_tsv_field(FILE *f, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		switch (*s) {
		case '\\':
			fputs("\\\\", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			fputc(*s, f);
		}
}

/*
 * ctxd-admin explain LIBRARY QUESTION: answers the question as GET /api/v2/context does
 * (without the LLM's reranking unless --rerank) and prints, instead of the answer, the
 * ranking's candidates best first with their scores and what became of each (in the
 * answer and at which place, below the stop ratio, no room left, ...); --tsv prints every
 * candidate as a tab-separated line with its text as the answer would show it.
 */
static int
admin_cmd_explain(int argc, char **argv)
{
	struct search_trace t;
	struct search	*s = NULL;
	struct db	*db = NULL;
	struct buf	 out;
	long		 budget = FORMAT_DEFAULT_TOKENS, limit = -1, chars;
	int		 i, tsv = 0, rerank = 0, status, code = 1;
	size_t		 k;

	memset(&t, 0, sizeof(t));
	buf_init(&out);
	for (i = 0; i < argc && admin_is_option(argv[i]); i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--tsv") == 0)
			tsv = 1;
		else if (strcmp(argv[i], "--rerank") == 0)
			rerank = 1;
		else if (strcmp(argv[i], "--tokens") == 0 && i + 1 < argc) {
			if (util_parse_long(argv[++i], FORMAT_MIN_TOKENS, FORMAT_MAX_TOKENS,
			    &budget) == -1) {
				fprintf(stderr, "ctxd-admin: --tokens must be a whole number "
				    "from %d to %d\n", FORMAT_MIN_TOKENS, FORMAT_MAX_TOKENS);
				return 2;
			}
		} else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
			if (util_parse_long(argv[++i], 1, 1000000, &limit) == -1) {
				fprintf(stderr, "ctxd-admin: --limit must be a whole number of "
				    "candidates, 1 or more\n");
				return 2;
			}
		} else
			return admin_bad_option("explain", argv[i]);
	}
	if (argc - i != 2) {
		admin_usage_of(stderr, "explain");
		return 2;
	}
	chars = validate_utf8_chars(argv[i + 1], strlen(argv[i + 1]));
	if (chars < 1 || chars > SEARCH_TEXT_MAX) {
		fprintf(stderr, "ctxd-admin: the question must be 1 to %d characters of "
		    "UTF-8 text\n", SEARCH_TEXT_MAX);
		return 2;
	}
	if (limit == -1)
		limit = tsv ? 1000000 : 20;
	if (db_open(doctor_data_dir(), DB_READONLY, &db) == -1) {
		fprintf(stderr, "ctxd-admin: cannot open the database in %s (see above)\n",
		    doctor_data_dir());
		return 1;
	}
	if ((s = search_open(db)) == NULL) {
		fprintf(stderr, "ctxd-admin: explain: cannot prepare the search (see above)\n");
		goto out;
	}
	status = search_explain(s, argv[i], argv[i + 1], budget, !rerank, &t, &out);
	if (status != 200) {
		fprintf(stderr, "ctxd-admin: explain: %s\n", status == -1 ? "out of memory" :
		    out.p);
		goto out;
	}
	if (tsv) {
		printf("rank\tid\tscore\ttokens\tplace\tfate\tsource\tbreadcrumb\ttitle\ttext\t"
		    "terms\n");
		for (k = 0; k < t.n && (long)k < limit; k++) {
			const struct search_trace_row *r = &t.rows[k];

			printf("%zu\t%lld\t%.4f\t%d\t%zu\t%s\t", k + 1, r->id, r->score,
			    r->tokens, r->place, search_fate_name(r->fate));
			admin_tsv_field(stdout, r->source);
			putchar('\t');
			admin_tsv_field(stdout, r->breadcrumb);
			putchar('\t');
			admin_tsv_field(stdout, r->title);
			putchar('\t');
			admin_tsv_field(stdout, r->text);
			printf("\t%llx\n", (unsigned long long)r->terms);
		}
	} else {
		printf("%s, %ld tokens: the answer holds %zu of %zu candidates (%ld tokens); "
		    "%s ranking%s\n", argv[i], budget, t.placed, t.n, t.used,
		    t.hybrid ? "hybrid (lexical and vectors)" : "lexical",
		    t.reranked ? ", reordered by the LLM" : "");
		printf("question terms:");
		for (k = 0; k < t.nterms; k++)
			printf(" \"%s\"", t.terms[k]);
		putchar('\n');
		for (k = 0; k < t.n && (long)k < limit; k++) {
			const struct search_trace_row *r = &t.rows[k];

			printf("\n%3zu  score %.2f  %d tokens  %s", k + 1, r->score, r->tokens,
			    search_fate_name(r->fate));
			if (r->place > 0)
				printf(" (place %zu)", r->place);
			printf("\n     %s\n     Source: %s\n", r->breadcrumb != NULL &&
			    *r->breadcrumb != '\0' ? r->breadcrumb : (r->title != NULL ?
			    r->title : ""), r->source != NULL ? r->source : "(gone)");
		}
		if ((size_t)limit < t.n)
			printf("\n(%zu more; --limit N shows more)\n", t.n - (size_t)limit);
	}
	code = 0;
out:
	search_trace_release(&t);
	buf_release(&out);
	if (s != NULL)
		search_close(s);
	db_close(db);
	return code;
}

/* One line of ctxd-admin index list. */
static int
admin_index_print(const struct segments_row *r, void *arg)
{
	long long	*total = arg;

	total[0] += r->bytes;
	total[1] += r->snippets;
	printf("%s\t%s\t%lld\t%.1f\t%s%s%s\n", r->id, r->state, r->snippets,
	    (double)r->bytes / 1048576.0, segments_status_word(r->status),
	    r->status == SEGMENTS_DAMAGED ? ": " : "", r->status == SEGMENTS_DAMAGED ?
	    r->why : "");
	return 0;
}

/*
 * ctxd-admin index list: each library's index segment, its size and state;
 * ctxd-admin index rebuild [ID ...]: writes the missing or damaged segments (of the
 * libraries named, or all) from the database, as the worker does after an index run.
 */
static int
admin_cmd_index(int argc, char **argv)
{
	const char	*dir = doctor_data_dir();
	struct db	*db = NULL;
	long long	 total[2] = { 0, 0 };
	int		 rc, list;

	if (argc < 1 || (strcmp(argv[0], "list") != 0 && strcmp(argv[0], "rebuild") != 0) ||
	    (strcmp(argv[0], "list") == 0 && argc != 1)) {
		if (argc >= 1 && admin_is_option(argv[0]))
			return admin_bad_option("index", argv[0]);
		admin_usage_of(stderr, "index");
		return 2;
	}
	list = strcmp(argv[0], "list") == 0;
	argc--;
	argv++;
	if ((rc = admin_operands("index", &argc, argv)) != -1)
		return rc;
	if (db_open(dir, DB_READONLY, &db) == -1) {
		fprintf(stderr, "ctxd-admin: cannot open the database in %s (see above)\n", dir);
		return 1;
	}
	if (list) {
		printf("LIBRARY\tSTATE\tSNIPPETS\tSEGMENT_MB\tSEGMENT\n");
		rc = segments_each(db, dir, admin_index_print, total) == 0 ? 0 : 1;
		if (rc == 0)
			printf("total\t\t%lld\t%.1f\t\n", total[1],
			    (double)total[0] / 1048576.0);
	} else if ((rc = segments_rebuild(db, dir, argv, (size_t)argc, stdout)) == -1) {
		fprintf(stderr, "ctxd-admin: index rebuild: the libraries could not be read "
		    "(see above)\n");
		rc = 1;
	} else if (rc > 0) {
		fprintf(stderr, "ctxd-admin: index rebuild: %d segment%s not written\n", rc,
		    rc == 1 ? "" : "s");
		rc = 1;
	}
	db_close(db);
	return rc;
}

/*
 * ctxd-admin migrate-to-postgres [URL]: copies this instance's SQLite database into the
 * empty PostgreSQL database URL names (default: DATABASE_URL) and checks the counts.
 */
static int
admin_cmd_migrate_pg(int argc, char **argv)
{
	const char	*dir = doctor_data_dir(), *url;
	struct db	*db = NULL;
	struct pg	*pg;
	char		 err[512];
	int		 rc;

	if ((rc = admin_operands("migrate-to-postgres", &argc, argv)) != -1)
		return rc;
	if (argc > 1) {
		admin_usage_of(stderr, "migrate-to-postgres");
		return 2;
	}
	url = argc == 1 ? argv[0] : getenv("DATABASE_URL");
	if (url == NULL || *url == '\0') {
		fprintf(stderr, "ctxd-admin: migrate-to-postgres: give the PostgreSQL database's "
		    "URL (postgresql://USER@HOST/DB) or set DATABASE_URL\n");
		return 2;
	}
	/* the source is DATA_DIR/ctxd.db, whatever DATABASE_URL says */
	if (db_open_sqlite(dir, DB_READONLY, &db) == -1) {
		fprintf(stderr, "ctxd-admin: cannot open the database in %s (see above)\n", dir);
		return 1;
	}
	if ((pg = pg_connect(url, err, sizeof(err))) == NULL) {
		fprintf(stderr, "ctxd-admin: cannot connect to PostgreSQL: %s\n", err);
		db_close(db);
		return 1;
	}
	printf("TABLE\tROWS\n");
	rc = pgstore_copy(db, pg, stdout, err, sizeof(err));
	if (rc == -1)
		fprintf(stderr, "ctxd-admin: migrate-to-postgres: %s; PostgreSQL is left as it "
		    "was\n", err);
	else
		printf("copied %s/ctxd.db into PostgreSQL %s (schema version %d), every count "
		    "checked; give every node that DATABASE_URL and DATA_DIR/secret.key\n", dir,
		    pg_server_version(pg), db_schema_version());
	pg_close(pg);
	db_close(db);
	return rc == -1 ? 1 : 0;
}

/* ctxd-admin restore FILE: replaces the database by a backup (lib/admin/backup.c). */
static int
admin_cmd_restore(int argc, char **argv)
{
	const char	*dir = doctor_data_dir();
	char		 err[512];
	int		 rc;

	if (argc >= 1 && strcmp(argv[0], "--") == 0) {
		argc--;
		argv++;
	} else if (argc >= 1 && admin_is_option(argv[0]))
		return admin_bad_option("restore", argv[0]);
	if (argc != 1) {
		admin_usage_of(stderr, "restore");
		return 2;
	}
	if (admin_refuse_postgres("restore"))
		return 1;
	if ((rc = backup_restore(dir, argv[0], err, sizeof(err))) == -1) {
		fprintf(stderr, "ctxd-admin: cannot restore %s: %s\n", argv[0], err);
		return 1;
	}
	printf("restored %s into %s/ctxd.db (schema version %d)%s\n", argv[0], dir,
	    db_schema_version(), rc == 1 ? ", with secret.key" : "");
	return 0;
}

int
main(int argc, char *argv[])
{
	log_init("ctxd-admin");
	db_umask();
	/*
	 * On a packaged server, an operator who runs ctxd-admin by hand gets the service's
	 * DATA_DIR (from /etc/default/ctxd) for every command, not only the operations ones.
	 */
	doctor_database_url();
	if (getenv("DATA_DIR") == NULL)
		setenv("DATA_DIR", doctor_data_dir(), 0);
	if (argc < 2) {
		admin_usage();
		return 2;
	}
	/* ctxd-admin CMD ... --help: that command's usage, and nothing is done. */
	if (admin_known(argv[1]) && admin_wants_help(argc - 2, argv + 2)) {
		admin_usage_of(stdout, argv[1]);
		return 0;
	}
	if (strcmp(argv[1], "init") == 0) {
		if (argc == 2)
			return admin_cmd_init();
		return admin_is_option(argv[2]) ? admin_bad_option("init", argv[2]) :
		    (admin_usage_of(stderr, "init"), 2);
	}
	if (strcmp(argv[1], "license") == 0)
		return admin_cmd_license(argc - 2, argv + 2);
	if (strcmp(argv[1], "key") == 0)
		return admin_cmd_key(argc - 2, argv + 2);
	if (strcmp(argv[1], "passwd") == 0)
		return admin_cmd_passwd(argc - 2, argv + 2);
	if (strcmp(argv[1], "user") == 0)
		return admin_cmd_user(argc - 2, argv + 2);
	if (strcmp(argv[1], "settings") == 0)
		return admin_cmd_settings(argc - 2, argv + 2);
	if (strcmp(argv[1], "provider") == 0)
		return admin_cmd_provider(argc - 2, argv + 2);
	if (strcmp(argv[1], "upstream") == 0)
		return admin_cmd_upstream(argc - 2, argv + 2);
	if (strcmp(argv[1], "backup") == 0)
		return admin_cmd_backup(argc - 2, argv + 2);
	if (strcmp(argv[1], "restore") == 0)
		return admin_cmd_restore(argc - 2, argv + 2);
	if (strcmp(argv[1], "compact") == 0)
		return admin_cmd_compact(argc - 2, argv + 2);
	if (strcmp(argv[1], "explain") == 0)
		return admin_cmd_explain(argc - 2, argv + 2);
	if (strcmp(argv[1], "index") == 0)
		return admin_cmd_index(argc - 2, argv + 2);
	if (strcmp(argv[1], "migrate-to-postgres") == 0)
		return admin_cmd_migrate_pg(argc - 2, argv + 2);
	if (strcmp(argv[1], "doctor") == 0) {
		if (argc != 2)
			return admin_is_option(argv[2]) ? admin_bad_option("doctor", argv[2]) :
			    (admin_usage_of(stderr, "doctor"), 2);
		return doctor_run(doctor_data_dir(), stdout);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		admin_usage_of(stdout, NULL);
		return 0;
	}
	admin_usage();
	return 2;
}
