/* test-storage.c: wiki storage format to sections (lib/storage.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ctxd.h"
#include "tap.h"
#include "doc-helpers.h"

int
main(void)
{
	log_init("test-storage");
	return tap_done();
}
