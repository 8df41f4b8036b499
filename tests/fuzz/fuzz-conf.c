// SPDX-License-Identifier: MIT
/* libFuzzer target: any bytes as a configuration file must parse without crashing or leaking. */
#include <stdint.h>
#include <stdio.h>

#include "conf-load.h"
#include "conf-parse.h"
#include "conf.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf *c;
	FILE *f;

	if (size == 0 || conf_new(&c) < 0)
		return 0;
	log_set_max_level(LOG_EMERG);
	f = fmemopen((void *)data, size, "r");
	if (f) {
		conf_parse_stream(c, "fuzz.conf", f);
		fclose(f);
	}
	conf_finish(c);
	conf_free(c);
	return 0;
}
