/*
 * store/ghapp.h: the GitHub App's tables: hook_deliveries (the deliveries and bodies a
 * webhook has seen, against replays) and ghapp_tokens (installation tokens, sealed).
 */
#ifndef STORE_GHAPP_H
#define STORE_GHAPP_H

struct db;

/* Records delivery (or body key) id received at now: 1 new, 0 already there, -1 error. */
int	 store_delivery_add(struct db *, const char *id, long long now);
/* Forgets id when it was received before before. */
int	 store_delivery_expire(struct db *, const char *id, long long before);
/* Keeps the last keep deliveries (by arrival), forgets the older ones. */
int	 store_delivery_trim(struct db *, int keep);
/* Forgets id and key (a delivery and its body). */
void	 store_delivery_forget(struct db *, const char *id, const char *key);

/* The sealed token of installation id that expires after after (malloc'd), or NULL. */
char	*store_ghapp_token_get(struct db *, long long id, long long after);
/* Stores the sealed token of installation id (replacing any) until expires: 0, or -1. */
int	 store_ghapp_token_put(struct db *, long long id, const char *sealed,
	    long long expires);

#endif /* STORE_GHAPP_H */
