/* license.h: the license key: its signature, its terms and its status. */
#ifndef LICENSE_H
#define LICENSE_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

enum license_status {
	LICENSE_OK = 0,
	LICENSE_MISSING,
	LICENSE_MALFORMED,
	LICENSE_BAD_SIGNATURE,
	LICENSE_EXPIRED
};

struct license {
	char	 plan[32];		/* "trial", "standard", ... */
	char	 licensee[128];
	char	 id[40];
	time_t	 issued;		/* UTC midnight of the issue date */
	time_t	 expires;		/* UTC end of the expiry date */
};

/*
 * Verifies a key "ctxd1.<payload b64url>.<signature b64url>" against the Ed25519 public key
 * (32 bytes) at time now. Fills *out (when not NULL) whenever the payload parsed, even if
 * expired or badly signed.
 */
enum license_status license_verify(const char *key, const unsigned char pub[32],
	    time_t now, struct license *out);
/* Formats t as the UTC date "YYYY-MM-DD"; -1 outside the years 1970..9999. */
int	 license_format_date(time_t t, char out[11]);
/*
 * For every long-running executable: verifies $LICENSE_KEY with the compiled-in key. On
 * failure prints one line to stderr ("prog: LICENSE_KEY is missing: ...", "... is
 * malformed: ...", "... has a bad signature: ...", "... expired on YYYY-MM-DD (plan P)")
 * and returns -1.
 */
int	 license_check_env(const char *prog);
/* Mints a key signed with the Ed25519 private key in PEM file keypath; malloc'd. */
char	*license_mint(const char *keypath, const struct license *);
/* Prints a key's fields, one "name: value" per line. */
void	 license_print(const struct license *, enum license_status, FILE *);
const char *license_status_str(enum license_status);

/* Where an installed key lives under DATA_DIR, and how long a trial lasts. */
#define LICENSE_FILE		"license.key"
#define LICENSE_TRIAL_DAYS	30
/* 1 in a development build (configured without --with-license-pubkey). */
int	 license_dev_build(void);
/* The compiled-in verification key; -1 if it is not 64 hex digits. */
int	 license_pubkey(unsigned char pub[32]);
/*
 * The license clock: time(NULL), or in a development build the date in CTXD_LICENSE_NOW
 * ("YYYY-MM-DD", taken at noon UTC) so tests can check expiry.
 */
time_t	 license_now(void);
/* DATA_DIR/license.key, malloc'd. */
char	*license_key_path(void);
/*
 * The key in force: $LICENSE_KEY when set and not blank, else the installed file
 * DATA_DIR/license.key; NULL when neither. *from (when not NULL) is set to "LICENSE_KEY",
 * "file" or NULL. malloc'd.
 */
char	*license_key_load(const char **from);
/* Writes key (trimmed, one line) to DATA_DIR/license.key, mode 0600, atomically. */
int	 license_key_store(const char *key);
/*
 * Verifies a signed key with the compiled-in public key, or a trial token
 * "ctxd-trial.YYYY-MM-DD" (plan trial, LICENSE_TRIAL_DAYS days from that date).
 */
enum license_status license_verify_any(const char *key, time_t now, struct license *);
/* Logs a warning when this is a development build. */
void	 license_log_build(void);

#endif /* LICENSE_H */
