// SPDX-License-Identifier: GPL-2.0-or-later
/* Random (version 4) UUIDs: a run's identity across databases. */
#ifndef LOADD_UUID_H
#define LOADD_UUID_H

#define UUID_LEN 36

/* Writes "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" and a NUL into out. */
void uuid_v4(char out[UUID_LEN + 1]);

#endif
