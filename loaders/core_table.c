// SPDX-License-Identifier: GPL-2.0-or-later
/* Every loader loadd knows, in the order --list-loaders prints them. An
 * explicit table rather than constructors: a static library would drop a
 * loader's object file that nothing references. */
#include "loader.h"

extern const struct loader_ops loader_cpu_ops;
extern const struct loader_ops loader_memory_ops;
extern const struct loader_ops loader_read_ops;
extern const struct loader_ops loader_write_ops;
extern const struct loader_ops loader_fs_ops;
extern const struct loader_ops loader_net_ops;
extern const struct loader_ops loader_tree_ops;

const struct loader_ops *const loader_table[] = {
	&loader_cpu_ops, &loader_memory_ops, &loader_read_ops, &loader_write_ops,
	&loader_fs_ops,  &loader_net_ops,    &loader_tree_ops, NULL,
};
