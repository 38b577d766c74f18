#include "json_build.h"

#include <math.h>

#include "log.h"

json_t *json_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void json_set(json_t *obj, const char *key, json_t *value)
{
	if (value == NULL || json_object_set_new(obj, key, value) < 0)
		fatalx("out of memory building a JSON document");
}
