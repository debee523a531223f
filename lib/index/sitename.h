/*
 * sitename.h: a website's name from its pages' titles (lib/index/sitename.c), the title of
 * a website library whose user named none.
 */
#ifndef SITENAME_H
#define SITENAME_H

#include <stddef.h>

/*
 * The name the titles of a site's pages share (titles[0] the start page's; NULL entries
 * skipped): the last part after a separator (" - ", " | ", " — ", " – ", " · ", " :: ")
 * when at least half of the titles, and two, end in it, else the start page's whole
 * title. malloc'd (at most 200 bytes), NULL when there is none or out of memory.
 */
char	*sitename_of(const char *const *titles, size_t n);

#endif /* SITENAME_H */
